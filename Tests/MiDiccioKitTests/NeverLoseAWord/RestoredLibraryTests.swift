import Foundation
import MiDiccioTesting
import Synchronization
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Finding 2: a library put back from an older copy of its own file (Time Machine, a
/// phone backup). The words it added after that copy come back to it from the cloud, its
/// new edits reach the others, a word purged after the copy stays purged, and every
/// device agrees.
@Suite("A library put back from an older copy of its own file")
struct RestoredLibraryTests {
    @Test(
        "a library put back from a backup gets back the words it added after the backup, and its new edits reach the other devices",
        arguments: CloudBackend.available)
    func restoredLibraryCatchesUp(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            let early = try laptop.add("temprano")
            try fixture.syncRounds([laptop, phone])
            let backup = fixture.file("laptop-backup.sqlite")
            try laptop.copyLibraryFile(to: backup)

            let late = try laptop.add("tarde", meaning: "added after the backup")
            try laptop.library.edit(early, WordEdit(notes: "edited after the backup"))
            try fixture.syncRounds([laptop, phone])

            try laptop.restoreLibraryFile(from: backup)
            #expect(try !laptop.has(late), "the older file does not have it")
            let afterRestore = try laptop.add("después", meaning: "added after the restore")
            fixture.advanceClocks(by: 1_000)
            let report = try laptop.sync()
            #expect(report.newIdentity != nil, "the restored library finds out it is an older copy of itself")
            try fixture.syncRounds([laptop, phone], 3)

            for device in [laptop, phone] {
                #expect(try device.has(late) && device.has(afterRestore), "\(device.name): \((try? device.terms()) ?? [])")
                #expect(try device.word(early).notes == "edited after the backup", "\(device.name)")
            }
            #expect(try laptop.everyWord() == phone.everyWord())
            #expect(try laptop.pendingCount() == 0 && phone.pendingCount() == 0)
        }
    }

    @Test(
        "a word purged after the backup stays purged on the restored library, content included, even after compaction",
        arguments: CloudBackend.available)
    func purgeAfterBackupStays(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            for device in [laptop, phone] { device.tune = { $0.snapshotInterval = 2 } }
            let doomed = try laptop.add("secreto", notes: "qzxsecretqzx")
            try laptop.add("uno")
            try fixture.syncRounds([laptop, phone])
            let backup = fixture.file("laptop-backup.sqlite")
            try laptop.copyLibraryFile(to: backup)

            try phone.library.delete([doomed])
            try phone.library.purge([doomed])
            for index in 0..<4 {
                try phone.add("palabra \(index)")
                try fixture.syncRounds([phone, laptop])
            }
            #expect(!fixture.cloudHolds("qzxsecretqzx"), "compaction removed the purged content from the cloud")

            try laptop.restoreLibraryFile(from: backup)
            #expect(try laptop.has(doomed), "the older file still holds it")
            try fixture.syncRounds([laptop, phone], 3)
            #expect(try !laptop.has(doomed))
            #expect(try laptop.library.isPurged(doomed))
            #expect(!fixture.cloudHolds("qzxsecretqzx"), "the restored library uploaded nothing of it")
            #expect(try laptop.everyWord() == phone.everyWord())
        }
    }

    @Test("the restored library and the other devices agree on an edit made before the restore", arguments: CloudBackend.available)
    func devicesAgreeOnEarlierEdit(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            let word = try laptop.add("palabra")
            try fixture.syncRounds([laptop, phone])
            try laptop.library.edit(word, WordEdit(meaning: "from the laptop, uploaded"))
            try phone.library.edit(word, WordEdit(meaning: "from the phone, same millisecond"))
            try fixture.syncRounds([laptop, phone])
            let agreed = try phone.word(word).meaning
            let backup = fixture.file("laptop-backup.sqlite")
            try laptop.copyLibraryFile(to: backup)
            try fixture.syncRounds([laptop, phone])
            try laptop.restoreLibraryFile(from: backup)
            try fixture.syncRounds([laptop, phone], 3)
            #expect(try laptop.word(word).meaning == agreed)
            #expect(try laptop.everyWord() == phone.everyWord())
            #expect(try laptop.stored(word).times == phone.stored(word).times)
        }
    }

    /// How the words went up before the library was put back: as a change file, or as the
    /// snapshot of a full upload (after an update), the backup itself updated again or not
    /// as it opens.
    enum LastUpload: CaseIterable, Sendable {
        case changeFile, fullUpload, fullUploadThenUpdatedBackup
    }

    /// Makes every write of a device record by `device` fail, as a full disk would.
    private func failRecords(_ device: TestDevice) {
        device.cloud.beforeWrite = { path in
            if path.hasPrefix("devices/") { throw CloudError.failed(path: path, reason: "No space left on device") }
        }
    }

    /// What an update's migration leaves in a library that holds words: a request that
    /// its next sync upload every word once, which goes as a snapshot.
    private func updated(_ device: TestDevice) throws {
        try device.library.database.run("INSERT OR REPLACE INTO library_info (key, value) VALUES ('sync.fullUpload', '1')")
    }

    @Test(
        "words uploaded just before the library was put back, whose record never reached the cloud, are not lost",
        arguments: LastUpload.allCases)
    func unannouncedUploadIsRead(upload: LastUpload) throws {
        try withBackend(.folder) { fixture in
            let (laptop, phone, backup) = try fixture.laptopAndPhoneWithABackup(first: "uno")
            let lonely = try laptop.add("solitaria", meaning: "its file is in the cloud, its record never got there")
            if upload != .changeFile { try updated(laptop) }
            failRecords(laptop)
            fixture.advanceClocks(by: 1_000)
            #expect(throws: SyncError.self) { try laptop.sync() }
            laptop.cloud.beforeWrite = nil
            let kind: CloudLayout.Kind = upload == .changeFile ? .changes : .snapshot
            let folder = fixture.diskPath(CloudLayout.folder(kind, of: laptop.id))
            #expect(
                (try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty == false,
                "the word went up in a file no record names")

            try laptop.restoreLibraryFile(from: backup)
            // Opened by a newer version, the backup is updated again: its first sync then
            // starts with the request to upload every word (found by the simulation).
            if upload == .fullUploadThenUpdatedBackup { try updated(laptop) }
            fixture.advanceClocks(by: 1_000)
            #expect(try laptop.sync().newIdentity != nil, "the file under its id shows it was put back")
            try fixture.syncRounds([laptop, phone], 3)
            #expect(try laptop.has(lonely) && phone.has(lonely))
            #expect(try laptop.everyWord() == phone.everyWord())
        }
    }

    /// Makes `device`'s writes of a record fail for any id under which a snapshot was
    /// written in this sync: the last record of a takeover, whose snapshot holds every
    /// word, does not reach the cloud.
    private func failRecordsAfterTheirSnapshot(_ device: TestDevice) {
        let snapshotted = Mutex<Set<String>>([])
        device.cloud.beforeWrite = { path in
            if path.hasPrefix("snapshots/"), let id = path.split(separator: "/").dropFirst().first {
                snapshotted.withLock { _ = $0.insert(String(id)) }
            }
            if path.hasPrefix("devices/"), snapshotted.withLock({ $0.contains { path == CloudLayout.devicePath($0) } }) {
                throw CloudError.failed(path: path, reason: "No space left on device")
            }
        }
    }

    @Test("a copy's words uploaded under the id it took, whose last record failed, come back after it is put back from a backup")
    func takeoverWithoutItsLastRecordIsRead() throws {
        try withBackend(.folder) { fixture in
            let (laptop, phone, _) = try fixture.laptopAndPhoneWithABackup(first: "uno")
            let second = try fixture.copy(of: laptop, as: "second laptop")
            let backup = fixture.file("second-laptop-backup.sqlite")
            try second.copyLibraryFile(to: backup)
            let lonely = try second.add("solitaria", meaning: "only on the second laptop")
            try laptop.add("dos")
            try laptop.sync()

            failRecordsAfterTheirSnapshot(second)
            fixture.advanceClocks(by: 1_000)
            #expect(throws: SyncError.self) { try second.sync() }
            second.cloud.beforeWrite = nil
            try second.restoreLibraryFile(from: backup)
            try fixture.syncRounds([second, laptop, phone], 3)
            for device in [second, laptop, phone] {
                #expect(try device.has(lonely), "\(device.name): \((try? device.terms()) ?? [])")
            }
            #expect(try laptop.everyWord() == phone.everyWord() && second.everyWord() == phone.everyWord())
        }
    }

    @Test("a word synced before a library was put back twice from one backup is not lost when the takeover's last record failed")
    func puttingBackTwiceLosesNothing() throws {
        try withBackend(.folder) { fixture in
            let (laptop, phone, backup) = try fixture.laptopAndPhoneWithABackup(first: "cero")
            let synced = try laptop.add("uno", meaning: "synced as usual")
            try laptop.sync()

            try laptop.restoreLibraryFile(from: backup)
            let afterward = try laptop.add("dos", meaning: "added after the first put-back")
            failRecordsAfterTheirSnapshot(laptop)
            fixture.advanceClocks(by: 1_000)
            #expect(throws: SyncError.self) { try laptop.sync() }
            laptop.cloud.beforeWrite = nil

            try laptop.restoreLibraryFile(from: backup)
            try fixture.syncRounds([laptop, phone], 3)
            for device in [laptop, phone] {
                #expect(try device.has(synced) && device.has(afterward), "\(device.name): \((try? device.terms()) ?? [])")
            }
            #expect(try laptop.everyWord() == phone.everyWord())
        }
    }

    @Test("an id that took others over writes nothing under it while its record cannot be written, however many syncs try")
    func nothingUnderAnUnannouncedId() throws {
        try withBackend(.folder) { fixture in
            let (laptop, phone, _) = try fixture.laptopAndPhoneWithABackup(first: "uno")
            let second = try fixture.copy(of: laptop, as: "second laptop")
            let word = try second.add("dos", meaning: "only on the second laptop")
            try laptop.add("tres")
            try laptop.sync()

            failRecords(second)
            for _ in 0..<2 {
                fixture.advanceClocks(by: 1_000)
                #expect(throws: SyncError.self) { try second.sync() }
            }
            #expect(second.id != laptop.id, "the second laptop took a new id")
            for kind in [CloudLayout.Kind.changes, .snapshot] {
                let folder = fixture.diskPath(CloudLayout.folder(kind, of: second.id))
                #expect((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] == [], "\(kind) under an id no record names")
            }
            second.cloud.beforeWrite = nil
            try fixture.syncRounds([second, laptop, phone], 3)
            #expect(try laptop.has(word) && phone.has(word))
            #expect(try laptop.everyWord() == phone.everyWord() && second.everyWord() == phone.everyWord())
        }
    }

    @Test("a word uploaded under a taken-over id whose record failed comes back when the next put-back's first sync fails too")
    func relativesAreReadUntilTheTakeoverEnds() throws {
        try withBackend(.folder) { fixture in
            let (laptop, phone, backup) = try fixture.laptopAndPhoneWithABackup(first: "cero")
            try laptop.add("uno")
            try laptop.sync()
            try laptop.restoreLibraryFile(from: backup)
            fixture.advanceClocks(by: 1_000)
            #expect(try laptop.sync().newIdentity != nil)
            let word = try laptop.add("diez", meaning: "reached the cloud in a change file no record names")
            failRecords(laptop)
            fixture.advanceClocks(by: 1_000)
            #expect(throws: SyncError.self) { try laptop.sync() }

            // Put back again; the takeover's first sync cannot write its record either.
            try laptop.restoreLibraryFile(from: backup)
            fixture.advanceClocks(by: 1_000)
            #expect(throws: SyncError.self) { try laptop.sync() }
            laptop.cloud.beforeWrite = nil
            try fixture.syncRounds([laptop, phone], 3)
            for device in [laptop, phone] {
                #expect(try device.has(word), "\(device.name): \((try? device.terms()) ?? [])")
            }
            #expect(try laptop.everyWord() == phone.everyWord())
        }
    }

    @Test("a file of the old id that cannot be read at the takeover still reaches every device once it can be read")
    func lateFileOfTheOldIdIsPassedOn() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            try laptop.add("uno")
            try fixture.syncRounds([laptop, phone])
            let backup = fixture.file("laptop-backup.sqlite")
            try laptop.copyLibraryFile(to: backup)
            let lonely = try laptop.add("solitaria")
            failRecords(laptop)
            fixture.advanceClocks(by: 1_000)
            #expect(throws: SyncError.self) { try laptop.sync() }
            laptop.cloud.beforeWrite = nil
            let oldID = laptop.id
            let unannounced = try #require(fixture.seqs(.changes, of: laptop).last.flatMap { fixture.path(.changes, of: laptop, seq: $0) })
            try laptop.restoreLibraryFile(from: backup)

            // The takeover happens while that file reads as damaged (still arriving).
            let whole = try #require(fixture.storage.files[unannounced])
            fixture.storage.faults.corruptReads[unannounced] = whole.prefix(whole.count / 2)
            fixture.advanceClocks(by: 1_000)
            let takeover = try laptop.sync()
            #expect(takeover.newIdentity?.old == oldID)
            #expect(takeover.skippedFiles.map(\.path) == [unannounced])
            fixture.storage.faults.corruptReads = [:]

            try fixture.syncRounds([laptop, phone], 3)
            #expect(try laptop.has(lonely) && phone.has(lonely), "passed on by the library that took the old id over")
            #expect(try laptop.everyWord() == phone.everyWord())
            #expect(try laptop.pendingCount() == 0)
        }
    }
}
