import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rules: a word counts as uploaded only once the record naming its file is in the cloud
/// (no device reads a file its writer's record does not name), and the sync before a
/// permanent deletion reads the files every device wrote past its record.
///
/// A phone took "casa" out of the Trash and edited it; its change file went up, and its
/// record did not (a 503 at that moment, a lock another WebDAV client held on the record).
/// It said "1 word was uploaded", nothing pending; the laptop's Empty Trash, syncing first,
/// did not see the restore and purged the word on every device, and the phone was never
/// told its edit went (found by the exploratory helper, round 20B #11).
@Suite("An upload counts once its record names it")
struct AnUploadCountsOnceItsRecordNamesItTests {
    /// A phone and a laptop that both hold "casa" in the Trash (the laptop deleted it); the
    /// phone then takes it out, edits it, and syncs while the cloud refuses its record.
    /// Returns the devices, the word, and what the phone's sync threw.
    private func restoredWhileTheRecordFails(
        _ fixture: SyncFixture
    ) throws -> (phone: TestDevice, laptop: TestDevice, casa: WordID, failure: any Error) {
        let phone = try fixture.device("phone"), laptop = try fixture.device("laptop")
        let casa = try phone.add("casa", meaning: "house")
        try phone.add("perro", meaning: "dog")
        try fixture.syncRounds([phone, laptop])
        try laptop.library.delete([casa])
        try fixture.syncRounds([laptop, phone])
        try phone.library.restore([casa])
        _ = try phone.library.edit(casa, WordEdit(meaning: "house, home"))
        fixture.storage.faults.failWritesUnder = CloudLayout.devicePath(phone.id)
        var thrown: (any Error)?
        do { try phone.sync() } catch { thrown = error }
        let failure = try #require(thrown, "the record could not be written: the sync must not say it went through")
        // The change file is in the cloud; only the record naming it is missing.
        #expect(fixture.storage.files.keys.contains { $0.hasPrefix(CloudLayout.changesFolder(phone.id)) })
        return (phone, laptop, casa, failure)
    }

    @Test("a word whose file no record names yet stays pending, and the failed sync does not call it uploaded")
    func staysPendingUntilNamed() throws {
        try withSyncFixture { fixture in
            let (phone, _, _, failure) = try restoredWhileTheRecordFails(fixture)
            #expect(try phone.pendingCount() == 1, "the restored word waits for a record naming its file")
            #expect(!"\(failure)".contains("uploaded"), "no device can read the file yet: \(failure)")
            // While the record keeps failing, the words are not sent again and again.
            let changeFiles = { fixture.storage.files.keys.filter { $0.hasPrefix(CloudLayout.changesFolder(phone.id) + "/") }.sorted() }
            let before = changeFiles()
            #expect(throws: (any Error).self) { try phone.sync() }
            #expect(throws: (any Error).self) { try phone.sync() }
            #expect(changeFiles() == before)
            fixture.storage.faults.failWritesUnder = nil
            let report = try phone.sync()
            #expect(try report.pushed == 1 && phone.pendingCount() == 0, "sent again, and counted once its record is out")
        }
    }

    @Test("Empty Trash on another device reads the file past the record, and leaves the word taken out of the Trash")
    func emptyTrashSeesTheUnnamedFile() throws {
        try withSyncFixture { fixture in
            let (phone, laptop, casa, _) = try restoredWhileTheRecordFails(fixture)
            // The sync before a permanent deletion, as `trash empty` and the Trash page run it.
            laptop.tune = { $0.findUnnamedFiles = true }
            let report = try laptop.sync()
            #expect(report.strayFiles == 1, "the phone's file its record does not name: \(report)")
            #expect(try !laptop.word(casa).isDeleted && laptop.word(casa).meaning == "house, home")
            #expect(try laptop.library.emptyTrash() == 0)
            laptop.tune = { $0.findUnnamedFiles = false }
            fixture.storage.faults.failWritesUnder = nil
            try fixture.syncRounds([phone, laptop])
            #expect(try phone.word(casa).meaning == "house, home" && laptop.everyWord() == phone.everyWord())
        }
    }

    /// Two copies of one library file (one id) that synced at the same moment both wrote
    /// change file 1 past the record; the record names the one whose record went out last.
    /// The other copy had taken "hola" out of the Trash and edited it, and a third device's
    /// Empty Trash purged it everywhere: the look before it read only files numbered past a
    /// record (found by the exploratory helper, round 21A #1).
    @Test("Empty Trash reads a copy's change file that the record of its id does not name, though numbered within it")
    func emptyTrashSeesTheOtherCopysFile() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
            let hola = try laptop.add("hola", meaning: "hello")
            let adios = try laptop.add("adiós", meaning: "bye")
            try fixture.syncRounds([laptop, phone])
            try phone.library.delete([hola])
            try fixture.syncRounds([phone, laptop])
            let copy = try fixture.copy(of: laptop, as: "laptop copy")
            // The copy takes "hola" out of the Trash and edits it; the laptop edits "adiós".
            try copy.library.restore([hola])
            _ = try copy.library.edit(hola, WordEdit(meaning: "hello, hi"))
            _ = try laptop.library.edit(adios, WordEdit(meaning: "goodbye"))
            // Both sync at once: the copy's whole sync runs as the laptop's is about to write
            // its change file; the laptop's record, written last, names the laptop's file only.
            var raced = false
            laptop.cloud.beforeWrite = { path in
                guard path.hasPrefix(CloudLayout.changesFolder(laptop.id)), !raced else { return }
                raced = true
                try copy.sync()
            }
            try laptop.sync()
            laptop.cloud.beforeWrite = nil
            #expect(raced && copy.id == laptop.id, "the copy wrote under the same id")

            phone.tune = { $0.findUnnamedFiles = true }
            try phone.sync()
            #expect(try !phone.word(hola).isDeleted && phone.word(hola).meaning == "hello, hi")
            #expect(try phone.library.emptyTrash() == 0)
            phone.tune = { $0.findUnnamedFiles = false }
            try fixture.syncRounds([laptop, copy, phone], 3)
            #expect(try laptop.word(hola).meaning == "hello, hi" && phone.everyWord() == laptop.everyWord())
        }
    }

    /// A record cut short (a sync program's half-delivered copy) stayed so until the daily
    /// rewrite, and no device read the restore it named (round 21A #4).
    @Test("a device whose own record in the cloud is cut short writes it again at its next sync")
    func ownRecordCutShortIsWrittenAgain() throws {
        try withSyncFixture { fixture in
            let phone = try fixture.device("phone"), laptop = try fixture.device("laptop")
            let casa = try phone.add("casa", meaning: "house")
            try fixture.syncRounds([phone, laptop])
            _ = try phone.library.edit(casa, WordEdit(meaning: "house, home"))
            try phone.sync()
            let path = CloudLayout.devicePath(phone.id)
            let whole = try #require(fixture.storage.files[path])
            fixture.storage.plant(path, whole.prefix(60))
            try phone.sync()
            #expect(try DeviceRecord.decode(#require(fixture.storage.files[path])) != nil, "written again")
            try laptop.sync()
            #expect(try laptop.word(casa).meaning == "house, home")
        }
    }

    @Test("an ordinary sync does not list the folders of devices heard from lately")
    func ordinarySyncListsNoFolders() throws {
        try withSyncFixture { fixture in
            let (_, laptop, casa, _) = try restoredWhileTheRecordFails(fixture)
            try laptop.sync()
            laptop.cloud.resetRequests()
            let report = try laptop.sync()
            let listed = laptop.cloud.requests("list", under: "changes") + laptop.cloud.requests("list", under: "snapshots")
            #expect(report.strayFiles == 0 && listed.isEmpty, "listed: \(listed)")
            #expect(try laptop.word(casa).isDeleted, "the phone's restore is not named by its record yet")
        }
    }

    @Test("a device whose record failed is told when a purge it could not be seen by takes its edit")
    func toldWhenThePurgeTookTheEdit() throws {
        try withSyncFixture { fixture in
            let (phone, laptop, casa, _) = try restoredWhileTheRecordFails(fixture)
            // A purge made without the look (an older MiDiccio, or `--offline` after a sync).
            try laptop.sync()
            #expect(try laptop.library.emptyTrash() == 1)
            try laptop.sync()
            fixture.storage.faults.failWritesUnder = nil
            let report = try phone.sync()
            #expect(report.purgedEditedHere == 1, "the edit made here was discarded: \(report)")
            #expect(try !phone.has(casa))
            try fixture.syncRounds([phone, laptop])
            #expect(try laptop.everyWord() == phone.everyWord())
        }
    }
}
