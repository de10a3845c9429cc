import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: an edit that meets a deletion made on another device is told on both devices,
/// by name, also when each had sent its change already: with a folder remote a sync sends
/// into this computer's copy of the folder, and the sync program (Syncthing, Dropbox)
/// delivers it minutes or days later. The notes counted only changes not yet sent, so in
/// that everyday life the edit went into the Trash, out of sight, and neither device said
/// a word (found by the exploratory helper with two real Syncthing instances, round 20B #6).
@Suite("An edit that meets the Trash is told, though the sync program delivered it late")
struct AnEditMeetingTheTrashIsToldThoughDeliveredLateTests {
    /// Copies the files of `source` that `to` lacks or holds otherwise, but those of
    /// `notOf` (the receiving device's own, which only it writes): a sync program's delivery.
    private func deliver(from source: MemoryStorage, to target: MemoryStorage, notOf device: String) {
        let held = target.files
        for (path, data) in source.files where !path.contains(device) && held[path] != data { target.plant(path, data) }
    }

    @Test("the laptop moved a word to the Trash and the desktop edited it, each synced into its own folder: both are told")
    func bothSidesAreTold() throws {
        try withTemporaryDirectory { directory in
            let laptopFolder = MemoryStorage(), desktopFolder = MemoryStorage()
            let clock = ManualClock(start: SyncFixture.start)
            let laptop = try TestDevice(
                name: "laptop", path: directory.appendingPathComponent("laptop.sqlite").path, storage: laptopFolder, clock: clock)
            let desktop = try TestDevice(
                name: "desktop", path: directory.appendingPathComponent("desktop.sqlite").path, storage: desktopFolder,
                clock: clock)
            let casa = try laptop.add("casa", meaning: "house")
            let perro = try laptop.add("perro", meaning: "dog")
            try laptop.sync()
            deliver(from: laptopFolder, to: desktopFolder, notOf: desktop.id)
            try desktop.sync()
            deliver(from: desktopFolder, to: laptopFolder, notOf: laptop.id)
            try laptop.sync()
            #expect(try desktop.word(casa).meaning == "house")

            // The sync program is paused; both sync, each into its own folder.
            clock.advance(by: 60_000)
            try laptop.library.delete([casa, perro])
            try laptop.sync()
            clock.advance(by: 60_000)
            _ = try desktop.library.edit(casa, WordEdit(meaning: "house, home"))
            try desktop.sync()

            // It delivers both ways.
            deliver(from: laptopFolder, to: desktopFolder, notOf: desktop.id)
            deliver(from: desktopFolder, to: laptopFolder, notOf: laptop.id)
            let onDesktop = try desktop.sync()
            #expect(onDesktop.trashedEditedHere == 1 && onDesktop.trashedEditedTerms == ["casa"], "\(onDesktop)")
            #expect(onDesktop.overriddenNote?.contains("restore it from the Trash") == true)
            let onLaptop = try laptop.sync()
            #expect(onLaptop.editedTrashedHere == 1 && onLaptop.editedTrashedHereTerms == ["casa"], "\(onLaptop)")
            #expect(try laptop.word(casa).isDeleted && laptop.word(casa).meaning == "house, home")
            #expect(try desktop.word(perro).isDeleted)
        }
    }
}
