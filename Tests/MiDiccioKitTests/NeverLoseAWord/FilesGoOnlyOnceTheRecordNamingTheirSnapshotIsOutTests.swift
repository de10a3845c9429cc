import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: a device removes its older files (change files its new snapshot covers, its older
/// snapshot) only once its record naming the new snapshot is in the cloud. It removed them
/// first: when the record then could not be written (a folder made read-only, a full
/// disk), the record in the cloud still named the removed files, and a new device read
/// none of them, said "Synced", and held 1 of that device's 34 words until it synced again
/// (found by the exploratory helper, round 12B).
@Suite("Files go only once the record naming their snapshot is out")
struct FilesGoOnlyOnceTheRecordNamingTheirSnapshotIsOutTests {
    @Test("a sync whose record cannot be written leaves every file its record names, and a new device gets every word")
    func recordNotWrittenRemovesNothing() throws {
        try withSyncFixture { fixture in
            let phone = try fixture.device("phone"), laptop = try fixture.device("laptop")
            phone.tune = { $0.snapshotInterval = 4 }
            for index in 0..<7 {
                try phone.add("palabra\(index)")
                try fixture.syncRounds([phone, laptop], 1)
            }
            // The next sync is due to write a snapshot; its record cannot be written.
            try phone.add("palabra7")
            fixture.storage.faults.failWritesUnder = "devices/"
            #expect(throws: (any Error).self) { try phone.sync() }
            fixture.storage.faults.failWritesUnder = nil

            let newcomer = try fixture.device("new tablet")
            let report = try newcomer.sync()
            #expect(try newcomer.library.list().count >= 7, "the words the phone's record names: \(report)")
            #expect(report.unreadFrom.isEmpty, "every file the record names is there")
            try fixture.syncRounds([phone, laptop, newcomer])
            #expect(try newcomer.everyWord() == phone.everyWord())
        }
    }
}
