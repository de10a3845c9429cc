import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a sync that would move more than half of a library of at least 20 words to the
/// Trash in one go stops and asks (`sync --allow-mass-delete`).
@Suite("A sync that would move most of a library to the Trash stops and asks")
struct MassDeleteGuardTests {
    /// Devices a and b sharing `count` words, synced and quiet.
    private func sharedLibrary(_ fixture: SyncFixture, words count: Int) throws -> (TestDevice, TestDevice, [WordID]) {
        let a = try fixture.device("a"), b = try fixture.device("b")
        var ids: [WordID] = []
        for index in 0..<count { ids.append(try a.add("palabra \(index)")) }
        try fixture.syncRounds([a, b])
        #expect(try b.library.counts().words == count)
        return (a, b, ids)
    }

    @Test("another device deleting 15 of 25 words stops the sync here and changes nothing")
    func massDeletionStops() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 25)
            try b.library.delete(Array(ids.prefix(15)))
            try b.sync()
            let local = ids[20]
            try a.library.edit(local, WordEdit(notes: "a pending edit of a's own"))
            let before = try a.everyStoredWord()
            let cloudBefore = fixture.storage.files

            fixture.advanceClocks(by: 1_000)
            let error = #expect(throws: SyncError.self) { try a.sync() }
            #expect(error?.massDeletionCounts?.count == 15)
            #expect(error?.massDeletionCounts?.of == 25)
            #expect(error.map { "\($0)" }?.contains("--allow-mass-delete") == true)
            // Which device did it, so that one's own undone import is told from an accident.
            #expect(
                error.map { "\($0)" }?.contains("move 15 of your 25 words to the Trash, as b did;") == true, "\(String(describing: error))")
            #expect(try a.everyStoredWord() == before, "nothing changed on a")
            #expect(try a.stored(local).pending, "a's own change is still waiting")
            #expect(fixture.storage.files == cloudBefore, "nothing uploaded")

            // Asking again without permission stops again: nothing was half applied.
            #expect(throws: SyncError.self) { try a.sync() }
            #expect(try a.everyStoredWord() == before)
        }
    }

    @Test("allowing the mass deletion applies it")
    func allowedMassDeletionGoesThrough() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 25)
            try b.library.delete(Array(ids.prefix(15)))
            try b.sync()
            #expect(throws: SyncError.self) { try a.sync() }
            let report = try a.sync(allowMassDelete: true)
            #expect(report.pulled == 15)
            #expect(try a.library.counts() == (words: 10, trash: 15))
            #expect(try a.everyWord() == b.everyWord())
        }
    }

    @Test("exactly 20 words with 11 moving to the Trash trips the guard")
    func twentyWordsElevenDeleted() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 20)
            try b.library.delete(Array(ids.prefix(11)))
            try b.sync()
            let error = #expect(throws: SyncError.self) { try a.sync() }
            #expect(error?.massDeletionCounts?.count == 11)
            #expect(error?.massDeletionCounts?.of == 20)
        }
    }

    @Test("another device purging 30 of 40 words stops the sync here and asks, like moving them to the Trash")
    func massPurgeStops() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 40)
            try b.library.delete(Array(ids.prefix(30)))
            try b.library.purge(Array(ids.prefix(30)))
            try b.sync()
            let before = try a.everyStoredWord()
            fixture.advanceClocks(by: 1_000)
            let error = #expect(throws: SyncError.self) { try a.sync() }
            #expect(error?.massDeletionCounts?.count == 30)
            #expect(error?.massDeletionCounts?.of == 40)
            // Said as what it is: gone for good, with the way to keep them first.
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("b deleted them permanently"), "it names the device: \(message)")
            #expect(message.contains("midiccio backup export") && !message.contains("to the Trash"), "\(message)")
            #expect(try a.everyStoredWord() == before, "nothing was purged here")
            try a.sync(allowMassDelete: true)
            #expect(try a.library.counts() == (words: 10, trash: 0))
        }
    }

    @Test("purges of words that were already in the Trash here do not trip the guard")
    func purgingTheTrashIsNotGuarded() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 25)
            try b.library.delete(Array(ids.prefix(5)))
            try fixture.syncRounds([b, a])
            try a.library.delete(Array(ids.dropFirst(5).prefix(15)))
            try fixture.syncRounds([a, b], 1, allowMassDelete: true)
            #expect(try b.library.counts() == (words: 5, trash: 20))
            try b.library.emptyTrash()
            try b.sync()
            try a.sync()
            #expect(try a.library.counts() == (words: 5, trash: 0))
        }
    }

    @Test("another device deleting 5 of 25 words goes through without asking")
    func smallDeletionGoesThrough() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 25)
            try b.library.delete(Array(ids.prefix(5)))
            try b.sync()
            try a.sync()
            #expect(try a.library.counts() == (words: 20, trash: 5))
        }
    }

    @Test("exactly half of the library going to the Trash goes through; one more than half stops", arguments: [(12, false), (13, true)])
    func halfIsTheLimit(deleted: Int, stops: Bool) throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 24)
            try b.library.delete(Array(ids.prefix(deleted)))
            try b.sync()
            if stops {
                #expect(throws: SyncError.self) { try a.sync() }
            } else {
                try a.sync()
                #expect(try a.library.counts().trash == deleted)
            }
        }
    }

    @Test("words another device deleted and then restored again are not a mass deletion")
    func deletedAndRestoredIsNotMassDeletion() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 25)
            // A mistake on b, undone at once; b syncs after each step, a is offline.
            try b.library.delete(Array(ids.prefix(15)))
            try b.sync()
            fixture.advanceClocks(by: 1_000)
            try b.library.restore(Array(ids.prefix(15)))
            try b.sync()

            fixture.advanceClocks(by: 1_000)
            do {
                try a.sync()
            } catch {
                Issue.record("nothing ends up in the Trash, yet the sync stopped: \(error)")
            }
            try a.sync(allowMassDelete: true)
            #expect(try a.library.counts() == (words: 25, trash: 0))
        }
    }

    @Test("a library of fewer than 20 words is never guarded, even when every word goes to the Trash")
    func smallLibraryNeverGuarded() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 19)
            try b.library.delete(ids)
            try b.sync()
            try a.sync()
            #expect(try a.library.counts() == (words: 0, trash: 19))
        }
    }

    @Test("deleting most of the library on this device is not stopped: the user did it here")
    func localDeletionNotGuarded() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 25)
            try a.library.delete(ids)
            let report = try a.sync()
            #expect(report.pushed == 25)
            try b.sync(allowMassDelete: true)
            #expect(try b.library.counts() == (words: 0, trash: 25))
        }
    }

    @Test("words taken out by several devices name them all, the one that took most first")
    func severalDevicesNamed() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 30)
            let c = try fixture.device("c")
            try fixture.syncRounds([a, b, c])
            try b.library.delete(Array(ids.prefix(6)))
            try c.library.delete(Array(ids[6..<16]))
            try b.sync()
            try c.sync()
            fixture.advanceClocks(by: 1_000)
            let error = #expect(throws: SyncError.self) { try a.sync() }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("move 16 of your 30 words to the Trash, as c and b did;"), "\(message)")
        }
    }

    @Test("a purge on one device and a move to the Trash on another are told apart, the move named with who did it")
    func purgeAndTrashNamedApart() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try sharedLibrary(fixture, words: 30)
            let c = try fixture.device("c")
            try fixture.syncRounds([a, b, c])
            try b.library.delete([ids[0]])
            try b.library.purge([ids[0]])
            try c.library.delete(Array(ids[1..<20]))
            try b.sync()
            try c.sync()
            fixture.advanceClocks(by: 1_000)
            let error = #expect(throws: SyncError.self) { try a.sync() }
            let message = error.map { "\($0)" } ?? ""
            #expect(
                message.contains("1 deleted permanently on another device (and so here too), and 19 moved to the Trash (by c);"),
                "\(message)")
        }
    }
}
