import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: markers are kept until every device known to the cloud has synced past them; a
/// device silent for longer than the retention period (default 180 days) must do a full
/// re-sync before it may upload again, and is told so. Other devices do not wait for it.
@Suite("A device silent past the retention period re-syncs fully, and nobody waits for it")
struct RetentionTests {
    private static let day = SyncFixture.day

    private func devices(_ fixture: SyncFixture, _ names: String...) throws -> [TestDevice] {
        let devices = try names.map { try fixture.device($0) }
        for device in devices { device.engine.snapshotInterval = 3 }
        return devices
    }

    /// Adds a word on `device` and syncs it, `count` times: `count` change files.
    private func writeChanges(_ fixture: SyncFixture, _ device: TestDevice, _ count: Int, _ label: String) throws {
        for index in 1...count {
            try device.add("\(label) \(index)")
            fixture.advanceClocks(by: 1_000)
            try device.sync()
        }
    }

    private func changeFiles(of device: TestDevice, in fixture: SyncFixture) -> [String] {
        fixture.storage.files.keys.filter { $0.hasPrefix(CloudLayout.changesFolder(device.id) + "/") }.sorted()
    }

    @Test("the default retention period is 180 days")
    func defaultRetention() throws {
        try withSyncFixture { fixture in
            let device = try fixture.device("a")
            #expect(device.engine.retention == 180 * Self.day)
        }
    }

    @Test("a device silent for more than 180 days is told it re-synced fully, and reads snapshots again")
    func silentDeviceResyncsFully() throws {
        try withSyncFixture { fixture in
            let devices = try devices(fixture, "a", "silent")
            let (a, silent) = (devices[0], devices[1])
            try writeChanges(fixture, a, 2, "antes")
            try silent.sync()
            try writeChanges(fixture, a, 7, "durante")

            fixture.advanceClocks(by: 181 * Self.day)
            silent.cloud.resetRequests()
            let report = try silent.sync()
            #expect(report.fullResync)
            #expect(!silent.cloud.requests("read", under: "snapshots/").isEmpty, "it read a's snapshot again")
            #expect(try silent.everyWord() == a.everyWord())

            fixture.advanceClocks(by: 1_000)
            #expect(try silent.sync().fullResync == false, "only once")
        }
    }

    @Test("a device silent for less than 180 days syncs as usual")
    func shortSilenceIsNormal() throws {
        try withSyncFixture { fixture in
            let devices = try devices(fixture, "a", "away")
            let (a, away) = (devices[0], devices[1])
            try writeChanges(fixture, a, 2, "antes")
            try away.sync()
            fixture.advanceClocks(by: 179 * Self.day)
            try writeChanges(fixture, a, 1, "después")
            let report = try away.sync()
            #expect(!report.fullResync)
            #expect(try away.everyWord() == a.everyWord())
        }
    }

    @Test("other devices' compaction does not wait for a device silent past the retention period, but does wait within it")
    func compactionDoesNotWaitForSilentDevice() throws {
        try withSyncFixture { fixture in
            let devices = try devices(fixture, "a", "b", "silent")
            let (a, b, silent) = (devices[0], devices[1], devices[2])
            try fixture.syncRounds(devices)
            try writeChanges(fixture, a, 6, "primera")
            try b.sync()
            fixture.advanceClocks(by: 1_000)
            try a.sync()
            #expect(changeFiles(of: a, in: fixture).count == 6, "within the period, a waits for the silent device")

            fixture.advanceClocks(by: 181 * Self.day)
            try b.add("de b")  // b is active: it syncs and uploads
            try b.sync()
            fixture.advanceClocks(by: 1_000)
            let report = try a.sync()
            #expect(report.filesRemoved > 0)
            #expect(changeFiles(of: a, in: fixture).isEmpty, "covered by a's snapshot and read by b: removed")

            // The silent device comes back and still gets everything, from the snapshot.
            let back = try silent.sync()
            #expect(back.fullResync)
            #expect(back.skippedFiles.isEmpty)
            #expect(try silent.everyWord() == a.everyWord())
        }
    }

    @Test("status marks a device silent past the retention period as inactive, and the devices that synced since as active")
    func statusMarksSilentDeviceInactive() throws {
        try withSyncFixture { fixture in
            let devices = try devices(fixture, "a", "b", "silent")
            let (a, b) = (devices[0], devices[1])
            try fixture.syncRounds(devices)
            fixture.advanceClocks(by: 181 * Self.day)
            try a.add("de a")
            try b.add("de b")
            try fixture.syncRounds([a, b])
            let status = try a.status()
            let inactive = Dictionary(uniqueKeysWithValues: status.devices.map { ($0.name, $0.inactive) })
            #expect(inactive == ["a": false, "b": false, "silent": true])
        }
    }

    @Test("a device that keeps syncing while nothing changes anywhere is not taken for a silent one")
    func syncingWithNothingToDoIsNotSilence() throws {
        try withSyncFixture { fixture in
            let devices = try devices(fixture, "writer", "reader")
            let (writer, reader) = (devices[0], devices[1])
            try writer.add("palabra")
            try fixture.syncRounds(devices)
            // Both sync every month for seven months; nobody changes a word.
            for _ in 1...7 {
                fixture.advanceClocks(by: 30 * Self.day)
                try fixture.syncRounds(devices, 1)
            }
            let seen = try #require(try writer.status().devices.first { $0.name == "reader" })
            #expect(
                !seen.inactive, "the reader synced a month ago; its record says it last synced \(seen.lastSync.map(\.iso8601) ?? "never")")
            fixture.advanceClocks(by: 1_000)
            #expect(try !reader.sync().fullResync)
        }
    }

    @Test("a device silent past the retention period cannot bring back a word purged while it was away, even one it edited")
    func silentDeviceCannotBringBackPurgedWord() throws {
        try withSyncFixture { fixture in
            let devices = try devices(fixture, "a", "b", "silent")
            let (a, b, silent) = (devices[0], devices[1], devices[2])
            let id = try a.add("murciélago", notes: "se va")
            try fixture.syncRounds(devices)
            try silent.library.edit(id, WordEdit(meaning: "edited before going silent"))

            try a.library.delete([id])
            try a.library.purge([id])
            fixture.advanceClocks(by: 181 * Self.day)
            try writeChanges(fixture, a, 4, "mientras")
            try fixture.syncRounds([a, b, a])
            #expect(changeFiles(of: a, in: fixture).count < 4, "a compacted without waiting for the silent device")

            let report = try silent.sync()
            #expect(report.fullResync)
            #expect(report.purgedElsewhere == 1)
            #expect(try !silent.has(id))
            try fixture.syncRounds(devices, 2)
            for device in devices { #expect(try !device.has(id), "\(device.name)") }
            #expect(try silent.everyWord() == a.everyWord())
        }
    }
}
