import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Finding 6: a failed sync says exactly what it kept, and a full disk at any write, in
/// the cloud or under the library, loses no word.
@Suite("A sync that fails says what it kept, and a full disk loses nothing")
struct FailedSyncMessageTests {
    @Test("a full cloud disk during the upload says the other devices' words were saved here and this device's changes wait")
    func fullCloudDuringUpload() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try fixture.syncRounds([a, b])
            let fromB = try b.add("de b")
            try b.sync()
            let mine = try a.add("de a")
            fixture.storage.faults.spaceLeft = 0
            fixture.advanceClocks(by: 1_000)
            let error = try #require(throws: SyncError.self) { try a.sync() }
            let text = "\(error)"
            #expect(!text.contains("nothing was changed"), "\(text)")
            #expect(text.contains("No space left on device"), "\(text)")
            #expect(text.contains("1 word changed on other devices was saved here"), "\(text)")
            #expect(text.contains("1 word changed here waits to be uploaded"), "\(text)")
            guard case .stopped(_, let kept) = error else {
                Issue.record("expected a stopped sync, got \(error)")
                return
            }
            #expect(kept.pulled == 1 && kept.pending == 1 && kept.pushed == nil)
            #expect(try a.has(fromB), "what the message says was saved, was saved")
            #expect(try a.stored(mine).pending, "what it says waits, waits")

            fixture.storage.faults.spaceLeft = nil
            try fixture.syncRounds([a, b])
            #expect(try b.has(mine))
            #expect(try a.everyWord() == b.everyWord())
        }
    }

    @Test("status tells the last sync's failure, what it said, until a sync finishes (round 24B #3)")
    func statusTellsTheLastFailure() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try fixture.syncRounds([a, b])
            #expect(try a.engine.status().lastFailure == nil)
            try a.add("de a")
            fixture.storage.faults.spaceLeft = 0
            fixture.advanceClocks(by: 1_000)
            let error = try #require(throws: SyncError.self) { try a.sync() }
            let failure = try #require(try a.engine.status().lastFailure)
            #expect(failure.message == "\(error)")
            #expect(failure.at == a.clock.now())
            fixture.storage.faults.spaceLeft = nil
            fixture.advanceClocks(by: 1_000)
            try a.sync()
            #expect(try a.engine.status().lastFailure == nil, "a sync that finished clears it")
        }
    }

    @Test("a sync that uploaded only a purge before it stopped says so, not an empty list")
    func uploadOfNoWord() {
        var kept = SyncKept()
        kept.pushed = 0
        let text = SyncError.stopped(cause: CloudError.unavailable("full"), kept: kept).description
        #expect(text.contains("Kept: what was changed here (no word among it) was uploaded"), "\(text)")
        #expect(!text.contains("Kept: ."), "\(text)")
    }

    @Test("a sync that fails before saving anything says nothing was changed here")
    func failureBeforeAnythingSaved() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            try a.add("uno")
            fixture.storage.faults.unreachable = true
            let error = try #require(throws: SyncError.self) { try a.sync() }
            #expect("\(error)".contains("nothing was changed here"), "\(error)")
        }
    }

    @Test("a full cloud disk at every write of a sync in turn loses no word, and the next syncs converge", arguments: 0..<8)
    func fullCloudAtEveryWrite(writesLeft: Int) throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            a.tune = { $0.snapshotInterval = 2 }
            try fixture.syncRounds([a, b])
            var ids: [WordID] = []
            for round in 0..<3 {
                ids.append(try a.add("a \(round)"))
                ids.append(try b.add("b \(round)"))
                try b.sync()
                fixture.storage.faults.failWritesAfter = writesLeft
                fixture.advanceClocks(by: 1_000)
                _ = try? a.sync()
                fixture.storage.faults.failWritesAfter = nil
            }
            try fixture.syncRounds([a, b], 2)
            for id in ids { #expect(try a.has(id) && b.has(id)) }
            #expect(try a.everyWord() == b.everyWord())
            #expect(try a.pendingCount() == 0)
        }
    }

    @Test("a full disk under the library during a sync changes nothing here, loses no word, and says so")
    func fullLibraryDisk() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try fixture.syncRounds([a, b])
            for index in 0..<30 { try b.add("palabra \(index)", meaning: String(repeating: "texto largo ", count: 40)) }
            try b.sync()
            let mine = try a.add("mía")
            let before = try a.everyStoredWord()
            let pages = try a.library.guarded { try a.library.database.integer("PRAGMA page_count") ?? 1 }
            try a.library.guarded { try a.library.database.execute("PRAGMA max_page_count = \(pages)") }
            fixture.advanceClocks(by: 1_000)
            let error = try #require(throws: (any Error).self) { try a.sync() }
            #expect("\(error)".contains("full"), "\(error)")
            #expect(try a.everyStoredWord() == before, "the merge was rolled back whole")
            try a.library.guarded { try a.library.database.execute("PRAGMA max_page_count = 2147483646") }
            try fixture.syncRounds([a, b])
            #expect(try b.has(mine))
            #expect(try a.everyWord() == b.everyWord())
        }
    }
}
