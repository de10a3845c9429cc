/// When each tag of a word was last put on it or taken off, so that sync merges a word's
/// tags one tag at a time: a tag added on the phone and another added on the laptop
/// before either synced both stay, and a tag removed on one device stays removed unless
/// another device put it back later. (As one last-write-wins field, the newer device's
/// list replaced the other's, and a tag added offline was lost.)
///
/// Almost every word's tags were written together, at the tags field's time and in the
/// order of the list: that common case is the empty clock (`implied`), stored and sent as
/// nothing. A clock with marks holds one for every tag the word has, and one for every tag
/// it had and lost (a removal must win over an older copy of the tag elsewhere).
public struct TagClock: Hashable, Sendable {
    /// One tag's latest change.
    public struct Mark: Hashable, Sendable {
        /// When the tag was put on the word or taken off it.
        public var time: Timestamp
        /// Its position among the tags written at that time; nil when it was taken off.
        public var position: Int?

        /// Makes a mark: a tag put on at `time` in `position`, or taken off (nil).
        public init(time: Timestamp, position: Int?) {
            self.time = time
            self.position = position
        }

        /// True when the tag is on the word.
        public var isPresent: Bool { position != nil }

        /// True when this mark beats `other` for the same tag: the newer one wins; at the
        /// same millisecond a tag put on beats one taken off, and then the earlier
        /// position wins (the same choice on every device).
        func beats(_ other: Mark) -> Bool {
            if time != other.time { return time > other.time }
            switch (position, other.position) {
            case (.some(let mine), .some(let theirs)): return mine < theirs
            case (.some, .none): return true
            default: return false
            }
        }
    }

    /// The marks by tag key (`TagSet.key`); empty for the implied clock.
    public var marks: [String: Mark]
    /// True for a record from a cloud file of format 4 or older, which knew tags only as
    /// one field: its list replaced every tag the word had at its time.
    public var wholeField: Bool

    /// Makes a clock from its marks.
    public init(marks: [String: Mark] = [:], wholeField: Bool = false) {
        self.marks = marks
        self.wholeField = wholeField
    }

    /// Every tag written at the tags field's time, in the list's order, none removed.
    public static let implied = TagClock()
    /// A record of an older format: its tags replace the whole list at the field's time.
    public static let ofWholeField = TagClock(wholeField: true)

    /// The marks of a word whose tags are `tags`, changed last at `time`, with every tag
    /// it knows of: the implied ones made explicit. `tags` decides what is on the word.
    public func resolved(tags: [String], time: Timestamp) -> [String: Mark] {
        var result = marks
        var present = Set<String>()
        for (index, tag) in tags.enumerated() {
            let key = TagSet.key(tag)
            present.insert(key)
            if result[key]?.isPresent != true { result[key] = Mark(time: time, position: index) }
        }
        for (key, mark) in result where mark.isPresent && !present.contains(key) {
            result[key] = Mark(time: mark.time, position: nil)
        }
        return result
    }

    /// The clock of `marks` for tags `tags` changed last at `time`: implied when the marks
    /// say no more than the list does.
    public static func compacted(_ marks: [String: Mark], tags: [String], time: Timestamp) -> TagClock {
        guard marks.count == tags.count else { return TagClock(marks: marks) }
        for (index, tag) in tags.enumerated() where marks[TagSet.key(tag)] != Mark(time: time, position: index) {
            return TagClock(marks: marks)
        }
        return .implied
    }

    /// The tags on the word, in the order every device gives them: by the time each was
    /// put on, then its position then, then its key. `forms` gives each key's written form.
    public static func ordered(_ marks: [String: Mark], forms: [String: String]) -> [String] {
        marks.compactMap { key, mark in mark.position.map { (key, mark.time, $0) } }
            .sorted { ($0.1, $0.2, $0.0) < ($1.1, $1.2, $1.0) }
            .map { forms[$0.0] ?? $0.0 }
    }

    /// The clock after this device wrote `tags` at `time` over a word whose tags were
    /// `previous`, changed last at `previousTime`: tags put on get `time` and their
    /// position, tags taken off a removal mark, tags kept their mark. When that order is
    /// not the list as written (a tag put first, or the same tags reordered), or nothing
    /// changed but the time (a backup restored over the word), every tag of the list is
    /// written again at `time`, so the list reads as written here and wins as it did.
    public func written(
        _ tags: [String], at time: Timestamp, over previous: [String], changedAt previousTime: Timestamp
    )
        -> TagClock
    {
        var next = resolved(tags: previous, time: previousTime)
        let keys = tags.map(TagSet.key)
        let kept = Set(keys)
        var changed = false
        for (key, mark) in next where mark.isPresent && !kept.contains(key) {
            next[key] = Mark(time: time, position: nil)
            changed = true
        }
        for (index, key) in keys.enumerated() where next[key]?.isPresent != true {
            next[key] = Mark(time: time, position: index)
            changed = true
        }
        let forms = Dictionary(zip(keys, tags), uniquingKeysWith: { first, _ in first })
        if !changed || Self.ordered(next, forms: forms) != tags {
            for (index, key) in keys.enumerated() { next[key] = Mark(time: time, position: index) }
        }
        return Self.compacted(next, tags: tags, time: time)
    }

    /// One side of a merge: a word's tags, their clock and the tags field's time.
    public struct Side {
        /// The tags as listed.
        public var tags: [String]
        /// Their clock.
        public var clock: TagClock
        /// The tags field's time.
        public var time: Timestamp

        /// Makes a side.
        public init(tags: [String], clock: TagClock, time: Timestamp) {
            self.tags = tags
            self.clock = clock
            self.time = time
        }
    }

    /// Merges two versions of one word's tags, tag by tag (`Mark.beats`). `primary` is the
    /// version whose tags field the field rule would keep (the newer, or the tie's winner):
    /// a tag's written form comes from the side whose mark won, `primary` on a tie. A side
    /// of an older format (`wholeField`) takes every tag the other side knows and its list
    /// lacks as removed at its time. Returns the tags, in `ordered` order, and their clock
    /// at `time`, the merged field's time.
    public static func merge(primary: Side, secondary: Side, time: Timestamp) -> (tags: [String], clock: TagClock) {
        // The common case, one list written at once on both sides: every tag at the newer time.
        if primary.tags == secondary.tags && primary.clock == .implied && secondary.clock == .implied {
            return (primary.tags, .implied)
        }
        var first = primary.clock.resolved(tags: primary.tags, time: primary.time)
        var second = secondary.clock.resolved(tags: secondary.tags, time: secondary.time)
        if primary.clock.wholeField { Self.takeOff(second.keys, from: &first, at: primary.time) }
        if secondary.clock.wholeField { Self.takeOff(first.keys, from: &second, at: secondary.time) }
        let firstForms = Dictionary(primary.tags.map { (TagSet.key($0), $0) }, uniquingKeysWith: { first, _ in first })
        let secondForms = Dictionary(secondary.tags.map { (TagSet.key($0), $0) }, uniquingKeysWith: { first, _ in first })
        var marks = first
        var forms = firstForms
        for (key, mark) in second {
            guard let other = first[key] else {
                marks[key] = mark
                forms[key] = secondForms[key]
                continue
            }
            if mark.beats(other) {
                marks[key] = mark
                if let form = secondForms[key] { forms[key] = form }
            }
        }
        let tags = ordered(marks, forms: forms)
        return (tags, compacted(marks, tags: tags, time: time))
    }

    /// Marks every key of `keys` missing from `marks` as taken off at `time`.
    private static func takeOff(_ keys: Dictionary<String, Mark>.Keys, from marks: inout [String: Mark], at time: Timestamp) {
        for key in keys where marks[key] == nil { marks[key] = Mark(time: time, position: nil) }
    }
}
