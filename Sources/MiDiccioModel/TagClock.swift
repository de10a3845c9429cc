/// When each tag of a word was put on it or taken off, and where it stands in the list,
/// so that sync merges a word's tags one tag at a time: a tag added on the phone and
/// another added on the laptop before either synced both stay, and a tag taken off on one
/// device stays off unless another device put it back later. (As one last-write-wins
/// field, the newer device's list replaced the other's, and a tag added offline was lost.)
///
/// Each tag keeps two things that merge apart, each the newer of the two sides:
/// - whether it is on the word, with the time it was put on or taken off (at the same
///   millisecond, putting on wins);
/// - its place and written form, with the time they were set: a list typed in a new order
///   or a tag's case changed sets only these, so it brings back no tag taken off elsewhere.
///
/// A list written whole by an older MiDiccio (or read from a cloud file of format 4 or
/// older) has a *floor*: every tag it does not list was taken off at its time. Merging
/// is then the same whichever device merges, and in whatever order, so every device ends
/// with one list in one order without sending merged words again.
///
/// Almost every word's tags were written together, at the tags field's time and in the
/// list's order: the clock then has no marks (they are implied by the list), and the
/// store and the cloud keep nothing for it.
public struct TagClock: Hashable, Sendable {
    /// One tag's state.
    public struct Mark: Hashable, Sendable {
        /// When the tag was put on the word or taken off it.
        public var time: Timestamp
        /// True when it is on the word.
        public var isPresent: Bool
        /// When its place and written form were set.
        public var orderTime: Timestamp
        /// Its position among the tags whose place was set at `orderTime`.
        public var position: Int
        /// Its written form.
        public var form: String

        /// Makes a mark.
        public init(time: Timestamp, isPresent: Bool, orderTime: Timestamp, position: Int, form: String) {
            self.time = time
            self.isPresent = isPresent
            self.orderTime = orderTime
            self.position = position
            self.form = form
        }

        /// True when this mark's on-or-off beats `other`'s: the newer wins, and at the same
        /// millisecond a tag put on beats one taken off.
        public func presenceBeats(_ other: Mark) -> Bool {
            time != other.time ? time > other.time : isPresent && !other.isPresent
        }

        /// True when this mark's place and form beat `other`'s: the newer wins, then the
        /// earlier position, then the larger form (`SameBytes.ordersAfter`: the same choice
        /// on every device, "café" composed or not included).
        func orderBeats(_ other: Mark) -> Bool {
            if orderTime != other.orderTime { return orderTime > other.orderTime }
            if position != other.position { return position < other.position }
            return SameBytes.ordersAfter(form, other.form)
        }

        /// Equal marks: the form byte for byte (`SameBytes`), so a tag written again in
        /// another Unicode form is a change to merge, not the same mark.
        public static func == (one: Mark, other: Mark) -> Bool {
            one.time == other.time && one.isPresent == other.isPresent && one.orderTime == other.orderTime
                && one.position == other.position && SameBytes.equal(one.form, other.form)
        }

        /// Hashes what `==` compares (the form as Swift hashes it, equal for equal bytes).
        public func hash(into hasher: inout Hasher) {
            hasher.combine(time)
            hasher.combine(isPresent)
            hasher.combine(orderTime)
            hasher.combine(position)
            hasher.combine(form)
        }
    }

    /// Set for a list written whole: every tag it does not list was taken off then.
    public var floor: Timestamp?
    /// The marks by tag key (`TagSet.key`); empty when the list implies them.
    public var marks: [String: Mark]

    /// Makes a clock.
    public init(floor: Timestamp? = nil, marks: [String: Mark] = [:]) {
        self.floor = floor
        self.marks = marks
    }

    /// Every tag written at the tags field's time, in the list's order; nothing known of
    /// other tags.
    public static let implied = TagClock()

    /// A list written whole at `time`, as an older MiDiccio wrote every list.
    public static func writtenWhole(at time: Timestamp) -> TagClock { TagClock(floor: time) }

    /// The marks of a word whose tags are `tags`, changed last at `time`: the implied ones
    /// made explicit. `tags` decides what is on the word.
    public func resolved(tags: [String], time: Timestamp) -> [String: Mark] {
        var result = marks
        var listed = Set<String>()
        for (index, tag) in tags.enumerated() {
            let key = TagSet.key(tag)
            listed.insert(key)
            if result[key]?.isPresent != true {
                result[key] = Mark(time: time, isPresent: true, orderTime: time, position: index, form: tag)
            }
        }
        for (key, mark) in result where mark.isPresent && !listed.contains(key) {
            result[key]?.isPresent = false
        }
        return result
    }

    /// The clock of `marks` with `floor`, for tags `tags` changed last at `time`: without
    /// marks when the list says all they do. A tag taken off by the floor or before it,
    /// its place set then too, says nothing the floor does not (a tag put on again later
    /// gets a later place), so it is left out: two devices hold the same clock.
    public static func compacted(_ marks: [String: Mark], floor: Timestamp?, tags: [String], time: Timestamp) -> TagClock {
        var marks = marks
        if let floor {
            marks = marks.filter { $0.value.isPresent || $0.value.time > floor || $0.value.orderTime > floor }
        }
        guard marks.count == tags.count else { return TagClock(floor: floor, marks: marks) }
        for (index, tag) in tags.enumerated()
        where marks[TagSet.key(tag)] != Mark(time: time, isPresent: true, orderTime: time, position: index, form: tag) {
            return TagClock(floor: floor, marks: marks)
        }
        return TagClock(floor: floor)
    }

    /// The tags on the word, in the order every device gives them: by the time each one's
    /// place was set, then its position then, then its key.
    public static func ordered(_ marks: [String: Mark]) -> [String] {
        marks.filter(\.value.isPresent)
            .sorted { ($0.value.orderTime, $0.value.position, $0.key) < ($1.value.orderTime, $1.value.position, $1.key) }
            .map(\.value.form)
    }

    /// The clock after this device wrote `tags` at `time` over a word whose tags were
    /// `previous`, changed last at `previousTime`: tags put on are on from `time`, in their
    /// place; tags taken off are off from `time`; tags kept keep their marks. When the list
    /// does not read as written (a tag put first, the tags reordered, a tag's case
    /// changed), the place and form of every tag listed are set again at `time`, and
    /// nothing else: a tag taken off elsewhere meanwhile stays off.
    public func written(
        _ tags: [String], at time: Timestamp, over previous: [String], changedAt previousTime: Timestamp
    ) -> TagClock {
        var next = resolved(tags: previous, time: previousTime)
        let keys = tags.map(TagSet.key)
        let kept = Set(keys)
        for (key, mark) in next where mark.isPresent && !kept.contains(key) {
            next[key]?.time = time
            next[key]?.isPresent = false
        }
        for (index, key) in keys.enumerated() where next[key]?.isPresent != true {
            next[key] = Mark(time: time, isPresent: true, orderTime: time, position: index, form: tags[index])
        }
        if !SameBytes.equal(Self.ordered(next), tags) {
            for (index, key) in keys.enumerated() {
                next[key]?.orderTime = time
                next[key]?.position = index
                next[key]?.form = tags[index]
            }
        }
        return Self.compacted(next, floor: floor, tags: tags, time: time)
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

    /// Merges two versions of one word's tags, tag by tag: on or off from the side whose
    /// mark is newer (`Mark.presenceBeats`), place and form from the side whose were set
    /// later (`Mark.orderBeats`). The floor is the later one, and a tag on since before it
    /// (one the list written whole left out) is off from it. Returns the tags, in
    /// `ordered` order, and their clock at `time`, the merged field's time.
    public static func merge(_ one: Side, _ other: Side, time: Timestamp) -> (tags: [String], clock: TagClock) {
        let floor = [one.clock.floor, other.clock.floor].compactMap { $0 }.max()
        // The common case, one list written at once on both sides: every tag at the newer time.
        if SameBytes.equal(one.tags, other.tags) && one.clock.marks.isEmpty && other.clock.marks.isEmpty {
            return (one.tags, TagClock(floor: floor))
        }
        let first = one.clock.resolved(tags: one.tags, time: one.time)
        let second = other.clock.resolved(tags: other.tags, time: other.time)
        var marks = first
        for (key, mark) in second {
            guard var merged = first[key] else {
                marks[key] = mark
                continue
            }
            if mark.presenceBeats(merged) {
                merged.time = mark.time
                merged.isPresent = mark.isPresent
            }
            if mark.orderBeats(merged) {
                merged.orderTime = mark.orderTime
                merged.position = mark.position
                merged.form = mark.form
            }
            marks[key] = merged
        }
        // Whatever is older than the floor is off from it, a tag one side lacks included.
        if let floor {
            for (key, mark) in marks where mark.time < floor {
                marks[key]?.time = floor
                marks[key]?.isPresent = false
            }
        }
        let tags = ordered(marks)
        return (tags, compacted(marks, floor: floor, tags: tags, time: time))
    }
}
