import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: a device that learns of a purge, with nothing new of its own to number, writes
/// its snapshot again under the same number, and its record names the snapshot that one
/// replaced (`DeviceRecord.snapshotReplaces`). Devices that read the replaced snapshot do
/// not take the new one for the device put back from an older copy. Before, every Empty
/// Trash on one device made the others say "… was put back from an older copy" and upload
/// every word again, after each purge (found by the exploratory helper, round 12A). A
/// device that is put back still is told (`AComputerRestoredWithItsSyncedFolderTests`).
@Suite("Emptying the Trash is not taken for a put-back")
struct EmptyingTheTrashIsNotTakenForAPutBackTests {
    @Test("after purges on the phone, no device says another was put back or uploads every word again", arguments: [2, 3])
    func purgesAreNotPutBacks(devices count: Int) throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            // A snapshot after its first change file, as a library connected with words
            // writes one: the devices joining later read it.
            laptop.tune = { $0.snapshotInterval = 1 }
            let ids = try (0..<6).map { try laptop.add("palabra\($0)", meaning: "word \($0)") }
            let others = try (1..<count).map { try fixture.device("device \($0)") }
            let devices = [laptop] + others
            try fixture.syncRounds([laptop])
            try fixture.syncRounds(devices)
            let phone = try #require(others.last)
            var reports: [SyncReport] = []
            // Two purges one after the other: the laptop writes its snapshot again twice
            // under one number, and a device may have read either.
            for id in ids.prefix(2) {
                _ = try phone.library.delete([id])
                try phone.library.purge([id])
                for _ in 0..<3 {
                    for device in [phone] + devices.dropLast() {
                        fixture.advanceClocks(by: 1_000)
                        reports.append(try device.sync())
                    }
                }
            }
            #expect(try laptop.ownSnapshotRewrites() >= 2, "the laptop wrote its snapshot again under one number")
            #expect(reports.allSatisfy { $0.refilledFor.isEmpty }, "\(reports.flatMap(\.refilledFor))")
            #expect(reports.allSatisfy { !$0.fullUpload })
            for device in devices {
                #expect(try device.everyWord() == laptop.everyWord())
                #expect(try device.library.list().count == 4)
            }
        }
    }
}

extension TestDevice {
    /// How many snapshots this device's published record says its latest replaced under
    /// its number.
    fileprivate func ownSnapshotRewrites() throws -> Int {
        guard let data = try cloud.read(CloudLayout.devicePath(id)), let record = DeviceRecord.decode(data) else { return 0 }
        return record.snapshotReplaces?.count ?? 0
    }
}
