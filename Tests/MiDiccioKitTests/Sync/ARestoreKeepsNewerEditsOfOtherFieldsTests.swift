import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A backup keeps one `updatedAt` per word. A merge restore took every field that
/// differed from a backup word newer than the library's, stamped with that time: an old
/// phone that edited a word's meaning after another device had edited its notes and tags
/// brought back the old notes and tags, on every device (found by the exploratory helper).
/// Backups now carry each field's time (`times`), and a merge takes a field only where
/// the backup's copy of it is newer.
@Suite("A restore takes from a backup only the fields it has newer, and keeps newer edits of the others")
struct ARestoreKeepsNewerEditsOfOtherFieldsTests {
    /// A laptop, a tablet and a phone that synced one word (m0, n0, t0); every clock then
    /// a minute on.
    private func threeDevices(_ fixture: SyncFixture) throws -> (laptop: TestDevice, tablet: TestDevice, phone: TestDevice, id: WordID) {
        let laptop = try fixture.device("laptop"), tablet = try fixture.device("tablet"), phone = try fixture.device("phone")
        let id = try laptop.add("palabra", meaning: "m0", notes: "n0", tags: ["t0"])
        try fixture.syncRounds([laptop, tablet, phone])
        fixture.advanceClocks(by: 60_000)
        return (laptop, tablet, phone, id)
    }

    /// The phone edits the word's meaning, and a backup of it is written; returns its path.
    private func phoneBackup(_ fixture: SyncFixture, _ phone: TestDevice, _ id: WordID, meaning: String) throws -> String {
        _ = try phone.library.edit(id, WordEdit(meaning: meaning))
        let backup = fixture.file("phone.json")
        try phone.library.exportBackup(to: backup)
        return backup
    }

    @Test("an old phone's backup, whose meaning is newer and notes and tags older, keeps another device's notes and tag everywhere")
    func newerFieldsElsewhereStay() throws {
        try withSyncFixture { fixture in
            let (laptop, tablet, phone, id) = try threeDevices(fixture)
            // The phone stops syncing. The tablet edits the notes and adds a tag, then the
            // phone edits the meaning, later, and a backup is made of it.
            _ = try tablet.library.edit(id, WordEdit(notes: "n1 from the tablet", addTags: ["tablet"]))
            try fixture.syncRounds([tablet, laptop])
            fixture.advanceClocks(by: 60_000)
            let backup = try phoneBackup(fixture, phone, id, meaning: "m3 from the phone")

            let report = try laptop.library.restoreBackup(from: backup)
            #expect(report.updated == 1)
            let restored = try laptop.word(id)
            #expect(restored.meaning == "m3 from the phone")
            #expect(restored.notes == "n1 from the tablet")
            #expect(restored.tags == ["t0", "tablet"])
            try fixture.syncRounds([laptop, tablet])
            #expect(try tablet.word(id) == laptop.word(id))

            // Restored again, nothing is newer in the backup: nothing changes.
            #expect(try laptop.library.restoreBackup(from: backup).unchanged == 1)
        }
    }

    @Test("a field the backup has newer with the library's own value still takes the backup's time, and wins everywhere")
    func sameValueNewerTime() throws {
        try withSyncFixture { fixture in
            let (laptop, tablet, phone, id) = try threeDevices(fixture)
            // The tablet edits the meaning; the phone pulls it and undoes it by hand (back to
            // m0), offline, and a backup of it is made. The laptop has pulled nothing.
            _ = try tablet.library.edit(id, WordEdit(meaning: "m1 from the tablet"))
            try fixture.syncRounds([tablet, phone])
            fixture.advanceClocks(by: 60_000)
            let backup = try phoneBackup(fixture, phone, id, meaning: "m0")
            #expect(try laptop.word(id).meaning == "m0")

            #expect(try laptop.library.restoreBackup(from: backup).updated == 1, "the value is the same; its time is newer")
            try fixture.syncRounds([laptop, tablet])
            #expect(try laptop.word(id).meaning == "m0")
            #expect(try tablet.word(id).meaning == "m0", "the phone's later edit wins, as it would have by syncing")
        }
    }

    @Test("a restore that changes nothing keeps the undo of the restore before it")
    func aRestoreThatChangesNothingKeepsTheUndo() throws {
        try withSyncFixture { fixture in
            let (laptop, _, phone, id) = try threeDevices(fixture)
            let backup = try phoneBackup(fixture, phone, id, meaning: "m1 from the phone")
            #expect(try laptop.library.restoreBackup(from: backup).updated == 1)
            let again = try laptop.library.restoreBackup(from: backup)
            #expect(again.unchanged == 1 && !again.changedWords)
            #expect(try laptop.library.undoRestore().updated == 1, "the first restore can still be undone")
            #expect(try laptop.word(id).meaning == "m0")
        }
    }

    @Test("a restore that adds study answers only keeps them, says how many, and keeps the undo of the restore before it")
    func aRestoreThatAddsAnswersOnlyKeepsTheUndo() throws {
        try withSyncFixture { fixture in
            let (laptop, _, phone, id) = try threeDevices(fixture)
            let backup = try phoneBackup(fixture, phone, id, meaning: "m1 from the phone")
            try phone.library.review(id, grade: .good)
            let withAnswer = fixture.file("with-answer.json")
            try phone.library.exportBackup(to: withAnswer)

            #expect(try laptop.library.restoreBackup(from: backup).updated == 1)
            let dry = try laptop.library.restoreBackup(from: withAnswer, dryRun: true)
            #expect(dry.answersAdded == 1 && !dry.changedWords)
            let answers = try laptop.library.restoreBackup(from: withAnswer)
            #expect(answers.unchanged == 1 && !answers.changedWords && answers.answersAdded == 1)
            #expect(try laptop.library.reviewEvents(of: id).count == 1)
            #expect(try laptop.library.undoRestore().updated == 1, "the first restore can still be undone")
            #expect(try laptop.word(id).meaning == "m0")
            #expect(try laptop.library.reviewEvents(of: id).count == 1, "an answer is an event: the undo leaves it")
        }
    }

    @Test("undoing such a restore keeps a word with a field pulled since, even when the word's time did not move")
    func undoKeepsAFieldPulledSince() throws {
        try withSyncFixture { fixture in
            let (laptop, tablet, phone, id) = try threeDevices(fixture)
            // In this order: the phone's meaning (then its backup), the tablet's meaning
            // (not synced yet), the laptop's notes, which stay the word's newest change.
            let backup = try phoneBackup(fixture, phone, id, meaning: "m1 from the phone")
            fixture.advanceClocks(by: 60_000)
            _ = try tablet.library.edit(id, WordEdit(meaning: "m2 from the tablet"))
            fixture.advanceClocks(by: 60_000)
            _ = try laptop.library.edit(id, WordEdit(notes: "n3 from the laptop", addTags: ["laptop"]))
            let before = try laptop.word(id)

            #expect(try laptop.library.restoreBackup(from: backup).updated == 1)
            #expect(try laptop.word(id).meaning == "m1 from the phone")
            #expect(try laptop.word(id).updatedAt == before.updatedAt, "the notes are still the newest change")
            try fixture.syncRounds([tablet, laptop])
            #expect(try laptop.word(id).meaning == "m2 from the tablet", "the tablet's meaning is newer than the backup's")

            let undo = try laptop.library.undoRestore()
            #expect(undo.keptEdited == 1)
            let after = try laptop.word(id)
            #expect(after.meaning == "m2 from the tablet", "an edit pulled after the restore is kept")
            #expect(after.notes == "n3 from the laptop" && after.tags == ["t0", "laptop"])
            try fixture.syncRounds([laptop, tablet, phone])
            #expect(try tablet.word(id) == laptop.word(id))
            #expect(try phone.word(id) == laptop.word(id))
        }
    }

    @Test("undoing a restore still puts back the fields it took, field by field")
    func undoPutsBackWhatItTook() throws {
        try withSyncFixture { fixture in
            let (laptop, _, phone, id) = try threeDevices(fixture)
            let backup = try phoneBackup(fixture, phone, id, meaning: "m1 from the phone")
            fixture.advanceClocks(by: 60_000)
            _ = try laptop.library.edit(id, WordEdit(notes: "n2 here"))
            #expect(try laptop.library.restoreBackup(from: backup).updated == 1)
            #expect(try laptop.word(id).meaning == "m1 from the phone")
            let undo = try laptop.library.undoRestore()
            #expect(undo.updated == 1 && undo.keptEdited == 0)
            #expect(try laptop.word(id).meaning == "m0")
            #expect(try laptop.word(id).notes == "n2 here")
        }
    }

    @Test("a backup written before field times (no 'times') still restores as before: a newer word replaces every field")
    func backupWithoutTimes() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
            let id = try laptop.add("palabra", meaning: "m0", notes: "n0")
            try fixture.syncRounds([laptop, phone])
            fixture.advanceClocks(by: 60_000)
            _ = try laptop.library.edit(id, WordEdit(notes: "n1 here"))
            fixture.advanceClocks(by: 60_000)
            _ = try phone.library.edit(id, WordEdit(meaning: "m3 there"))
            let word = try phone.word(id)
            let backup = fixture.file("old-format.json")
            try Data(BackupFile.encode([word], exportedAt: word.updatedAt).utf8).write(to: URL(fileURLWithPath: backup))
            #expect(!(try String(contentsOfFile: backup, encoding: .utf8).contains("\"times\"")))
            #expect(try laptop.library.restoreBackup(from: backup).updated == 1)
            #expect(try laptop.word(id).meaning == "m3 there")
            #expect(try laptop.word(id).notes == "n0", "the whole-word rule of such files")
        }
    }

    @Test("an export gives every field's time, and reading it back gives the library's times")
    func exportCarriesTimes() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let id = try laptop.add("palabra", meaning: "m0")
            fixture.advanceClocks(by: 5_000)
            _ = try laptop.library.edit(id, WordEdit(notes: "later"))
            let backup = fixture.file("backup.json")
            try laptop.library.exportBackup(to: backup)
            let entries = try BackupFile.decodeEntries(try Data(contentsOf: URL(fileURLWithPath: backup)), file: backup)
            let stored = try #require(try laptop.library.stored(id))
            #expect(entries.count == 1)
            #expect(entries.first?.times == stored.times)
            #expect(entries.first?.times?.notes != entries.first?.times?.meaning)
        }
    }

    @Test("a word whose stored time is older than one of its fields' still exports a backup that restores")
    func inconsistentStoredTimes() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let id = try laptop.add("palabra", meaning: "m0")
            try laptop.library.database.run(
                "UPDATE words SET updated_at = updated_at - 5000, created_at = created_at - 5000 WHERE id = ?", [.text(id.rawValue)])
            let backup = fixture.file("backup.json")
            try laptop.library.exportBackup(to: backup)
            let other = try fixture.device("other")
            #expect(try other.library.restoreBackup(from: backup).added == 1)
            #expect(try other.word(id).meaning == "m0")
        }
    }

    @Test(
        "bad field times are refused, naming the entry and the field, and nothing is restored",
        arguments: [
            (#""times": {"notes": "yesterday"}"#, #"entry 1, field "times.notes""#, "must be a UTC time"),
            (#""times": {"meaning": "2030-01-01T00:00:00.000Z"}"#, #"entry 1, field "times.meaning""#, "is later than updatedAt"),
            (#""times": ["2026-11-29T10:00:00.000Z"]"#, #"entry 1, field "times""#, "must be an object of times"),
        ])
    func badTimes(times: String, location: String, message: String) throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let backup = fixture.file("bad.json")
            let text = """
                {"format": "midiccio-backup", "version": 2, "words": [
                  {"id": "3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b", "term": "palabra", "createdAt": "2026-11-29T09:00:00.000Z",
                   "updatedAt": "2026-11-29T10:00:00.000Z", \(times)}]}
                """
            try Data(text.utf8).write(to: URL(fileURLWithPath: backup))
            let error = try #require(throws: LibraryError.self) { try laptop.library.restoreBackup(from: backup) }
            #expect("\(error)".contains(location) && "\(error)".contains(message), "\(error)")
            #expect(try laptop.library.counts().words == 0)
        }
    }
}
