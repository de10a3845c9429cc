import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: undoing a restore leaves what another device holds as the restore left it, written
/// by that device: the restore brought a copy of that device's own change (its backup,
/// restored here), and taking it back took it back there too. A phone's edit and a word it
/// added, in its backup restored on the laptop and synced by the phone itself, were undone
/// and moved to the Trash on the phone by the laptop's `backup undo`; a new laptop set up
/// from the phone's backup moved every word of the phone to its Trash (found by the
/// exploratory helper, round 23A #1). A record of this device's own restore, pulled back
/// from another device, does not count.
@Suite("An undo leaves what the backup's device synced itself")
struct AnUndoLeavesWhatTheBackupsDeviceSyncedItselfTests {
    private let minute: Int64 = 60_000

    private func device(_ name: String, _ directory: URL, _ cloud: MemoryStorage) throws -> TestDevice {
        try TestDevice(
            name: name, path: directory.appendingPathComponent("\(name).sqlite").path, storage: cloud,
            clock: ManualClock(start: SyncFixture.start))
    }

    /// A laptop and a phone on one cloud.
    private func laptopAndPhone(_ directory: URL) throws -> (laptop: TestDevice, phone: TestDevice) {
        let cloud = MemoryStorage()
        return (try device("laptop", directory, cloud), try device("phone", directory, cloud))
    }

    @Test("the phone's backup merged on the laptop, then the phone syncs: the undo keeps its edit and its word")
    func phoneSyncsWhatItsBackupHeld() throws {
        try withTemporaryDirectory { directory in
            let (laptop, phone) = try laptopAndPhone(directory)
            let palabra = try laptop.add("palabra", meaning: "word")
            try laptop.sync()
            try phone.sync()
            phone.clock.advance(by: minute)
            _ = try phone.library.edit(palabra, WordEdit(meaning: "word (the phone's edit)"))
            let cuatro = try phone.add("cuatro", meaning: "four")
            let backup = directory.appendingPathComponent("phone.json").path
            try phone.library.exportBackup(to: backup)

            laptop.clock.advance(by: 2 * minute)
            let restore = try laptop.library.restoreBackup(from: backup)
            #expect(restore.added == 1 && restore.updated == 1, "\(restore)")
            try phone.sync()
            try laptop.sync()
            let undo = try laptop.library.undoRestore()
            #expect(undo.keptHeldElsewhere == 2 && undo.updated == 0 && undo.trashed == 0, "\(undo)")
            try laptop.sync()
            try phone.sync()
            for device in [laptop, phone] {
                #expect(try device.word(palabra).meaning == "word (the phone's edit)", "on the \(device.name)")
                #expect(try !device.word(cuatro).isDeleted, "on the \(device.name)")
            }
        }
    }

    @Test("a new laptop set up from the phone's backup, then synced with it: the undo takes none of the phone's words")
    func newLaptopFromThePhonesBackup() throws {
        try withTemporaryDirectory { directory in
            let cloud = MemoryStorage()
            let phone = try device("phone", directory, cloud)
            let ids = try ["uno", "dos", "tres"].map { try phone.add($0, meaning: "a number") }
            try phone.sync()
            let backup = directory.appendingPathComponent("phone.json").path
            try phone.library.exportBackup(to: backup)

            let laptop = try device("laptop", directory, cloud)
            laptop.clock.advance(by: minute)
            #expect(try laptop.library.restoreBackup(from: backup).added == 3)
            try laptop.sync()
            let undo = try laptop.library.undoRestore()
            #expect(undo.keptHeldElsewhere == 3 && undo.trashed == 0, "\(undo)")
            try laptop.sync()
            try phone.sync()
            for id in ids {
                #expect(try !phone.word(id).isDeleted && !laptop.word(id).isDeleted)
            }
        }
    }

    @Test("what came back from another device as this one's restore sent it is still undone")
    func thisDevicesOwnRestoreComingBackIsUndone() throws {
        try withTemporaryDirectory { directory in
            let (laptop, phone) = try laptopAndPhone(directory)
            let gato = try laptop.add("gato", meaning: "cat")
            let backup = directory.appendingPathComponent("laptop.json").path
            try laptop.library.exportBackup(to: backup)
            try laptop.sync()
            try phone.sync()
            // A tablet that never syncs edits the laptop's backup, whose copy the laptop merges.
            let tablet = try device("tablet", directory, MemoryStorage())
            _ = try tablet.library.restoreBackup(from: backup)
            tablet.clock.advance(by: minute)
            _ = try tablet.library.edit(gato, WordEdit(meaning: "cat (the tablet)"))
            let tabletBackup = directory.appendingPathComponent("tablet.json").path
            try tablet.library.exportBackup(to: tabletBackup)
            laptop.clock.advance(by: 2 * minute)
            #expect(try laptop.library.restoreBackup(from: tabletBackup).updated == 1)
            try laptop.sync()
            // The phone takes the restore from the laptop, then edits the notes: its record
            // holds the meaning as the restore gave it, written by the laptop.
            try phone.sync()
            phone.clock.advance(by: 3 * minute)
            _ = try phone.library.edit(gato, WordEdit(notes: "the phone's note"))
            try phone.sync()
            try laptop.sync()

            let undo = try laptop.library.undoRestore()
            #expect(undo.keptHeldElsewhere == 0 && undo.keptEdited == 1 && undo.updated == 1, "\(undo)")
            #expect(try laptop.word(gato).meaning == "cat" && laptop.word(gato).notes == "the phone's note")
            try laptop.sync()
            try phone.sync()
            #expect(try phone.word(gato).meaning == "cat")
        }
    }
}
