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

/// Rule: what a sync uploaded is named by its device's record before the sync writes a
/// snapshot, so a snapshot the cloud refuses (a server's upload limit, 413, or a full
/// quota) leaves the upload reachable by every device. The snapshot went first: every sync
/// of a device whose snapshot had grown past nginx's default 1 MB limit stopped before its
/// record, it said its words were uploaded, and no other device read them for two days,
/// or ever, once another device purged (found by the exploratory helper, round 20B #3, #11).
@Suite("An upload reaches the other devices though the snapshot after it is refused")
struct AnUploadReachesOthersThoughItsSnapshotIsRefusedTests {
    @Test("an edit uploaded in a sync whose snapshot the cloud refuses reaches another device, and is not purged by its Empty Trash")
    func refusedSnapshotLeavesTheUploadNamed() throws {
        try withSyncFixture { fixture in
            let phone = try fixture.device("phone"), laptop = try fixture.device("laptop")
            phone.tune = { $0.snapshotInterval = 4 }
            let casa = try phone.add("casa", meaning: "house")
            for index in 0..<3 {
                try phone.add("palabra\(index)")
                try fixture.syncRounds([phone, laptop], 1)
            }
            try laptop.library.delete([casa])
            try fixture.syncRounds([laptop, phone], 1)
            // The phone takes "casa" out of the Trash and edits it; its sync is due to write a
            // snapshot, which the cloud refuses.
            try phone.library.restore([casa])
            _ = try phone.library.edit(casa, WordEdit(meaning: "house, home"))
            fixture.storage.faults.failWritesUnder = "snapshots/"
            #expect(throws: (any Error).self) { try phone.sync() }

            // The laptop empties its Trash, syncing first as the command does: it sees the restore.
            try laptop.sync()
            #expect(try !laptop.word(casa).isDeleted && laptop.word(casa).meaning == "house, home")
            #expect(try laptop.library.emptyTrash() == 0)
            fixture.storage.faults.failWritesUnder = nil
            try fixture.syncRounds([phone, laptop])
            #expect(try phone.word(casa).meaning == "house, home" && laptop.everyWord() == phone.everyWord())
        }
    }
}

/// Rule: a device notes the files it compacts away as removed before it removes them. It
/// removed them first: a sync that stopped in between (its process ended, as a command does
/// once it stops waiting for the sync after a purge) found its own files gone at the next
/// sync, read everything again and uploaded every word once (found by the exploratory
/// helper, round 21A).
@Suite("A sync stopped as it compacts takes no file of its own for gone")
struct ASyncStoppedAsItCompactsTests {
    @Test("a device stopped right after removing a compacted file goes on at its next sync, uploading nothing again")
    func stoppedAfterRemoving() throws {
        try withSyncFixture { fixture in
            let phone = try fixture.device("phone"), laptop = try fixture.device("laptop")
            phone.tune = { $0.snapshotInterval = 3 }
            var stopped = false
            phone.cloud.crashAfterDeleting = { path in
                guard path.hasPrefix(CloudLayout.changesFolder(phone.id)), !stopped else { return false }
                stopped = true
                return true
            }
            for index in 0..<6 where !stopped {
                try phone.add("palabra\(index)")
                do { try fixture.syncRounds([phone, laptop], 1) } catch {}
            }
            #expect(stopped, "a compaction removed a change file")
            phone.cloud.crashAfterDeleting = nil
            // A new process: the library's state is not one it left behind.
            try phone.restart()
            _ = SyncSession.seenGenerations.withLock { $0.removeValue(forKey: phone.path + "|" + phone.id) }
            let report = try phone.sync()
            #expect(!report.ownFilesGone && !report.fullUpload, "\(report)")
            try fixture.syncRounds([phone, laptop])
            #expect(try laptop.everyWord() == phone.everyWord() && phone.everyWord().count >= 3)
        }
    }
}
