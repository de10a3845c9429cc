import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

@Suite("Study settings are checked and shape the schedule")
struct StudySettingsTests {
    @Test(
        "invalid study values are refused with a clear error and change nothing",
        arguments: [
            (LibrarySetting.desiredRetention, "0.5"), (.desiredRetention, "1"), (.desiredRetention, "abc"),
            (.newPerDay, "-1"), (.newPerDay, "10000"), (.newPerDay, "1.5"), (.reviewsPerDay, "off"), (.reviewsPerDay, ""),
        ])
    func invalid(setting: LibrarySetting, value: String) throws {
        try withTemporaryLibrary { fixture in
            let error = try #require(throws: LibraryError.self) { try fixture.library.setSetting(setting, to: value) }
            #expect(error.description.contains(setting.rawValue), "\(error)")
            #expect(try fixture.library.setting(setting) == setting.defaultValue)
        }
    }

    @Test("a higher desired retention gives a shorter interval for the same answers")
    func retention() throws {
        try withTemporaryLibrary { fixture in
            let id = try fixture.library.add(WordContent(term: "uno")).word.id
            let relaxed = try fixture.library.review(id, grade: .easy)
            try fixture.library.setSetting(.desiredRetention, to: "0.97")
            let strict = try fixture.library.studySchedule(of: id)
            #expect(try #require(strict.intervalDays) < (try #require(relaxed.intervalDays)))
        }
    }

    @Test("the daily new limit caps new words, and words studied today count against it")
    func newLimit() throws {
        try withTemporaryLibrary { fixture in
            for number in 0..<5 { try fixture.library.add(WordContent(term: "palabra \(number)")) }
            try fixture.library.setSetting(.newPerDay, to: "3")
            let first = try fixture.library.studyQueue()
            #expect(first.new.count == 3)
            try fixture.library.review(first.new[0].word.id, grade: .easy)
            #expect(try fixture.library.studyQueue().new.count == 2, "one of today's three is used")
            #expect(try fixture.library.studyQueue(newLimit: 4).new.count == 4, "--new overrides it for a session")
            #expect(try fixture.library.undoLastReview()?.grade == .easy)
            #expect(try fixture.library.studyQueue().new.count == 3, "undo gives it back")
            #expect(try fixture.library.undoLastReview() == nil)
        }
    }
}
