import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A computer restored from a backup (Time Machine) brings back its library *and* its
/// synced folder as they were: the sync program then passes the folder's old state on to
/// the cloud, so the device's record and files go back with the library, and nothing in
/// the cloud tells. The words and edits it made since lived on only in the devices that had
/// read them, and its next files took numbers they had read already (found by the
/// exploratory helper, round 9: both were lost for good).
@Suite("A computer restored with its synced folder loses no word")
struct AComputerRestoredWithItsSyncedFolderTests {
    /// Two devices in step: the laptop wrote "uno" and the backup of the laptop (its
    /// library and the whole cloud folder) is taken; then it adds "dos" and corrects "uno",
    /// and the desktop reads both. Returns the devices, the backup's library file and the
    /// cloud's files as backed up, and the words' ids.
    private func restoredLaptop(
        _ fixture: SyncFixture
    ) throws -> (laptop: TestDevice, desktop: TestDevice, backup: String, cloud: [String: Data], uno: WordID, dos: WordID) {
        let laptop = try fixture.device("laptop")
        let desktop = try fixture.device("desktop")
        let uno = try laptop.add("uno", meaning: "one")
        try fixture.syncRounds([laptop, desktop])
        let backup = fixture.file("backup.sqlite")
        try laptop.copyLibraryFile(to: backup)
        let cloud = fixture.storage.files

        let dos = try laptop.add("dos", meaning: "two")
        _ = try laptop.library.edit(uno, WordEdit(meaning: "one (corrected)"))
        try fixture.syncRounds([laptop, desktop])
        #expect(try desktop.word(dos).meaning == "two" && desktop.word(uno).meaning == "one (corrected)")
        return (laptop, desktop, backup, cloud, uno, dos)
    }

    /// Puts the laptop's library and the whole cloud back as they were backed up.
    private func restore(_ laptop: TestDevice, from backup: String, cloud: [String: Data], in fixture: SyncFixture) throws {
        try laptop.restoreLibraryFile(from: backup)
        for path in fixture.storage.files.keys where cloud[path] == nil { _ = try fixture.storage.delete(path) }
        for (path, data) in cloud { fixture.storage.plant(path, data) }
    }

    @Test("the words and edits it made since the backup come back to it, and reach a new device")
    func wordsMadeSinceComeBack() throws {
        try withSyncFixture { fixture in
            let (laptop, desktop, backup, cloud, uno, dos) = try restoredLaptop(fixture)
            try restore(laptop, from: backup, cloud: cloud, in: fixture)
            #expect(try !laptop.has(dos))

            let reports = try (0..<2).flatMap { _ in [try desktop.sync(), try laptop.sync()] }
            #expect(try laptop.word(dos).meaning == "two" && laptop.word(uno).meaning == "one (corrected)")
            #expect(reports.contains { $0.refilledFor == ["laptop"] })
            let phone = try fixture.device("phone")
            try fixture.syncRounds([phone])
            #expect(try phone.everyWord() == desktop.everyWord())
            #expect(try laptop.everyWord() == desktop.everyWord())
        }
    }

    @Test("a word it writes before the other device looks again reaches that device, and the lost ones come back")
    func wordWrittenBeforeTheOtherLooks() throws {
        try withSyncFixture { fixture in
            let (laptop, desktop, backup, cloud, uno, dos) = try restoredLaptop(fixture)
            try restore(laptop, from: backup, cloud: cloud, in: fixture)
            // The laptop syncs a new word at once: its next change file takes the number
            // of the one the desktop read with "dos" in it.
            let tres = try laptop.add("tres", meaning: "three")
            try laptop.sync()
            try fixture.syncRounds([desktop, laptop, desktop, laptop])
            #expect(try desktop.word(tres).meaning == "three")
            #expect(try laptop.word(dos).meaning == "two" && laptop.word(uno).meaning == "one (corrected)")
            #expect(try laptop.everyWord() == desktop.everyWord())
        }
    }

    @Test("a device put back finds it from another's newer record: it numbers its files after what was read, and says so")
    func putBackDeviceSaysSo() throws {
        try withSyncFixture { fixture in
            let (laptop, desktop, backup, cloud, uno, dos) = try restoredLaptop(fixture)
            // The desktop's record, written since the backup, says it read the laptop's
            // second change file; the sync program brings it back after the restore.
            let record = CloudLayout.devicePath(desktop.id)
            let newer = try #require(fixture.storage.files[record])
            try restore(laptop, from: backup, cloud: cloud, in: fixture)
            fixture.storage.plant(record, newer)

            let tres = try laptop.add("tres", meaning: "three")
            let report = try laptop.sync()
            #expect(report.putBack == 1)
            #expect(report.putBackNote?.contains("put back from an older copy") == true)
            #expect(fixture.seqs(.changes, of: laptop).max() == 3, "not the number the desktop read already")
            try fixture.syncRounds([desktop, laptop])
            #expect(try desktop.word(tres).meaning == "three")
            #expect(try laptop.word(dos).meaning == "two" && laptop.word(uno).meaning == "one (corrected)")
        }
    }

    @Test("put back a second time, from a backup taken after the first, it loses no word either")
    func restoredTwice() throws {
        try withSyncFixture { fixture in
            let (laptop, desktop, backup, cloud, _, _) = try restoredLaptop(fixture)
            try restore(laptop, from: backup, cloud: cloud, in: fixture)
            try fixture.syncRounds([desktop, laptop, desktop, laptop])
            let second = fixture.file("second-backup.sqlite")
            try laptop.copyLibraryFile(to: second)
            let secondCloud = fixture.storage.files
            let cinco = try laptop.add("cinco", meaning: "five")
            try fixture.syncRounds([laptop, desktop])
            #expect(try desktop.word(cinco).meaning == "five")
            // The laptop's sync program had fetched the desktop's newest record before the
            // disk failed: the backup of the folder holds it.
            let desktopRecord = CloudLayout.devicePath(desktop.id)
            let backedUp = secondCloud.merging([desktopRecord: fixture.storage.files[desktopRecord]!]) { $1 }

            try restore(laptop, from: second, cloud: backedUp, in: fixture)
            try fixture.syncRounds([desktop, laptop, desktop, laptop])
            #expect(try laptop.word(cinco).meaning == "five")
            #expect(try laptop.everyWord() == desktop.everyWord())
        }
    }

    @Test("put back from before a full upload it made, it loses no word, and its next words arrive")
    func restoredFromBeforeAFullUpload() throws {
        try withSyncFixture { fixture in
            let (laptop, desktop, backup, cloud, _, dos) = try restoredLaptop(fixture)
            // The laptop's last sync before the restore was an upload of every word (a
            // snapshot under a new number), which the desktop read.
            try laptop.library.setRemote(nil)
            try laptop.library.setRemote(.folder(path: fixture.file("cloud")))
            try fixture.syncRounds([laptop, desktop])
            let seen = fixture.storage.files
            try restore(
                laptop, from: backup,
                cloud: cloud.merging(seen.filter { $0.key.hasPrefix("devices/") && !$0.key.contains(laptop.id) }) { $1 }, in: fixture)
            let tres = try laptop.add("tres", meaning: "three")
            try laptop.sync()
            let seis = try laptop.add("seis", meaning: "six")
            try laptop.sync()
            try fixture.syncRounds([desktop, laptop, desktop, laptop])
            #expect(try desktop.word(tres).meaning == "three" && desktop.word(seis).meaning == "six")
            #expect(try laptop.word(dos).meaning == "two")
            #expect(try laptop.everyWord() == desktop.everyWord())
        }
    }
}
