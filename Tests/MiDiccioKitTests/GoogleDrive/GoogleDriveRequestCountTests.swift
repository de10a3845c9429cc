import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// A Google Drive sync costs requests for what changed (issue 11, "Cheap syncs"): the
/// Changes API tells a sync with nothing to do in one request, and the index kept in
/// the library names files without listing folders.
@Suite(
    "A Google Drive sync costs requests for what changed, not for what exists",
    .enabled(if: GoogleDriveTests.shouldRun, GoogleDriveTests.skipReason))
struct GoogleDriveRequestCountTests {
    @Test(
        "a sync with nothing to do costs one request, counted by the server too",
        arguments: [GoogleDriveSpace.appData, .folder("MiDiccio")])
    func nothingToDo(space: GoogleDriveSpace) throws {
        try withDrive("noop", space: space) { drive in
            let a = try drive.device("a"), b = try drive.device("b")
            for index in 0..<30 { _ = try a.add("palabra \(index)", meaning: "word \(index)") }
            try drive.syncRounds([a, b])
            try drive.tenant.resetStats()
            drive.storage("a").resetCounts()
            try a.sync()
            #expect(drive.storage("a").requestCount == 1, "\(drive.storage("a").requestCounts)")
            #expect(try drive.tenant.stats().total == 1)
        }
    }

    @Test("a sync with nothing to do in a new process costs one request: the index and the access token are kept")
    func nothingToDoAfterRestart() throws {
        try withTemporaryDirectory { directory in
            let tenant = try GoogleDriveTests.tenant("noop-restart")
            let library = directory.appendingPathComponent("a.sqlite").path
            let signIn = GoogleDriveCredentials.filePath(forLibrary: library)
            try tenant.credentials(for: .appData).save(to: signIn)
            func storage() throws -> GoogleDriveStorage {
                tenant.storage(.appData, credentials: try #require(try GoogleDriveCredentials.load(from: signIn)), path: signIn)
            }
            let first = try TestDevice(
                name: "a", path: library, storage: try storage(), clock: ManualClock(start: CloudBackendFixture.start))
            _ = try first.add("hund", meaning: "dog")
            try first.sync()
            try first.sync()
            let again = try storage()
            let second = try TestDevice(name: "a", path: library, storage: again, clock: ManualClock(start: first.clock.now()))
            try tenant.resetStats()
            try second.sync()
            let stats = try tenant.stats()
            #expect(stats.total == 1, "\(stats.byEndpoint)")
            #expect((stats.byEndpoint["oauth.token"] ?? 0) == 0)
        }
    }

    @Test("one changed word costs at most 4 requests up and 4 down")
    func oneWord() throws {
        try withDrive("one-word") { drive in
            let a = try drive.device("a"), b = try drive.device("b")
            var ids: [WordID] = []
            for index in 0..<30 { ids.append(try a.add("palabra \(index)", meaning: "word \(index)")) }
            try drive.syncRounds([a, b])
            _ = try a.library.edit(ids[3], WordEdit(meaning: "changed"))
            drive.storage("a").resetCounts()
            try a.sync()
            let push = drive.storage("a").requestCounts
            drive.storage("b").resetCounts()
            try b.sync()
            let pull = drive.storage("b").requestCounts
            #expect(try b.word(ids[3]).meaning == "changed")
            #expect(push.values.reduce(0, +) <= 4, "push \(push)")
            #expect(pull.values.reduce(0, +) <= 4, "pull \(pull)")
        }
    }

    @Test("a new device's first sync of a library costs at most 6 requests")
    func firstSync() throws {
        try withDrive("first-sync") { drive in
            let a = try drive.device("a")
            for index in 0..<500 { _ = try a.add("palabra \(index)", meaning: "word \(index)") }
            try a.sync()
            let b = try drive.device("b")
            try b.sync()
            let counts = drive.storage("b").requestCounts
            #expect(try b.library.list().count == 500)
            #expect(counts.values.reduce(0, +) <= 6, "\(counts)")
        }
    }
}
