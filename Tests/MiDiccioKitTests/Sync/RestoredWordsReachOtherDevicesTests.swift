import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule (product notes, bug 2): words restored from a backup, or by undoing a restore,
/// reach the other devices.
@Suite("Words restored from a backup, or by undoing a restore, reach the other devices")
struct RestoredWordsReachOtherDevicesTests {
    @Test("words restored from another phone's backup reach the other device, and undoing the restore does too")
    func mergedRestoreAndUndoReachOtherDevice() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let oldPhone = try fixture.device("old-phone")  // never syncs
            let kept = try a.add("agua", meaning: "water")
            let restored = [
                try oldPhone.add("fuego", meaning: "fire"), try oldPhone.add("tierra", meaning: "earth"),
                try oldPhone.add("aire", meaning: "air", tags: ["elementos"]),
            ]
            let backup = fixture.file("old-phone.json")
            try oldPhone.library.exportBackup(to: backup)
            try fixture.syncRounds([a, b])

            let report = try a.library.restoreBackup(from: backup)
            #expect(report.added == 3)
            #expect(try a.pendingCount() == 3, "restored words are pending")
            try fixture.syncRounds([a, b])
            for id in restored {
                let word = try b.word(id)
                #expect(try word == oldPhone.word(id), "b has the restored word as the backup held it")
                #expect(!word.isDeleted)
            }
            #expect(try b.word(kept).meaning == "water")

            let undo = try a.library.undoRestore()
            #expect(undo.trashed == 3)
            try fixture.syncRounds([a, b])
            for id in restored {
                #expect(try b.word(id).isDeleted, "undoing the restore moved the word to the Trash on b too")
            }
            #expect(try b.word(kept).isDeleted == false)
            #expect(try a.everyWord() == b.everyWord())
        }
    }

    @Test("a newer copy of a word restored from a backup reaches the other device, and undoing it brings the old one back everywhere")
    func newerBackupCopyAndUndoReachOtherDevice() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("libro", meaning: "book")
            try fixture.syncRounds([a, b])
            let original = try a.word(id)

            // A backup made on a device that edited the word later than anyone here.
            var newer = original
            newer.meaning = "book (from the backup)"
            newer.notes = "restored"
            newer.updatedAt = Timestamp(milliseconds: a.clock.now().milliseconds + 60_000)
            let backup = fixture.file("newer.json")
            try Data(BackupFile.encode([newer], exportedAt: newer.updatedAt).utf8).write(to: URL(fileURLWithPath: backup))

            fixture.advanceClocks(by: 120_000)
            let report = try a.library.restoreBackup(from: backup)
            #expect(report.updated == 1)
            #expect(try a.stored(id).pending)
            try fixture.syncRounds([a, b])
            #expect(try b.word(id).meaning == "book (from the backup)")
            #expect(try b.word(id).notes == "restored")

            _ = try a.library.undoRestore()
            try fixture.syncRounds([a, b])
            #expect(try a.word(id).meaning == "book")
            #expect(try b.word(id).meaning == "book", "the undo reached b")
            #expect(try b.word(id).notes == "")
            #expect(try a.word(id) == b.word(id))
        }
    }

    @Test("restoring an old backup with --replace reaches the other device, and so does undoing it")
    func replaceRestoreAndUndoReachOtherDevice() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let x = try a.add("mesa", meaning: "table")
            let y = try a.add("silla", meaning: "chair")
            let backup = fixture.file("a.json")
            try a.library.exportBackup(to: backup)

            a.clock.advance(by: 1_000)
            try a.library.edit(x, WordEdit(meaning: "table (v2)"))
            let z = try a.add("puerta", meaning: "door")
            try fixture.syncRounds([a, b])
            try b.library.edit(y, WordEdit(notes: "note written on b"))
            try fixture.syncRounds([a, b])
            let beforeRestore = try a.everyWord()
            #expect(try b.everyWord() == beforeRestore)

            fixture.advanceClocks(by: 1_000)
            let report = try a.library.restoreBackup(from: backup, replace: true)
            #expect(report.trashed == 1)
            try fixture.syncRounds([a, b])
            #expect(try b.word(x).meaning == "table", "the backup's meaning wins on b")
            #expect(try b.word(y).notes == "", "the library became the backup on b too")
            #expect(try b.word(z).isDeleted, "a word not in the backup went to the Trash on b too")
            #expect(try a.everyWord() == b.everyWord())

            fixture.advanceClocks(by: 1_000)
            _ = try a.library.undoRestore()
            try fixture.syncRounds([a, b])
            #expect(try b.word(x).meaning == "table (v2)")
            #expect(try b.word(y).notes == "note written on b")
            #expect(try b.word(z).isDeleted == false)
            #expect(try a.everyWord() == b.everyWord())
            #expect(try a.everyWord().map(\.content) == beforeRestore.map(\.content))
        }
    }
}
