import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: merge per field, last writer wins per field. Each field carries the time of its
/// last change; the newer value wins; equal time and equal value is already in sync;
/// equal time and different values is decided by the writing device's id, the same way
/// on every device. `updatedAt` is the newest field time; deletion is a field too.
@Suite("Sync merges a word field by field, the last writer winning each field")
struct MergePerFieldTests {
    /// Two devices that both hold the word "casa", synced and quiet.
    private func twoDevicesSharing(_ fixture: SyncFixture) throws -> (TestDevice, TestDevice, WordID) {
        let a = try fixture.device("a"), b = try fixture.device("b")
        let id = try a.add("casa", meaning: "house")
        try fixture.syncRounds([a, b])
        #expect(try b.word(id).meaning == "house")
        return (a, b, id)
    }

    @Test("edits to different fields of one word on two devices both survive")
    func differentFieldsBothSurvive() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture)
            a.clock.advance(by: 1_000)
            try a.library.edit(id, WordEdit(meaning: "home"))
            b.clock.advance(by: 2_000)
            try b.library.edit(id, WordEdit(notes: "la casa de mi madre", addTags: ["hogar"]))
            try fixture.syncRounds([a, b])

            for device in [a, b] {
                let word = try device.word(id)
                #expect(word.meaning == "home", "\(device.name)")
                #expect(word.notes == "la casa de mi madre", "\(device.name)")
                #expect(word.tags == ["hogar"], "\(device.name)")
            }
            #expect(try a.stored(id).times == b.stored(id).times)
            #expect(try a.word(id) == b.word(id))
        }
    }

    @Test("when both devices change the same field, the newer value wins on both")
    func newerValueWins() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture)
            // B edits later, but A syncs last: the newer edit must still win.
            b.clock.advance(by: 5_000)
            try b.library.edit(id, WordEdit(meaning: "home (newer)"))
            a.clock.advance(by: 1_000)
            try a.library.edit(id, WordEdit(meaning: "house (older)"))
            try b.sync()
            try a.sync()
            try b.sync()

            #expect(try a.word(id).meaning == "home (newer)")
            #expect(try b.word(id).meaning == "home (newer)")
            #expect(try a.word(id) == b.word(id))
        }
    }

    @Test("an edit at exactly the same time on two devices is decided the same way on both, by the larger device id")
    func equalTimeTieBreak() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture)
            let same = Timestamp(milliseconds: SyncFixture.start.milliseconds + 60_000)
            a.clock.set(same)
            b.clock.set(same)
            try a.library.edit(id, WordEdit(meaning: "written on a"))
            try b.library.edit(id, WordEdit(meaning: "written on b"))
            #expect(try a.stored(id).times.meaning == same)
            #expect(try b.stored(id).times.meaning == same)

            try a.sync()
            try b.sync()
            try a.sync()
            try b.sync()

            let expected = a.id > b.id ? "written on a" : "written on b"
            #expect(try a.word(id).meaning == expected)
            #expect(try b.word(id).meaning == expected)
            #expect(try a.word(id) == b.word(id))
            // The conflict was decided, not bumped: the time is still the edit time.
            #expect(try a.stored(id).times.meaning == same)
            #expect(try b.stored(id).times.meaning == same)
            #expect(try a.pendingCount() == 0 && b.pendingCount() == 0)
        }
    }

    @Test("the same tie decided the other way round gives the same winner")
    func tieBreakDoesNotDependOnSyncOrder() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture)
            let same = Timestamp(milliseconds: SyncFixture.start.milliseconds + 60_000)
            a.clock.set(same)
            b.clock.set(same)
            try a.library.edit(id, WordEdit(notes: "notes from a"))
            try b.library.edit(id, WordEdit(notes: "notes from b"))
            // B uploads first this time.
            try b.sync()
            try a.sync()
            try b.sync()
            try a.sync()

            let expected = a.id > b.id ? "notes from a" : "notes from b"
            #expect(try a.word(id).notes == expected)
            #expect(try b.word(id).notes == expected)
        }
    }

    @Test("a word's updated time is the newest of its field times after a merge")
    func updatedAtIsNewestFieldTime() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture)
            a.clock.advance(by: 3_000)
            let meaningEdit = try a.library.edit(id, WordEdit(meaning: "home")).updatedAt
            b.clock.advance(by: 7_000)
            let notesEdit = try b.library.edit(id, WordEdit(notes: "n")).updatedAt
            #expect(notesEdit > meaningEdit)
            try fixture.syncRounds([a, b])

            for device in [a, b] {
                let stored = try device.stored(id)
                #expect(stored.times.meaning == meaningEdit, "\(device.name)")
                #expect(stored.times.notes == notesEdit, "\(device.name)")
                #expect(stored.word.updatedAt == stored.times.newest, "\(device.name)")
                #expect(stored.word.updatedAt == notesEdit, "\(device.name)")
            }
        }
    }

    @Test("a word deleted on one device and edited later on another stays deleted and keeps the later edit")
    func deletionMergesLikeAField() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture)
            a.clock.advance(by: 1_000)
            try a.library.delete([id])
            b.clock.advance(by: 5_000)
            try b.library.edit(id, WordEdit(meaning: "home, edited after the delete"))
            try a.sync()
            try b.sync()
            try a.sync()

            for device in [a, b] {
                let word = try device.word(id)
                #expect(word.isDeleted, "\(device.name)")
                #expect(word.meaning == "home, edited after the delete", "\(device.name)")
                #expect(try device.library.trash().map(\.id) == [id], "\(device.name)")
                #expect(try device.library.list().isEmpty, "\(device.name)")
            }
            #expect(try a.word(id) == b.word(id))
        }
    }

    @Test("a word already in sync is left alone: no new time and nothing uploaded")
    func equalTimeEqualValueChangesNothing() throws {
        try withSyncFixture { fixture in
            let (a, b, id) = try twoDevicesSharing(fixture)
            let before = try b.stored(id)
            // A re-uploads the very same word (as after a full upload): same times, same values.
            try a.library.writing { try a.library.setInfo("sync.fullUpload", "1") }
            try fixture.syncRounds([a, b])

            let after = try b.stored(id)
            #expect(after.word == before.word)
            #expect(after.times == before.times)
            #expect(after.pending == false)
            fixture.advanceClocks(by: 1_000)
            #expect(try b.sync().pushed == 0)
        }
    }
}
