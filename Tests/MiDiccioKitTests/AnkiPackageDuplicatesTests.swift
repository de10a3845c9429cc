import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

@Suite("Anki package words already in the library")
struct AnkiPackageDuplicatesTests {
    @Test("a second import with --no-duplicates skips every word; without it, it adds them and counts them")
    func secondImport() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            #expect(try library.importWords(from: ankiFixture("words.colpkg")).added == 3)
            let skipped = try library.importWords(from: ankiFixture("words.colpkg"), options: .anki(skipDuplicates: true))
            #expect(skipped.added == 0)
            #expect(skipped.skippedDuplicates == 3)
            #expect(try library.allStored().count == 3)

            let again = try library.importWords(from: ankiFixture("words.colpkg"))
            #expect(again.added == 3)
            #expect(again.duplicatesAdded == 3)
        }
    }

    @Test("the .colpkg and the .apkg of one collection share their words: the second adds nothing new")
    func samePairTwoPackages() throws {
        try withTemporaryLibrary { temporary in
            _ = try temporary.library.add(WordContent(term: "Pain", meaning: "mine, typed by hand"))
            let report = try temporary.library.importWords(from: ankiFixture("words-latest.apkg"), options: .anki(skipDuplicates: true))
            // "pain" matches "Pain", ignoring case.
            #expect(report.added == 2)
            #expect(report.skippedDuplicates == 1)
        }
    }
}
