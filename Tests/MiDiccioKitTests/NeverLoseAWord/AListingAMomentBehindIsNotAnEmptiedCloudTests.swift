import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioSync

/// A cache in front of a WebDAV server, or a store whose listings lag, can answer one
/// listing of `devices/` without this device's record. A device with no files of its own
/// then took the cloud for emptied and started over: "The MiDiccio data … had been deleted
/// or replaced", every word uploaded again, at each such blip (found by the exploratory
/// helper, round 13C). The record is now read by name first.
@Suite("A listing a moment behind is not an emptied cloud")
struct AListingAMomentBehindIsNotAnEmptiedCloudTests {
    @Test("a listing that leaves out this device's record: no start over, no upload of every word, and the devices agree")
    func ownRecordLeftOut() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            for term in ["uno", "dos", "tres"] { _ = try phone.add(term) }
            try fixture.syncRounds([laptop, phone])
            // The laptop has no files of its own, only its record.
            #expect(try laptop.pendingCount() == 0)
            #expect(!fixture.storage.files.keys.contains { $0.hasPrefix("changes/\(laptop.id)/") })

            fixture.storage.faults.missingFromListings[CloudLayout.devicePath(laptop.id)] = 1
            let report = try laptop.sync()
            #expect(!report.startedOver, "\(report)")
            #expect(!report.fullUpload)
            #expect(report.pushed == 0)

            let cuatro = try phone.add("cuatro")
            try fixture.syncRounds([phone, laptop])
            #expect(try laptop.has(cuatro))
            #expect(try laptop.everyWord().count == 4)
        }
    }

    @Test("a listing that leaves out this device's own files: not taken for files gone, no upload of every word")
    func ownFilesLeftOut() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            for term in ["uno", "dos", "tres"] { _ = try laptop.add(term) }
            try fixture.syncRounds([laptop, phone])
            _ = try laptop.add("cuatro")
            _ = try laptop.sync()
            let own = fixture.storage.files.keys.filter { $0.hasPrefix("changes/\(laptop.id)/") }
            #expect(!own.isEmpty)
            // A new process (every command is one) lists its own folders at its first sync.
            try laptop.restart()
            _ = SyncSession.seenGenerations.withLock { $0.removeValue(forKey: laptop.library.path + "|" + laptop.id) }
            for path in own { fixture.storage.faults.missingFromListings[path] = 1 }
            _ = try laptop.add("cinco")
            let report = try laptop.sync()
            #expect(!report.ownFilesGone, "\(report)")
            #expect(!report.fullUpload)
            #expect(report.pushed == 1)
            try fixture.syncRounds([phone, laptop])
            #expect(try phone.everyWord().count == 5)
        }
    }
}
