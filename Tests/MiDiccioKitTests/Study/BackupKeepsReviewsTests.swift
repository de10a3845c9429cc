import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a backup holds the review history (backup format version 2); restoring it into
/// another library gives the same schedules there, and the restored events reach other
/// devices. Version 1 files, without a history, still restore.
@Suite("A backup keeps the review history")
struct BackupKeepsReviewsTests {
    @Test("rule: a backup round trip keeps the history, and the restored events reach another device")
    func roundTrip() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            let perro = try a.add("perro", meaning: "dog")
            let gato = try a.add("gato", meaning: "cat")
            try a.library.review(perro, grade: .good)
            a.clock.advance(by: 10 * 60_000)
            try a.library.review(perro, grade: .good)
            try a.library.review(gato, grade: .again)
            let backup = fixture.file("backup.json")
            try a.library.exportBackup(to: backup)
            let text = try String(contentsOfFile: backup, encoding: .utf8)
            #expect(text.contains("\"version\": 2"))
            #expect(text.contains("\"grade\": \"again\""))

            // A fresh library (a new phone) restores it, then syncs; b learns from the cloud.
            let phone = try fixture.device("phone"), b = try fixture.device("b")
            _ = try phone.library.restoreBackup(from: backup)
            #expect(try phone.library.reviewEvents(of: perro) == a.library.reviewEvents(of: perro))
            #expect(try phone.library.studySchedule(of: perro) == a.library.studySchedule(of: perro))
            #expect(try phone.library.studySchedule(of: gato).state == .learning)
            try fixture.syncRounds([phone, b])
            #expect(try b.library.reviewEventCount() == 3)
            #expect(try b.library.studySchedule(of: perro) == a.library.studySchedule(of: perro))

            // Restoring the same file again adds nothing: an event is here or not.
            _ = try phone.library.restoreBackup(from: backup)
            #expect(try phone.library.reviewEventCount() == 3)
        }
    }

    @Test("a word purged, then brought back by a replace restore under a new id, comes back with its history, everywhere")
    func purgedWordReplacedKeepsItsHistory() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let perro = try a.add("perro", meaning: "dog")
            try a.library.review(perro, grade: .good)
            a.clock.advance(by: 10 * 60_000)
            try a.library.review(perro, grade: .easy)
            let studied = try a.library.studySchedule(of: perro)
            let backup = fixture.file("backup.json")
            try a.library.exportBackup(to: backup)
            try fixture.syncRounds([a, b])
            try a.library.delete([perro])
            try a.library.purge([perro])
            try fixture.syncRounds([a, b])

            // A merge leaves a purged word out, history and all; a replace brings it back.
            _ = try a.library.restoreBackup(from: backup)
            #expect(try a.library.reviewEventCount() == 0)
            let report = try a.library.restoreBackup(from: backup, replace: true)
            #expect(report.added == 1)
            let back = perro.restoredAfterPurge
            #expect(try a.word(back).term == "perro")
            #expect(try a.library.reviewEvents(of: back).map(\.grade) == [.good, .easy])
            // Studied, not new (the due date's fuzz is drawn from the id, so it may differ).
            let schedule = try a.library.studySchedule(of: back)
            #expect(schedule.state == studied.state && schedule.stability == studied.stability && schedule.difficulty == studied.difficulty)
            #expect(try a.library.reviewEvents(of: perro).isEmpty, "the purged id stays without events")
            try fixture.syncRounds([a, b])
            #expect(try b.library.studySchedule(of: back) == schedule)
        }
    }

    @Test("a version 1 backup, without a review history, still restores")
    func versionOne() throws {
        try withTemporaryLibrary { fixture in
            let id = WordID("3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b")!
            let text = """
                {"format": "midiccio-backup", "version": 1, "exportedAt": "2026-11-29T10:00:00.123Z", "wordCount": 1,
                 "words": [{"id": "\(id)", "term": "casa", "meaning": "house", "reading": "", "examples": [], "notes": "",
                            "tags": [], "createdAt": "2026-11-29T10:00:00.000Z", "updatedAt": "2026-11-29T10:00:00.000Z",
                            "deletedAt": null}]}
                """
            try writeText(text, to: fixture.file("old.json"))
            let report = try fixture.library.restoreBackup(from: fixture.file("old.json"))
            #expect(report.added == 1)
            #expect(try fixture.library.word(id)?.term == "casa")
            #expect(try fixture.library.studySchedule(of: id) == .new)
        }
    }

    @Test("a backup with a damaged review entry is refused, naming the entry, and changes nothing")
    func damagedReview() throws {
        try withTemporaryLibrary { fixture in
            let word = try fixture.library.add(WordContent(term: "uno")).word
            try fixture.library.review(word.id, grade: .good)
            try fixture.library.exportBackup(to: fixture.file("b.json"))
            let text = try String(contentsOfFile: fixture.file("b.json"), encoding: .utf8)
            try writeText(
                text.replacingOccurrences(of: "\"grade\": \"good\"", with: "\"grade\": \"perfect\""), to: fixture.file("bad.json"))
            let other = try fixture.sibling("other.sqlite").0
            #expect {
                try other.restoreBackup(from: fixture.file("bad.json"))
            } throws: { error in
                "\(error)".contains("review 1") && "\(error)".contains("grade")
            }
            #expect(try other.counts().words == 0)
            #expect(try other.reviewEventCount() == 0)
        }
    }

    @Test(
        "answers no device gave are refused, naming the entry and changing nothing: seconds below zero, of no word",
        arguments: [
            ("\"seconds\": -5", "from 0 to 86400"),
            ("\"word\": \"00000000-0000-4000-8000-000000000000\"", "neither in the backup nor in this library"),
        ])
    func answersNoDeviceGave(edit: String, message: String) throws {
        try withTemporaryLibrary { fixture in
            try Self.backupWithAnAnswerEdited(fixture, edit)
            let other = try fixture.sibling("other.sqlite").0
            for replace in [false, true] {
                #expect {
                    try other.restoreBackup(from: fixture.file("bad.json"), replace: replace)
                } throws: { error in
                    "\(error)".contains("review 1") && "\(error)".contains(message)
                }
                #expect(try other.counts().words == 0)
                #expect(try other.reviewEventCount() == 0)
            }
        }
    }

    @Test("an answer recorded as taking more than a day (a card left shown overnight) restores as a day; one given now is kept to a day")
    func answerOverADay() throws {
        try withTemporaryLibrary { fixture in
            let word = try Self.backupWithAnAnswerEdited(fixture, "\"seconds\": 200000")
            let other = try fixture.sibling("other.sqlite").0
            _ = try other.restoreBackup(from: fixture.file("bad.json"))
            #expect(try other.reviewEvents(of: word).map(\.seconds) == [ReviewEvent.longestSeconds])
            let (event, _) = try other.answer(word, grade: .good, seconds: 150_000)
            #expect(event.seconds == ReviewEvent.longestSeconds)
            #expect(try other.reviewEvents(of: word).last?.seconds == ReviewEvent.longestSeconds)
        }
    }

    @Test(
        "answers dated more than two years ahead or before 2000 are left out and counted, and the rest of the backup restores",
        arguments: ["2999-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z"])
    func answersOutOfTimeLeftOut(time: String) throws {
        try withTemporaryLibrary { fixture in
            let word = try Self.backupWithAnAnswerEdited(fixture, "\"time\": \"\(time)\"")
            let other = try fixture.sibling("other.sqlite").0
            for replace in [false, true] {
                let report = try other.restoreBackup(from: fixture.file("bad.json"), replace: replace)
                #expect(report.answersLeftOut == 1 && report.answersAdded == 0)
                #expect(report.strayTimeRange?.lowerBound.iso8601 == time)
                #expect(try other.word(word)?.term == "uno")
                #expect(try other.reviewEventCount() == 0)
            }
        }
    }

    /// Writes `bad.json`: a backup of a library holding the word "uno" (returned) and one
    /// answer to it, with `edit` (`"field": value`) put into the answer.
    @discardableResult
    private static func backupWithAnAnswerEdited(_ fixture: TemporaryLibrary, _ edit: String) throws -> WordID {
        let word = try fixture.library.add(WordContent(term: "uno")).word
        try fixture.library.review(word.id, grade: .good)
        try fixture.library.exportBackup(to: fixture.file("b.json"))
        var text = try String(contentsOfFile: fixture.file("b.json"), encoding: .utf8)
        let field = String(edit.prefix { $0 != ":" })
        let start = try #require(text.range(of: "{\"word\"")?.lowerBound)
        let entry = try #require(text[start...].range(of: "}"))
        var review = String(text[start..<entry.upperBound])
        let old = try #require(review.range(of: field + #": [^,}]+"#, options: .regularExpression))
        review.replaceSubrange(old, with: edit)
        text.replaceSubrange(start..<entry.upperBound, with: review)
        try writeText(text, to: fixture.file("bad.json"))
        return word.id
    }
}
