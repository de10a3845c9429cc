import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// An iCloud sync costs requests for what changed (issue 17, "The storage model"):
/// `changes/zone` tells a sync with nothing to do in one request, and brings the small
/// files' bytes with it, so pulling one word costs no download.
@Suite("An iCloud sync costs requests for what changed, not for what exists", .enabled(if: ICloudTests.shouldRun, ICloudTests.skipReason))
struct ICloudRequestCountTests {
    @Test("a sync with nothing to do costs one request, counted by the server too")
    func nothingToDo() throws {
        try withICloud("noop") { cloud in
            let a = try cloud.device("a"), b = try cloud.device("b")
            for index in 0..<30 { _ = try a.add("palabra \(index)", meaning: "word \(index)") }
            try cloud.syncRounds([a, b])
            try cloud.tenant.resetStats()
            cloud.storage("a").resetCounts()
            try a.sync()
            #expect(cloud.storage("a").requestCount == 1, "\(cloud.storage("a").requestCounts)")
            #expect(try cloud.tenant.stats().values.reduce(0, +) == 1)
        }
    }

    @Test("a sync with nothing to do in a new process costs one request: the index is kept in the library")
    func nothingToDoAfterRestart() throws {
        try withTemporaryDirectory { directory in
            let tenant = try ICloudTests.tenant("noop-restart")
            let credentials = try ICloudTests.credentials(tenant)
            let library = directory.appendingPathComponent("a.sqlite").path
            let first = try TestDevice(
                name: "a", path: library, storage: ICloudTests.storage(tenant, credentials: credentials),
                clock: ManualClock(start: CloudBackendFixture.start))
            _ = try first.add("hund", meaning: "dog")
            try first.sync()
            try first.sync()
            let again = ICloudTests.storage(tenant, credentials: credentials)
            let second = try TestDevice(name: "a", path: library, storage: again, clock: ManualClock(start: first.clock.now()))
            try tenant.resetStats()
            try second.sync()
            #expect(again.requestCount == 1, "\(again.requestCounts)")
            #expect(try tenant.stats().values.reduce(0, +) == 1)
        }
    }

    @Test("one changed word costs at most 3 requests up and 3 down")
    func oneWord() throws {
        try withICloud("one-word") { cloud in
            let a = try cloud.device("a"), b = try cloud.device("b")
            var ids: [WordID] = []
            for index in 0..<30 { ids.append(try a.add("palabra \(index)", meaning: "word \(index)")) }
            try cloud.syncRounds([a, b])
            _ = try a.library.edit(ids[3], WordEdit(meaning: "changed"))
            cloud.storage("a").resetCounts()
            try a.sync()
            let push = cloud.storage("a").requestCounts
            cloud.storage("b").resetCounts()
            try b.sync()
            let pull = cloud.storage("b").requestCounts
            #expect(try b.word(ids[3]).meaning == "changed")
            #expect(push.values.reduce(0, +) <= 3, "push \(push)")
            #expect(pull.values.reduce(0, +) <= 3, "pull \(pull)")
        }
    }

    @Test("a new device's first sync of a library costs at most 4 requests")
    func firstSync() throws {
        try withICloud("first-sync") { cloud in
            let a = try cloud.device("a")
            for index in 0..<500 { _ = try a.add("palabra \(index)", meaning: "word \(index)") }
            try a.sync()
            let b = try cloud.device("b")
            try b.sync()
            let counts = cloud.storage("b").requestCounts
            #expect(try b.library.list().count == 500)
            #expect(counts.values.reduce(0, +) <= 4, "\(counts)")
        }
    }
}
