import MiDiccioTesting
import Testing

@testable import MiDiccioModel

/// Rule: merging tags gives one result whichever device merges and in whatever order
/// the versions arrive (the merge is commutative, associative and idempotent), so
/// devices agree without sending merged words again. Checked on versions grown from one
/// list by random edits on several devices: tags put on, taken off, put back, reordered,
/// their case changed, some versions written whole by an older MiDiccio (a floor).
@Suite("Tag merges in any order agree")
struct TagMergesInAnyOrderAgreeTests {
    private static let tags = ["verb", "Verb", "noun", "food", "A1", "b2", "casa", "CASA", "ß", "viaje"]

    /// Grows `count` versions from one list: each takes a few random edits at times of its
    /// own, and some are then taken as written whole by an older MiDiccio.
    private static func versions(_ count: Int, using random: inout SeededGenerator) -> [TagClock.Side] {
        let start = Timestamp(milliseconds: 1_764_000_000_000)
        let base = TagClock.Side(tags: ["verb", "food"], clock: .implied, time: start)
        var result: [TagClock.Side] = []
        for device in 0..<count {
            var side = base
            var time = start
            for _ in 0..<Int.random(in: 1...5, using: &random) {
                // Devices' times interleave, and sometimes meet at one millisecond.
                time = Timestamp(milliseconds: time.milliseconds + Int64.random(in: 0...3, using: &random) * 10 + Int64(device % 2))
                if time <= side.time { time = side.time.next }
                var next = side.tags
                switch Int.random(in: 0..<4, using: &random) {
                case 0: next = TagSet.applying(adding: [Self.tags.randomElement(using: &random)!], removing: [], to: next)
                case 1: if let tag = next.randomElement(using: &random) { next = TagSet.applying(adding: [], removing: [tag], to: next) }
                case 2: next.shuffle(using: &random)
                default:
                    next = TagSet.deduplicated(next.map { Bool.random(using: &random) ? $0.uppercased() : $0.lowercased() })
                }
                guard next != side.tags else { continue }
                side = TagClock.Side(
                    tags: next, clock: side.clock.written(next, at: time, over: side.tags, changedAt: side.time), time: time)
            }
            if Int.random(in: 0..<4, using: &random) == 0 {
                side.clock = .writtenWhole(at: side.time)
            }
            result.append(side)
        }
        return result
    }

    private static func merged(_ one: TagClock.Side, _ other: TagClock.Side) -> TagClock.Side {
        let time = max(one.time, other.time)
        let (tags, clock) = TagClock.merge(one, other, time: time)
        return TagClock.Side(tags: tags, clock: clock, time: time)
    }

    /// What a version says of each tag: on or off and since when, and for a tag on, its
    /// place and form (two clocks that say the same may be written differently).
    private static func meaning(_ side: TagClock.Side, keys: Set<String>) -> [String] {
        let marks = side.clock.resolved(tags: side.tags, time: side.time)
        return keys.sorted().map { key in
            guard let mark = marks[key], !(side.clock.floor.map { mark.time < $0 } ?? false) else {
                return "\(key) off since floor \(side.clock.floor?.milliseconds ?? -1)"
            }
            return "\(key) \(mark.isPresent ? "on" : "off") \(mark.time.milliseconds)"
        } + ["list \(side.tags)"]
    }

    @Test("three devices' versions merged in every order give one list and one clock", arguments: 0..<300)
    func everyOrderAgrees(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let sides = Self.versions(3, using: &random)
        let (a, b, c) = (sides[0], sides[1], sides[2])
        let keys = Set(sides.flatMap { $0.clock.resolved(tags: $0.tags, time: $0.time).keys })
        let reference = Self.merged(Self.merged(a, b), c)
        for other in [
            Self.merged(a, Self.merged(b, c)), Self.merged(Self.merged(b, a), c), Self.merged(c, Self.merged(a, b)),
            Self.merged(Self.merged(a, c), b), Self.merged(Self.merged(c, b), a),
        ] {
            #expect(other.tags == reference.tags, "seed \(seed): \(other.tags) against \(reference.tags)")
            #expect(Self.meaning(other, keys: keys) == Self.meaning(reference, keys: keys), "seed \(seed)")
        }
        #expect(Self.merged(reference, reference).tags == reference.tags, "seed \(seed): merging a version with itself")
        #expect(Self.merged(reference, a).tags == reference.tags, "seed \(seed): merging an older version again")
    }
}
