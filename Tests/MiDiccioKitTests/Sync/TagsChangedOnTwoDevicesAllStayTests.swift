import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: tags merge one tag at a time. Each tag keeps the time it was put on the word or
/// taken off it; for each tag the newer of those wins (at the same millisecond, putting
/// on beats taking off). So a tag added on one device and another added on a second
/// device before either synced both stay, where the newer list used to replace the
/// other and lose a tag. The list reads in the same order on every device.
@Suite("Tags changed on two devices before either synced all stay")
struct TagsChangedOnTwoDevicesAllStayTests {
    /// Two devices that both hold "casa" with `tags`, synced and quiet.
    private func twoDevicesSharing(_ fixture: SyncFixture, tags: [String] = []) throws -> (TestDevice, TestDevice, WordID) {
        let a = try fixture.device("a"), b = try fixture.device("b")
        let id = try a.library.add(WordContent(term: "casa", meaning: "house", tags: tags)).word.id
        try fixture.syncRounds([a, b])
        #expect(try b.word(id).tags == tags)
        return (a, b, id)
    }

    /// Edits the word on `a`, then later on `b`, neither synced meanwhile; then both sync
    /// twice.
    private func editApart(
        _ fixture: SyncFixture, _ a: TestDevice, _ b: TestDevice, _ id: WordID, first: WordEdit, then: WordEdit
    ) throws {
        a.clock.advance(by: 1_000)
        try a.library.edit(id, first)
        b.clock.advance(by: 2_000)
        try b.library.edit(id, then)
        try fixture.syncRounds([a, b])
    }

    /// Expects the word to have `tags`, in this order, on every one of `devices`.
    private func expectTags(_ tags: [String], of id: WordID, on devices: [TestDevice]) throws {
        for device in devices {
            #expect(try device.word(id).tags == tags, "\(device.name)")
        }
    }

    @Test("a tag added on each of two devices stays on both, in the order they were added")
    func addedOnBothStay() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture, tags: ["A1"])
            try editApart(fixture, a, b, id, first: WordEdit(addTags: ["hogar"]), then: WordEdit(addTags: ["vivienda"]))
            try expectTags(["A1", "hogar", "vivienda"], of: id, on: [a, b])
            #expect(try a.stored(id).tagClock == b.stored(id).tagClock)
            #expect(try a.stored(id).times == b.stored(id).times)
            #expect(try a.stored(id).times.tags == b.stored(id).times.tags)
        }
    }

    @Test("a tag taken off on one device stays off while another device adds a tag")
    func removalAndAdditionBothKept() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture, tags: ["verbo", "A1"])
            a.clock.advance(by: 1_000)
            try a.library.edit(id, WordEdit(removeTags: ["verbo"]))
            b.clock.advance(by: 2_000)
            try b.library.edit(id, WordEdit(addTags: ["casa"]))
            // The device with the newer list syncs first: its list names "verbo" still.
            try b.sync()
            try a.sync()
            try b.sync()

            try expectTags(["A1", "casa"], of: id, on: [a, b])
        }
    }

    @Test("of a tag taken off on one device and put back on another, the later change wins")
    func laterChangeOfOneTagWins() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture, tags: ["verbo"])
            let other = try a.library.add(WordContent(term: "perro", tags: ["animal"])).word.id
            try fixture.syncRounds([a, b])
            // casa: taken off on a (at +1 s), then on b taken off (+1.5 s) and put back (+2.5 s).
            // perro: on b taken off (+3 s) and put back (+3.5 s), on a taken off later (+5 s).
            let steps: [(TestDevice, Int64, WordID, WordEdit)] = [
                (a, 1_000, id, WordEdit(removeTags: ["verbo"])), (b, 1_500, id, WordEdit(removeTags: ["verbo"])),
                (b, 1_000, id, WordEdit(addTags: ["verbo"])), (b, 500, other, WordEdit(removeTags: ["animal"])),
                (b, 500, other, WordEdit(addTags: ["animal"])), (a, 4_000, other, WordEdit(removeTags: ["animal"])),
            ]
            for (device, wait, word, edit) in steps {
                device.clock.advance(by: wait)
                try device.library.edit(word, edit)
            }
            try fixture.syncRounds([a, b])

            for device in [a, b] {
                #expect(try device.word(id).tags == ["verbo"], "\(device.name): put back last")
                #expect(try device.word(other).tags == [], "\(device.name): taken off last")
            }
        }
    }

    @Test("the same tag added on two devices is one tag, in the form written last")
    func sameTagOnBothIsOne() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture)
            try editApart(fixture, a, b, id, first: WordEdit(addTags: ["verbo"]), then: WordEdit(addTags: ["Verbo"]))
            try expectTags(["Verbo"], of: id, on: [a, b])
            for device in [a, b] {
                #expect(try device.library.tags().map(\.tag) == ["Verbo"], "\(device.name)")
            }
        }
    }

    @Test("three devices that add a tag each end with one list in one order, whatever order they sync in")
    func oneOrderOnEveryDevice() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture, tags: ["uno"])
            let c = try fixture.device("c")
            try fixture.syncRounds([c])
            for (device, tag) in [(c, "tres"), (a, "dos"), (b, "cuatro")] {
                device.clock.advance(by: 700)
                try device.library.edit(id, WordEdit(addTags: [tag]))
            }
            try c.sync()
            try b.sync()
            try a.sync()
            try c.sync()
            try fixture.syncRounds([b, a, c])

            let expected = try a.word(id).tags
            #expect(Set(expected) == ["uno", "dos", "tres", "cuatro"])
            for device in [b, c] {
                #expect(try device.word(id).tags == expected, "\(device.name)")
                #expect(try device.stored(id).tagClock == a.stored(id).tagClock, "\(device.name)")
            }
        }
    }

    @Test("a list written in a new order reads in that order, here and on the other device")
    func aNewOrderIsKept() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture, tags: ["uno", "dos"])
            a.clock.advance(by: 1_000)
            try a.library.edit(id, WordEdit(tags: ["tres", "dos", "uno"]))
            #expect(try a.word(id).tags == ["tres", "dos", "uno"])
            try fixture.syncRounds([a, b])
            #expect(try b.word(id).tags == ["tres", "dos", "uno"])
        }
    }

    @Test("a tag's case changed on one device brings back no tag taken off on another")
    func aCaseChangeBringsNothingBack() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture, tags: ["verb", "spanish"])
            try editApart(
                fixture, a, b, id, first: WordEdit(removeTags: ["spanish"]), then: WordEdit(addTags: ["Verb"], removeTags: ["verb"]))
            try expectTags(["Verb"], of: id, on: [a, b])
        }
    }

    @Test("a list reordered on one device brings back no tag taken off on another")
    func aReorderBringsNothingBack() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture, tags: ["verb", "spanish", "food"])
            try editApart(
                fixture, a, b, id, first: WordEdit(removeTags: ["spanish"]), then: WordEdit(tags: ["food", "verb", "spanish"]))
            try expectTags(["food", "verb"], of: id, on: [a, b])
        }
    }

    @Test("a tag's case changed on one device stays changed when another device adds a tag later")
    func aCaseChangeSurvivesAnotherEdit() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture, tags: ["verb", "spanish"])
            try editApart(fixture, a, b, id, first: WordEdit(tags: ["Verb"]), then: WordEdit(addTags: ["food"]))
            try expectTags(["Verb", "food"], of: id, on: [a, b])
        }
    }

    /// Makes `device`'s word look as an older MiDiccio left it: its list written whole at
    /// its tags time (no clock), as every word is right after the update.
    private func writtenByAnOlderVersion(_ device: TestDevice, _ id: WordID) throws {
        try device.library.database.run("UPDATE words SET tag_clock = NULL WHERE id = ?", [.text(id.rawValue)])
    }

    @Test("after an update, a tag an older version took off stays off on every device, and they agree")
    func anOlderVersionsRemovalStaysOff() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture, tags: ["spanish", "verb"])
            try writtenByAnOlderVersion(a, id)
            try writtenByAnOlderVersion(b, id)
            // b, still on the older version and offline, takes "spanish" off.
            b.clock.advance(by: 2_000)
            try b.library.edit(id, WordEdit(removeTags: ["spanish"]))
            try writtenByAnOlderVersion(b, id)
            try fixture.syncRounds([a, b, a, b])
            try expectTags(["verb"], of: id, on: [a, b])
            let clocks = (try a.stored(id).tagClock, try b.stored(id).tagClock)
            #expect(clocks.0 == clocks.1, "\(clocks.0) against \(clocks.1)")
            // A tag added later, here or there, still merges one tag at a time.
            try editApart(fixture, a, b, id, first: WordEdit(addTags: ["uno"]), then: WordEdit(addTags: ["dos"]))
            try expectTags(["verb", "uno", "dos"], of: id, on: [a, b])
        }
    }

    /// A word tagged "spanish, verb" on `a` and `b`; `a`, updated, adds "fromA" (or makes
    /// `onA`) and syncs; then `b`, on the older version and not synced, writes its list
    /// with `edit`.
    private func olderListAfterAnAdd(
        _ fixture: SyncFixture, _ edit: WordEdit, onA: WordEdit = WordEdit(addTags: ["fromA"])
    ) throws -> (TestDevice, TestDevice, WordID) {
        let (a, b, id) = try twoDevicesSharing(fixture, tags: ["spanish", "verb"])
        try writtenByAnOlderVersion(b, id)
        a.clock.advance(by: 1_000)
        try a.library.edit(id, onA)
        try a.sync()
        b.clock.advance(by: 3_000)
        try b.library.edit(id, edit)
        try writtenByAnOlderVersion(b, id)
        return (a, b, id)
    }

    @Test("after an update, a list an older version wrote whole takes off, everywhere, the tags it left out from before it")
    func anOlderVersionsListIsWholeEverywhere() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try olderListAfterAnAdd(fixture, WordEdit(removeTags: ["spanish"]))
            try fixture.syncRounds([b, a])
            let tags = try a.word(id).tags
            #expect(tags == ["verb"], "the older version's list, written last, wins whole, as it did before the update")
            #expect(try b.word(id).tags == tags)
        }
    }

    @Test("after an update, a list an older version wrote while it could not pull keeps the tags added elsewhere since its last sync")
    func anOlderVersionsUnsentListKeepsWhatItNeverSaw() throws {
        try withSyncFixture { fixture in
            // a adds "fromA" and takes "verb" off; b cannot pull that (the cloud's newer format
            // refuses it), and writes its list: "spanish" off, "fromB" on, "verb" as it was.
            let (a, b, id) = try olderListAfterAnAdd(
                fixture, WordEdit(tags: ["verb", "fromB"]), onA: WordEdit(tags: ["spanish", "fromA"]))
            // b is updated: the migration runs as b opens the library.
            try b.library.database.run("DELETE FROM schema_migrations WHERE name = '2026-12-old-lists-floor-at-last-pull'")
            try b.restart()
            try fixture.syncRounds([b, a])
            for device in [a, b] {
                #expect(Set(try device.word(id).tags) == ["fromA", "fromB"], "\(device.name)")
            }
            #expect(try a.word(id).tags == b.word(id).tags)
            #expect(try a.stored(id).tagClock == b.stored(id).tagClock)
        }
    }

    @Test("a word whose tags were all written at once stores an empty clock, and one with a tag taken off a mark for it")
    func theCommonCaseStoresNothing() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture, tags: ["uno", "dos"])
            func column(_ device: TestDevice) throws -> String? {
                try device.library.database.text("SELECT tag_clock FROM words WHERE id = ?", [.text(id.rawValue)])
            }
            #expect(try column(a) == "")
            #expect(try column(b) == "", "pulled as it was written")
            a.clock.advance(by: 1_000)
            try a.library.edit(id, WordEdit(removeTags: ["uno"]))
            #expect(try column(a).map(\.isEmpty) == false, "the tag taken off is remembered")
            try fixture.syncRounds([a, b])
            #expect(try b.stored(id).tagClock == a.stored(id).tagClock)
            #expect(try b.stored(id).tagClock.marks["uno"]?.isPresent == false)
        }
    }

    @Test("a word's tag clock goes through a change file unchanged")
    func clockTravelsInTheFormat() throws {
        let time = Timestamp(milliseconds: 1_764_000_000_000)
        let clock = TagClock(
            floor: time,
            marks: [
                "uno": .init(time: time, isPresent: true, orderTime: time.next, position: 0, form: "uno"),
                "dos": .init(time: time.next, isPresent: false, orderTime: time, position: 1, form: "Dos"),
                "tres": .init(time: time.next.next, isPresent: true, orderTime: time.next.next, position: 3, form: "tres"),
            ])
        let word = Word(id: WordID.random(), term: "casa", tags: ["uno", "tres"], createdAt: time, updatedAt: time.next.next)
        var times = FieldTimes(all: time)
        times.tags = time.next.next
        let record = SyncRecord(word: word, times: times, writers: Array(repeating: "dev", count: 7), tagClock: clock)
        let plain = SyncRecord(word: word, times: times, writers: Array(repeating: "dev", count: 7))
        let batch = SyncBatch(kind: .changes, device: "dev", seq: 1, records: [record, plain])
        let read = try BatchCodec.decode(BatchCodec.encode(batch))
        #expect(read.records == [record, plain])
    }

    @Test("a device of format 4 refuses the cloud, and a change file of format 5, and writes nothing")
    func anOlderDeviceRefuses() throws {
        try withSyncFixture { fixture in
            let (a, older, id) = try twoDevicesSharing(fixture, tags: ["uno"])
            a.clock.advance(by: 1_000)
            try a.library.edit(id, WordEdit(removeTags: ["uno"]))
            try a.sync()
            older.engine.formatVersion = 4
            try older.library.edit(id, WordEdit(addTags: ["dos"]))
            let before = fixture.storage.files
            #expect(throws: SyncError.self) { try older.sync() }
            #expect(fixture.storage.files == before, "the older device wrote nothing")
            #expect(try older.pendingCount() == 1, "and kept its edit")
            let change = try #require(before.first { a.owns($0.key) && $0.key.hasSuffix(".chg") }?.value)
            #expect(throws: BatchDecodeError.self) { try BatchCodec.decode(change, formatVersion: 4) }
        }
    }

    @Test("a list from a change file of format 4 still replaces the whole list, as it did there")
    func anOlderFormatReplacesTheList() throws {
        let start = Timestamp(milliseconds: 1_764_000_000_000)
        let later = Timestamp(milliseconds: start.milliseconds + 5_000)
        let id = WordID.random()
        func record(_ tags: [String], at time: Timestamp, by writer: String, clock: TagClock) -> SyncRecord {
            var times = FieldTimes(all: start)
            times.tags = time
            let word = Word(id: id, term: "casa", tags: tags, createdAt: start, updatedAt: time)
            return SyncRecord(word: word, times: times, writers: Array(repeating: writer, count: 7), tagClock: clock)
        }
        let local = record(["uno", "dos"], at: start, by: "a", clock: .implied)
        let older = record(["dos", "tres"], at: later, by: "b", clock: .writtenWhole(at: later))
        let merged = MergeRules.merge(local: local, incoming: older).record
        #expect(merged.word.tags == ["dos", "tres"], "uno was taken off by the newer list")
        #expect(merged.times.tags == later)
        // The same list from a device of format 5, which never knew "uno": nothing taken off.
        let newer = record(["dos", "tres"], at: later, by: "b", clock: .implied)
        #expect(MergeRules.merge(local: local, incoming: newer).record.word.tags == ["uno", "dos", "tres"])
        // Into a library without the word, the older list stays a list written whole.
        #expect(MergeRules.merge(local: nil, incoming: older).record.tagClock == .writtenWhole(at: later))
    }
}
