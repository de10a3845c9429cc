import Testing

@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// The merge rules themselves, one field at a time, without a library or a cloud: newer
/// time wins; equal time and value is in sync; equal time and different values go to the
/// larger writer id, then (two copies of one library) to the larger value.
@Suite("The merge rules, field by field")
struct MergeRulesTests {
    /// `t0` plus `milliseconds`.
    private static func at(_ milliseconds: Int64) -> Timestamp { Timestamp(milliseconds: t0.milliseconds + milliseconds) }

    private static let t0 = Timestamp(milliseconds: 1_764_000_000_000)

    private func record(_ meaning: String, at time: Timestamp, by writer: String, notes: String = "") -> SyncRecord {
        let id = WordID("3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b")!
        var times = FieldTimes(all: Self.t0)
        times.meaning = time
        var writers = Array(repeating: "w0", count: WordField.allCases.count)
        writers[WordField.meaning.index] = writer
        var word = Word(id: id, term: "palabra", meaning: meaning, notes: notes, createdAt: Self.t0, updatedAt: Self.t0)
        word.updatedAt = times.newest
        return SyncRecord(word: word, times: times, writers: writers)
    }

    @Test("a word new here is taken whole")
    func newWord() {
        let incoming = record("nuevo", at: Self.t0, by: "b")
        let outcome = MergeRules.merge(local: nil, incoming: incoming)
        #expect(outcome.record == incoming)
        #expect(outcome.changed)
        #expect(outcome.changedFields == WordField.allCases)
    }

    @Test("the newer time wins, whichever side it is on", arguments: [(1, true), (-1, false)])
    func newerWins(offset: Int64, incomingWins: Bool) {
        let local = record("local", at: Self.at(5), by: "a")
        let incoming = record("incoming", at: Self.at(5 + offset), by: "b")
        let outcome = MergeRules.merge(local: local, incoming: incoming)
        #expect(outcome.record.word.meaning == (incomingWins ? "incoming" : "local"))
        #expect(outcome.changedFields == (incomingWins ? [.meaning] : []))
        #expect(outcome.changed == incomingWins)
        #expect(outcome.record.word.updatedAt == outcome.record.times.newest)
    }

    @Test("equal time and equal value is already in sync: nothing changes")
    func equalTimeEqualValue() {
        let local = record("igual", at: Self.at(5), by: "b")
        let outcome = MergeRules.merge(local: local, incoming: local)
        #expect(!outcome.changed)
        #expect(outcome.record == local)
    }

    @Test("equal time and equal value with a larger incoming writer id adopts that writer, and changes no value or time")
    func equalTimeEqualValueAdoptsLargerWriter() {
        let local = record("igual", at: Self.at(5), by: "a")
        let incoming = record("igual", at: Self.at(5), by: "z")
        let outcome = MergeRules.merge(local: local, incoming: incoming)
        #expect(outcome.changed, "the writer changed, so the record must be saved")
        #expect(outcome.changedFields.isEmpty)
        #expect(outcome.record.writers[WordField.meaning.index] == "z")
        #expect(outcome.record.times == local.times)
        #expect(outcome.record.word == local.word)
        // And the other way round the local, larger writer stays.
        #expect(!MergeRules.merge(local: incoming, incoming: local).changed)
    }

    @Test("equal time and different values go to the larger writer id, the same on both sides")
    func tieByWriter() {
        let fromA = record("de a", at: Self.at(5), by: "a")
        let fromB = record("de b", at: Self.at(5), by: "b")
        #expect(MergeRules.merge(local: fromA, incoming: fromB).record.word.meaning == "de b")
        #expect(MergeRules.merge(local: fromB, incoming: fromA).record.word.meaning == "de b")
    }

    @Test("equal time, equal writer and different values (two copies of one library) go to the larger value, the same on both sides")
    func tieByValue() {
        let one = record("alfa", at: Self.at(5), by: "same")
        let other = record("beta", at: Self.at(5), by: "same")
        #expect(MergeRules.merge(local: one, incoming: other).record.word.meaning == "beta")
        #expect(MergeRules.merge(local: other, incoming: one).record.word.meaning == "beta")
    }

    @Test("each field is merged on its own: a newer meaning and an older notes field both keep their newest value")
    func fieldsMergeIndependently() {
        var local = record("viejo", at: Self.at(1), by: "a", notes: "notas nuevas")
        local.times.notes = Self.at(9)
        local.word.updatedAt = local.times.newest
        let incoming = record("nuevo", at: Self.at(5), by: "b", notes: "notas viejas")
        let outcome = MergeRules.merge(local: local, incoming: incoming)
        #expect(outcome.record.word.meaning == "nuevo")
        #expect(outcome.record.word.notes == "notas nuevas")
        #expect(outcome.record.times.meaning == Self.at(5))
        #expect(outcome.record.times.notes == Self.at(9))
        #expect(outcome.record.word.updatedAt == Self.at(9))
    }

    @Test("the earlier creation time is kept")
    func earlierCreationKept() {
        let local = record("uno", at: Self.t0, by: "a")
        var incoming = local
        incoming.word.createdAt = Self.at(-1_000)
        let outcome = MergeRules.merge(local: local, incoming: incoming)
        #expect(outcome.record.word.createdAt == Self.at(-1_000))
        #expect(outcome.changed)
    }
}
