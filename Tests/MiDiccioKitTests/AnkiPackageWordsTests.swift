import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

@Suite("Words from an Anki package")
struct AnkiPackageWordsTests {
    /// Every word the library holds, as (term, meaning, reading, examples, notes, tags), by term.
    private func words(_ library: WordLibrary) throws -> [[String]] {
        try library.allStored().map(\.word).sorted { $0.term < $1.term }.map { word in
            [word.term, word.meaning, word.reading, word.examples.joined(separator: "|"), word.notes, word.tags.joined(separator: " ")]
        }
    }

    @Test("a legacy .apkg (genanki) gives one word a note: term, meaning, other fields as notes, tags and decks as tags")
    func legacyDeckPackage() throws {
        try withTemporaryLibrary { temporary in
            let report = try temporary.library.importWords(from: ankiFixture("words.apkg"))
            #expect(report.format == .apkg)
            #expect(report.added == 5)
            #expect(report.droppedMediaReferences == 4)
            #expect(report.notesWithoutTerm == 1)
            #expect(
                try words(temporary.library) == [
                    ["comer", "to eat\nto have lunch", "", "", "", "verb Spanish::Verbs"],
                    ["hablar", "to speak", "", "", "", "verb a1 Spanish::Verbs"],
                    ["perro", "dog & hound", "", "", "", "Spanish::Nouns"],
                    ["犬", "dog", "", "", "Reading: いぬ\nExample: 犬が好きです。", "animal JLPT::N5 Japanese_Vocab"],
                    ["猫", "cat", "", "", "Reading: ねこ", "animal Japanese_Vocab"],
                ])
        }
    }

    @Test(
        "a current .colpkg and .apkg (zstd-compressed collection.anki21b, schema 18) give the same words",
        arguments: ["words.colpkg", "words-latest.apkg"])
    func currentLayout(fixture: String) throws {
        try withTemporaryLibrary { temporary in
            let report = try temporary.library.importWords(from: ankiFixture(fixture))
            #expect(report.added == 3)
            #expect(report.droppedMediaReferences == 1)
            #expect(
                try words(temporary.library) == [
                    ["fromage", "cheese", "", "", "", "dairy food French::Food"],
                    ["pain", "bread", "", "", "", "food French::Food"],
                    // Its reverse card sits in another deck: both decks become tags.
                    ["pomme", "apple", "", "", "", "French::Food French::Review"],
                ])
        }
    }

    @Test("a package holding only the placeholder collection Anki writes for its older versions is refused, saying so")
    func placeholderOnly() throws {
        try withTemporaryLibrary { temporary in
            let package = ankiFixture("placeholder-only.apkg")
            let error = #expect(throws: LibraryError.self) { try temporary.library.importWords(from: package) }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("only the placeholder collection"), "\(message)")
            #expect(message.contains("collection.anki21b, which is not in this file"), "\(message)")
            let counts = try temporary.library.counts()
            #expect(counts.words == 0 && counts.trash == 0, "nothing was imported")
        }
    }

    @Test("the newest collection in the package is read, not the dummy collection.anki2 Anki writes beside it")
    func newestCollectionFirst() throws {
        let package = try AnkiPackage.read(from: ankiFixture("words.colpkg"))
        #expect(package.collectionName == "collection.anki21b")
        #expect(package.schema == 18)
        let legacy = try AnkiPackage.read(from: ankiFixture("words.apkg"))
        #expect(legacy.collectionName == "collection.anki2")
        #expect(legacy.schema == 11)
    }

    @Test("a package is recognised by its content, whatever its name; a .colpkg name says it holds a collection")
    func recognisedByContent() throws {
        try withTemporaryLibrary { temporary in
            let renamed = temporary.file("deck.bin")
            try fileBytes(ankiFixture("words.colpkg")).write(to: .init(fileURLWithPath: renamed))
            let report = try temporary.library.importSheet(from: renamed)
            #expect(report.format == .apkg)
            #expect(report.added == 3)
            #expect(try temporary.library.importWords(from: ankiFixture("words.colpkg")).format == .colpkg)
        }
    }

    @Test("deck names become tags: :: nesting kept, spaces made _, Default left out, long names keep their first and last parts")
    func deckTags() {
        #expect(AnkiPackage.tag(deck: ["Spanish", "Verbs"], id: 7) == "Spanish::Verbs")
        #expect(AnkiPackage.tag(deck: ["Japanese Vocab", "N5  words"], id: 7) == "Japanese_Vocab::N5_words")
        #expect(AnkiPackage.tag(deck: ["Default"], id: 1) == nil)
        #expect(AnkiPackage.tag(deck: ["Default"], id: 8) == "Default")
        let long = AnkiPackage.tag(deck: [String(repeating: "a", count: 40), String(repeating: "b", count: 30), "c"], id: 7)
        #expect(long == String(repeating: "a", count: 40) + "::…::c")
        // Two decks with the same long tail keep their languages apart (round 11).
        let tail = ["Grammar_and_usage", "Verbs", "Irregular_verbs_of_the_first_conjugation"]
        let french = AnkiPackage.tag(deck: ["French"] + tail, id: 7), spanish = AnkiPackage.tag(deck: ["Spanish"] + tail, id: 8)
        #expect(french == "French::…::Verbs::Irregular_verbs_of_the_first_conjugation")
        #expect(spanish?.hasPrefix("Spanish::") == true && french != spanish)
        // One long part keeps its start and a fingerprint of the whole, so two stay two.
        let x = AnkiPackage.tag(deck: [String(repeating: "x", count: 70)], id: 7)
        let y = AnkiPackage.tag(deck: [String(repeating: "x", count: 69) + "y"], id: 7)
        #expect(x?.count == WordLimits.tagLength && y?.count == WordLimits.tagLength && x != y)
        #expect(x?.hasPrefix(String(repeating: "x", count: 55)) == true)
    }
}
