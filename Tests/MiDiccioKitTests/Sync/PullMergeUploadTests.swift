import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a sync pulls first, merges, then uploads only pending words, then records where
/// it got to; all local effects of a sync step commit in one transaction with the data.
@Suite("A sync pulls, merges, uploads only pending words and remembers where it got to")
struct PullMergeUploadTests {
    @Test("a sync reads other devices' changes before it uploads its own")
    func pullsBeforeUploading() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("orden")
            try fixture.syncRounds([a, b])
            try b.library.edit(id, WordEdit(meaning: "from b"))
            try b.sync()
            fixture.advanceClocks(by: 1_000)
            try a.library.edit(id, WordEdit(notes: "from a"))
            a.cloud.resetRequests()
            try a.sync()

            let requests = a.cloud.requests
            let pulled = requests.firstIndex { $0.kind == "read" && $0.path.hasPrefix(CloudLayout.changesFolder(b.id)) }
            let pushed = requests.firstIndex { $0.kind == "write" && $0.path.hasPrefix(CloudLayout.changesFolder(a.id)) }
            #expect(pulled != nil && pushed != nil && pulled! < pushed!, "\(requests)")
            // What went up is the merged word.
            let pushedPath = try #require(pushed.map { requests[$0].path })
            let upload = try BatchCodec.decode(try #require(fixture.storage.files[pushedPath]))
            #expect(upload.records.map(\.word.meaning) == ["from b"])
            #expect(upload.records.map(\.word.notes) == ["from a"])
        }
    }

    @Test("only pending words are uploaded")
    func onlyPendingWordsUploaded() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            for index in 0..<10 { try a.add("palabra \(index)") }
            try a.sync()
            let edited = try a.everyWord()[3].id
            try a.library.edit(edited, WordEdit(notes: "only me"))
            a.cloud.resetRequests()
            fixture.advanceClocks(by: 1_000)
            let report = try a.sync()
            #expect(report.pushed == 1)
            let path = try #require(a.cloud.requests("write", under: CloudLayout.changesFolder(a.id)).first?.path)
            let batch = try BatchCodec.decode(try #require(fixture.storage.files[path]))
            #expect(batch.records.map(\.word.id) == [edited])
        }
    }

    @Test("a second sync does not read change files it has already read")
    func remembersWhereItGotTo() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            for index in 0..<3 {
                try a.add("palabra \(index)")
                fixture.advanceClocks(by: 1_000)
                try a.sync()
            }
            try b.sync()
            #expect(b.cloud.requests("read", under: "changes/").count == 3)
            b.cloud.resetRequests()
            fixture.advanceClocks(by: 1_000)
            try b.sync()
            #expect(b.cloud.requests("read", under: "changes/").isEmpty)
            try a.add("otra")
            try a.sync()
            b.cloud.resetRequests()
            try b.sync()
            #expect(b.cloud.requests("read", under: "changes/").map { SyncFixture.seq(of: $0.path) } == [4])
        }
    }

    @Test("a new device's first sync gets a word that was edited again in a later change file")
    func newDeviceWithWordInTwoChangeFiles() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            let id = try a.add("dos veces", meaning: "first")
            try a.sync()
            fixture.advanceClocks(by: 1_000)
            try a.library.edit(id, WordEdit(meaning: "second"))
            try a.sync()

            let newcomer = try fixture.device("new")
            do {
                try newcomer.sync()
            } catch {
                Issue.record("the new device's first sync failed: \(error)")
            }
            #expect(try newcomer.has(id) && newcomer.word(id).meaning == "second")
        }
    }

    @Test("a new device's first sync gets a word that two other devices both edited")
    func newDeviceWithWordFromTwoDevices() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("compartida")
            try fixture.syncRounds([a, b])
            try b.library.edit(id, WordEdit(notes: "from b"))
            try b.sync()

            let newcomer = try fixture.device("new")
            do {
                try newcomer.sync()
            } catch {
                Issue.record("the new device's first sync failed: \(error)")
            }
            #expect(try newcomer.has(id) && newcomer.word(id).notes == "from b")
            #expect(try newcomer.everyWord() == b.everyWord())
        }
    }

    @Test("a sync whose upload fails keeps the words pending and the next sync uploads them")
    func failedUploadKeepsPending() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try fixture.syncRounds([a, b])
            let id = try a.add("pendiente")
            fixture.storage.faults.failWritesAfter = 0
            let error = #expect(throws: SyncError.self) { try a.sync() }
            if case .cloud = error {} else { Issue.record("expected a cloud error, got \(String(describing: error))") }
            #expect(try a.stored(id).pending)

            fixture.storage.faults.failWritesAfter = nil
            let report = try a.sync()
            #expect(report.pushed == 1)
            #expect(try a.stored(id).pending == false)
            try b.sync()
            #expect(try b.has(id))
        }
    }

    @Test("a sync interrupted between writing its change file and saving that here loses nothing and reuses no number")
    func crashBetweenUploadAndCommit() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let first = try a.add("uno")
            a.cloud.crashAfterWriting = { SyncFixture.seq(of: $0) == 1 && $0.hasPrefix("changes/") }
            #expect(throws: SyncError.self) { try a.sync() }
            a.cloud.crashAfterWriting = nil
            let firstChange = try #require(fixture.path(.changes, of: a, seq: 1))
            let written = try #require(fixture.storage.files[firstChange])
            #expect(try a.stored(first).pending, "the local commit never happened")

            fixture.advanceClocks(by: 1_000)
            try a.library.edit(first, WordEdit(meaning: "edited after the crash"))
            let second = try a.add("dos")
            try a.sync()
            #expect(fixture.storage.files[firstChange] == written, "the file another device may have read is never rewritten")
            #expect(fixture.seqs(.changes, of: a) == [1, 2], "each number once: the first file counted, the next took 2")
            #expect(try a.pendingCount() == 0)

            try b.sync()
            #expect(try b.word(first).meaning == "edited after the crash")
            #expect(try b.has(second))
        }
    }

    @Test("a cloud that cannot be reached stops the sync with nothing changed here")
    func unreachableCloud() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try b.add("de b")
            try fixture.syncRounds([a, b])
            try b.add("otra de b")
            try b.sync()
            try a.add("de a")
            let before = try a.everyStoredWord()
            fixture.storage.faults.unreachable = true
            let error = #expect(throws: SyncError.self) { try a.sync() }
            if case .cloud(.unavailable) = error {} else { Issue.record("expected unavailable, got \(String(describing: error))") }
            #expect(try a.everyStoredWord() == before)
        }
    }
}

/// What a sync says it is doing, in order (sync on open tells a slow cloud from a long
/// sync with it).
@Suite("A sync tells what it is doing")
struct SyncActivityTests {
    @Test("a first sync reaches the cloud, downloads, merges every word, then tidies")
    func firstSyncActivities() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            for index in 0..<5 { try a.add("palabra \(index)") }
            try a.sync()
            let seen = ActivityLog()
            b.engine.onActivity = { seen.append($0) }
            try b.sync()
            #expect(seen.all.first == .reachingCloud)
            #expect(seen.all.contains(.downloading))
            #expect(seen.all.contains(.merging(words: 5)))
            #expect(seen.all.last == .tidying)
        }
    }
}

/// Activities collected from the syncing thread.
final class ActivityLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [SyncActivity] = []
    func append(_ activity: SyncActivity) { lock.withLock { items.append(activity) } }
    var all: [SyncActivity] { lock.withLock { items } }
}
