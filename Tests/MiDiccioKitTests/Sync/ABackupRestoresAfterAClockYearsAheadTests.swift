import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: a backup MiDiccio wrote restores, whatever times sync brought into the library.
/// A device whose year was set wrong (2029 typed for 2026) stamps its edits and answers
/// three years ahead, and sync takes them; restoring refused any such time, so after one
/// sync from that device every later backup of every device was refused ("its time … is
/// in the future"): on a new computer, merged or replacing (found by the exploratory
/// helper, round 12C). A word keeps its times, as sync takes it; an answer dated that
/// far ahead (or before 2000) is left out, as a hand-edited answer of 2999 made its word
/// due in 2999 everywhere (round 7); both are counted and told.
@Suite("A backup restores after a clock years ahead")
struct ABackupRestoresAfterAClockYearsAheadTests {
    static let threeYears: Int64 = 3 * 365 * SyncFixture.day

    @Test("the laptop's backup, after a phone three years ahead synced an edit and an answer, restores on a new computer and on itself")
    func backupAfterAClockAheadRestores() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let perro = try laptop.add("perro", meaning: "dgo")
            let gato = try laptop.add("gato", meaning: "cat")
            try laptop.library.review(gato, grade: .good)
            let phone = try fixture.device("phone", clockOffset: Self.threeYears)
            try fixture.syncRounds([laptop, phone])
            _ = try phone.library.edit(perro, WordEdit(meaning: "dog"))
            try phone.library.review(perro, grade: .good)
            try fixture.syncRounds([phone, laptop])
            #expect(try laptop.word(perro).meaning == "dog")

            let backup = fixture.file("backup.json")
            fixture.advanceClocks(by: 7 * SyncFixture.day)
            try laptop.library.exportBackup(to: backup)

            let newComputer = try fixture.device("new computer")
            let report = try newComputer.library.restoreBackup(from: backup)
            #expect(report.added == 2)
            #expect(report.wordsAhead == 1)
            #expect(report.answersLeftOut == 1)
            #expect(report.answersAdded == 1)
            #expect(try newComputer.word(perro).meaning == "dog")
            #expect(try newComputer.word(perro).updatedAt == laptop.word(perro).updatedAt)
            #expect(try newComputer.library.reviewEvents(of: gato) == laptop.library.reviewEvents(of: gato))
            #expect(try newComputer.library.reviewEvents(of: perro).isEmpty)
            let note = try #require(report.strayTimesNote)
            #expect(note.contains("1 word keeps its time") && note.contains("1 study answer is left out"), "\(note)")
            // This computer's clock may be the wrong one (round 22A #6): the note says what it reads.
            let reading = "this computer's clock, which reads \(newComputer.clock.now().iso8601)"
            #expect(note.contains(reading) && note.contains("this computer's clock is wrong now"), "\(note)")

            // The laptop itself, merging and replacing: the restore goes through.
            #expect(try laptop.library.restoreBackup(from: backup).unchanged == 2)
            #expect(try laptop.library.restoreBackup(from: backup, replace: true).wordsAhead == 1)
            #expect(try laptop.word(perro).meaning == "dog")

            // The new computer then syncs with the others: every word and answer alike.
            try fixture.syncRounds([newComputer, laptop, phone])
            for device in [laptop, phone] {
                #expect(try newComputer.everyWord().map(\.meaning) == device.everyWord().map(\.meaning))
                #expect(try newComputer.library.reviewEventCount() == device.library.reviewEventCount())
            }
        }
    }

    @Test("a backup without stray times says nothing of them")
    func noStrayTimesNoNote() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let gato = try laptop.add("gato", meaning: "cat")
            try laptop.library.review(gato, grade: .good)
            let backup = fixture.file("backup.json")
            try laptop.library.exportBackup(to: backup)
            let report = try fixture.device("new computer").library.restoreBackup(from: backup)
            #expect(report.wordsAhead == 0 && report.answersLeftOut == 0)
            #expect(report.strayTimesNote == nil)
        }
    }
}
