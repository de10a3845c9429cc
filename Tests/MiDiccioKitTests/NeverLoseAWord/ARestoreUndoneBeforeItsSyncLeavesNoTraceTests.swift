import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: a backup restore undone before any sync met it is as if it had not been made. Its
/// words go back with their own times, writers and pending flags, so an edit another device
/// made before the restore still wins when the devices sync. The undo gave every word it put
/// back a new time, which beat such an edit on every device: a restore and its undo, which
/// together changed nothing here, took an offline phone's edit from every device (found by
/// the exploratory helper, round 22A #3). Once a sync has sent the restore, its undo still
/// gives new times: the other devices hold the restore's.
@Suite("A restore undone before its sync leaves no trace")
struct ARestoreUndoneBeforeItsSyncLeavesNoTraceTests {
    private let day: Int64 = 86_400_000

    /// A laptop and a phone that have synced "gato" and "perro", and a backup of the laptop.
    private func devices(
        _ directory: URL
    ) throws -> (laptop: TestDevice, phone: TestDevice, gato: WordID, perro: WordID, backup: String) {
        let cloud = MemoryStorage()
        let laptop = try TestDevice(
            name: "laptop", path: directory.appendingPathComponent("laptop.sqlite").path, storage: cloud,
            clock: ManualClock(start: SyncFixture.start))
        let phone = try TestDevice(
            name: "phone", path: directory.appendingPathComponent("phone.sqlite").path, storage: cloud,
            clock: ManualClock(start: SyncFixture.start))
        let gato = try laptop.add("gato", meaning: "cat", tags: ["animal"])
        let perro = try laptop.add("perro", meaning: "dog")
        let backup = directory.appendingPathComponent("backup.json").path
        try laptop.library.exportBackup(to: backup)
        try laptop.sync()
        try phone.sync()
        return (laptop, phone, gato, perro, backup)
    }

    @Test("a replace undone at once: the phone's offline edit made before it wins on both devices")
    func replaceUndoneBeforeSync() throws {
        try withTemporaryDirectory { directory in
            let (laptop, phone, gato, perro, backup) = try devices(directory)
            phone.clock.advance(by: 4 * day)
            _ = try phone.library.edit(gato, WordEdit(meaning: "cat (the phone, offline)"))
            laptop.clock.advance(by: 9 * day)
            _ = try laptop.library.edit(perro, WordEdit(meaning: "dog!"))
            let gatoBefore = try laptop.stored(gato), perroBefore = try laptop.stored(perro)

            let restore = try laptop.library.restoreBackup(from: backup, replace: true)
            #expect(restore.updated == 1 && restore.unchanged == 1, "\(restore)")
            #expect(try laptop.library.restoreUnsent())
            laptop.clock.advance(by: 60_000)
            let undo = try laptop.library.undoRestore()
            #expect(undo.undoneBeforeSync && undo.updated == 1, "\(undo)")
            #expect(!(try laptop.library.restoreUnsent()))
            // Both as they were, times, writers, pending flag and tag clock included.
            let gatoAfter = try laptop.stored(gato)
            #expect(gatoAfter.word == gatoBefore.word && gatoAfter.times == gatoBefore.times)
            #expect(gatoAfter.writers == gatoBefore.writers && gatoAfter.tagClock == gatoBefore.tagClock && !gatoAfter.pending)
            #expect(try laptop.stored(perro).word == perroBefore.word)
            #expect(try laptop.stored(perro).times == perroBefore.times && laptop.stored(perro).pending)

            try laptop.sync()
            try phone.sync()
            try laptop.sync()
            for device in [laptop, phone] {
                #expect(try device.word(gato).meaning == "cat (the phone, offline)", "on the \(device.name)")
                #expect(try device.word(perro).meaning == "dog!", "on the \(device.name)")
            }
            #expect(try laptop.library.libraryDigest() == phone.library.libraryDigest())
        }
    }

    @Test("a merge of another device's newer copy undone at once: the phone's later edit wins")
    func mergeUndoneBeforeSync() throws {
        try withTemporaryDirectory { directory in
            let (laptop, phone, gato, _, _) = try devices(directory)
            // A tablet's backup, with "gato" edited on day 2.
            let tablet = try TestDevice(
                name: "tablet", path: directory.appendingPathComponent("tablet.sqlite").path, storage: MemoryStorage(),
                clock: ManualClock(start: SyncFixture.start))
            _ = try tablet.library.restoreBackup(from: directory.appendingPathComponent("backup.json").path)
            tablet.clock.advance(by: 2 * day)
            _ = try tablet.library.edit(gato, WordEdit(meaning: "cat (the tablet)"))
            let tabletBackup = directory.appendingPathComponent("tablet.json").path
            try tablet.library.exportBackup(to: tabletBackup)

            phone.clock.advance(by: 4 * day)
            _ = try phone.library.edit(gato, WordEdit(meaning: "cat (the phone, day 4)"))
            laptop.clock.advance(by: 9 * day)
            let restore = try laptop.library.restoreBackup(from: tabletBackup)
            #expect(restore.updated == 1, "\(restore)")
            #expect(try laptop.library.undoRestore().undoneBeforeSync)
            #expect(try laptop.stored(gato).pending == false, "as it was: sent already")

            try laptop.sync()
            try phone.sync()
            try laptop.sync()
            #expect(try laptop.word(gato).meaning == "cat (the phone, day 4)")
            #expect(try phone.word(gato).meaning == "cat (the phone, day 4)")
        }
    }

    @Test("a field edited after the restore keeps its edit; the others go back with their own times")
    func editedSinceKeepsItsEdit() throws {
        try withTemporaryDirectory { directory in
            let (laptop, _, gato, _, backup) = try devices(directory)
            laptop.clock.advance(by: day)
            _ = try laptop.library.edit(gato, WordEdit(meaning: "cat, feline", notes: "a note"))
            let before = try laptop.stored(gato)
            _ = try laptop.library.restoreBackup(from: backup, replace: true)
            laptop.clock.advance(by: 60_000)
            _ = try laptop.library.edit(gato, WordEdit(reading: "GA-to"))
            let edited = try laptop.stored(gato)

            let undo = try laptop.library.undoRestore()
            #expect(undo.undoneBeforeSync && undo.keptEdited == 1 && undo.updated == 1, "\(undo)")
            let after = try laptop.stored(gato)
            #expect(after.word.meaning == "cat, feline" && after.word.notes == "a note" && after.word.reading == "GA-to")
            #expect(after.times.meaning == before.times.meaning && after.times.notes == before.times.notes)
            #expect(after.times.reading == edited.times.reading)
            #expect(after.pending, "the edit made since is not sent yet")
        }
    }

    @Test("once a sync has sent the restore, its undo gives what it puts back a new time")
    func undoneAfterItsSync() throws {
        try withTemporaryDirectory { directory in
            let (laptop, phone, gato, _, _) = try devices(directory)
            laptop.clock.advance(by: day)
            _ = try laptop.library.edit(gato, WordEdit(meaning: "cat, edited"))
            try laptop.library.exportBackup(to: directory.appendingPathComponent("later.json").path)
            _ = try laptop.library.edit(gato, WordEdit(meaning: "cat, edited again"))
            let restore = try laptop.library.restoreBackup(from: directory.appendingPathComponent("later.json").path, replace: true)
            #expect(restore.updated == 1)
            let restoredAt = try laptop.stored(gato).times.meaning
            try laptop.sync()
            #expect(!(try laptop.library.restoreUnsent()), "a sync has sent it")
            try phone.sync()
            #expect(try phone.word(gato).meaning == "cat, edited")

            laptop.clock.advance(by: 60_000)
            let undo = try laptop.library.undoRestore()
            #expect(!undo.undoneBeforeSync && undo.updated == 1, "\(undo)")
            #expect(try laptop.stored(gato).times.meaning > restoredAt)
            try laptop.sync()
            try phone.sync()
            #expect(try phone.word(gato).meaning == "cat, edited again", "the undo reaches the phone, over the restore it has")
        }
    }
}
