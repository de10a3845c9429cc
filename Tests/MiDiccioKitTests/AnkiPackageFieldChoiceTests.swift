import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

@Suite("Choosing an Anki note type's fields")
struct AnkiPackageFieldChoiceTests {
    @Test("--fields picks the term's and the meaning's fields by name, ignoring case, one choice a note type")
    func namedFields() throws {
        let package = try AnkiPackage.read(from: ankiFixture("words.apkg"), fields: [["back", "front"], ["Meaning", "Reading"]])
        let rows = package.rows.map { [$0.term, $0.meaning, $0.notes] }
        #expect(
            rows.sorted { $0[0] < $1[0] } == [
                ["cat", "ねこ", "Word: 猫"],
                ["dog", "いぬ", "Word: 犬\nExample: 犬が好きです。"],
                ["dog & hound", "perro", ""],
                ["house", "", ""],
                ["to eat\nto have lunch", "comer", ""],
                ["to speak", "hablar", ""],
            ])
        // The image-only front is now the meaning: no note is left out.
        #expect(package.notesWithoutTerm == 0)
    }

    @Test("one field name gives the term only; the other fields go to the notes")
    func termOnly() throws {
        let package = try AnkiPackage.read(from: ankiFixture("words.colpkg"), fields: [["Back"]])
        #expect(
            package.rows.map { [$0.term, $0.meaning, $0.notes] } == [
                ["bread", "", "Front: pain"], ["cheese", "", "Front: fromage"], ["apple", "", "Front: pomme"],
            ])
    }

    @Test("a note type without the fields asked for is an error that names it and its fields, and nothing is imported")
    func missingField() throws {
        try withTemporaryLibrary { temporary in
            let before = try temporary.library.snapshot()
            #expect {
                try temporary.library.importWords(from: ankiFixture("words.apkg"), options: .anki(fields: [["Front", "Back"]]))
            } throws: { error in
                let text = String(describing: error)
                return text.contains("words.apkg") && text.contains("\"Vocabulary\"")
                    && text.contains("Word, Meaning, Reading, Example") && text.contains("nothing was imported")
            }
            #expect(try temporary.library.snapshot() == before)
        }
    }
}
