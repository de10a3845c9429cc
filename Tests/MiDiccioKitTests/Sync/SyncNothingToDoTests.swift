import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a sync with nothing pending uploads nothing, and costs what changed, not what
/// exists: the manifest, the device list and each other device's small record.
@Suite("A sync with nothing to do uploads nothing and reads only a few small files")
struct SyncNothingToDoTests {
    /// `count` devices sharing some words, synced until quiet.
    private func quietDevices(_ fixture: SyncFixture, count: Int) throws -> [TestDevice] {
        let devices = try (0..<count).map { try fixture.device("d\($0)") }
        for (index, device) in devices.enumerated() {
            for word in 0..<5 { try device.add("d\(index) palabra \(word)") }
        }
        try fixture.syncRounds(devices, 3)
        return devices
    }

    // Every sync reads this device's own record too: a record it did not write is how a
    // library finds out that it is a copy of another (issue "Never lose a word").
    @Test(
        "a sync with nothing pending uploads nothing and reads at most the manifest, the device list and one record per device",
        arguments: [2, 3, 5])
    func nothingToDo(deviceCount: Int) throws {
        let others = deviceCount - 1
        let (report, counts, requests) = try withSyncFixture { fixture in
            let devices = try quietDevices(fixture, count: deviceCount)
            let device = devices[0]
            fixture.advanceClocks(by: 60_000)
            fixture.storage.resetCounts()
            device.cloud.resetRequests()
            let report = try device.sync()
            return (report, fixture.storage.requestCounts, device.cloud.requests)
        }
        #expect(report.pushed == 0)
        #expect(report.pulled == 0)
        #expect(report.filesWritten == 0)
        #expect(counts["write", default: 0] == 0)
        #expect(counts["delete", default: 0] == 0)
        let lookups = counts["list", default: 0] + counts["read", default: 0]
        #expect(lookups <= 2 + others + 1, "\(lookups) list + read requests with \(others) other devices: \(requests)")
    }

    @Test("a device that has never uploaded anything also syncs with nothing to do cheaply")
    func readOnlyDevice() throws {
        try withSyncFixture { fixture in
            let writer = try fixture.device("writer"), reader = try fixture.device("reader")
            try writer.add("uno")
            try fixture.syncRounds([writer, reader], 3)
            fixture.storage.resetCounts()
            reader.cloud.resetRequests()
            try reader.sync()
            let counts = fixture.storage.requestCounts
            #expect(counts["write", default: 0] == 0)
            #expect(counts["list", default: 0] + counts["read", default: 0] <= 4, "\(reader.cloud.requests)")
        }
    }

    @Test("one changed word costs one change file and one record to push, and one change file to pull")
    func oneChangedWord() throws {
        try withSyncFixture { fixture in
            let devices = try quietDevices(fixture, count: 2)
            let (a, b) = (devices[0], devices[1])
            let id = try a.everyWord()[0].id
            try a.library.edit(id, WordEdit(meaning: "one change"))

            fixture.storage.resetCounts()
            a.cloud.resetRequests()
            let push = try a.sync()
            let pushCounts = fixture.storage.requestCounts
            #expect(push.pushed == 1)
            #expect(pushCounts["write", default: 0] == 2, "the change file and the device record: \(a.cloud.requests)")
            // One more: an upload first lists this device's own change files.
            #expect(pushCounts["list", default: 0] + pushCounts["read", default: 0] <= 5, "\(a.cloud.requests)")
            #expect(push.bytesWritten < 2_048)

            fixture.storage.resetCounts()
            b.cloud.resetRequests()
            let pull = try b.sync()
            let pullCounts = fixture.storage.requestCounts
            #expect(pull.pulled == 1)
            #expect(try b.word(id).meaning == "one change")
            #expect(b.cloud.requests("read", under: "changes/").count == 1)
            #expect(pullCounts["list", default: 0] + pullCounts["read", default: 0] <= 5, "\(b.cloud.requests)")
            #expect(pullCounts["write", default: 0] <= 1, "at most b's record, saying how far it has read")
        }
    }
}
