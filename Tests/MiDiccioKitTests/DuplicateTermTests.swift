import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Duplicate terms")
struct DuplicateTermTests {
    @Test(
        "a term already in the library, ignoring case and accents, is reported and still added",
        arguments: [
            ("Café", "cafe"),
            ("café", "CAFÉ"),
            ("cafe\u{301}", "café"),
            ("  naïve ", "NAIVE"),
            ("Ñandú", "nandu"),
            ("über", "Uber"),
            // Invisible format characters (Unicode Cf) and the Unicode spelling (issue 13).
            ("palabra", "pal\u{200B}abra"), ("palabra", "\u{FEFF}palabra"), ("palabra", "pala\u{200D}bra\u{2060}"),
            ("palabra", "\u{202E}palabra\u{202C}"), ("pal\u{00AD}abra", "palabra"), ("caf\u{E9}", "cafe\u{301}"),
        ])
    func duplicateIsReported(existing: String, added: String) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let first = try library.add(WordContent(term: existing)).word
            let result = try library.add(WordContent(term: added))
            #expect(result.duplicates.map(\.id) == [first.id])
            #expect(try library.counts().words == 2)
            #expect(try library.duplicates(of: added).map(\.id).sorted() == [first.id, result.word.id].sorted())
        }
    }

    @Test(
        "different terms are not duplicates",
        arguments: [
            ("casa", "cosa"), ("cafe", "cafes"), ("be", "b"), ("rio", "río grande"),
        ])
    func differentTermsAreNotDuplicates(existing: String, added: String) throws {
        try withTemporaryLibrary { fixture in
            try fixture.library.add(WordContent(term: existing))
            let result = try fixture.library.add(WordContent(term: added), allowDuplicate: false)
            #expect(result.duplicates.isEmpty)
            #expect(try fixture.library.counts().words == 2)
        }
    }

    @Test("refusing duplicates throws, naming the existing word, and changes nothing")
    func refusedDuplicateChangesNothing() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let first = try library.add(WordContent(term: "Café", meaning: "coffee")).word
            try library.markAllUploaded()
            let before = try library.snapshot()
            fixture.clock.advance(by: 5_000)

            let error = #expect(throws: LibraryError.self) {
                try library.add(WordContent(term: "CAFÉ", meaning: "café"), allowDuplicate: false)
            }
            guard case .duplicateTerm(let term, let existing) = error else {
                Issue.record("expected duplicateTerm, got \(String(describing: error))")
                return
            }
            #expect(term == "CAFÉ")
            #expect(existing == [first.id])
            #expect(error?.description.contains(first.id.rawValue) == true)
            #expect(try library.snapshot() == before)
        }
    }

    @Test(
        "refusing duplicates refuses the same spelling only: a term that differs by an accent is a word of its own",
        arguments: [("año", "ano"), ("côte", "cote"), ("Maße", "Masse"), ("más", "MAS"), ("schön", "schon")])
    func accentsMakeAnotherWord(existing: String, added: String) throws {
        try withTemporaryLibrary { fixture in
            let first = try fixture.library.add(WordContent(term: existing)).word
            let result = try fixture.library.add(WordContent(term: added), allowDuplicate: false)
            #expect(result.duplicates.map(\.id) == [first.id], "still pointed out")
            #expect(try fixture.library.counts().words == 2)
            #expect(throws: LibraryError.self) {
                try fixture.library.add(WordContent(term: existing.uppercased()), allowDuplicate: false)
            }
        }
    }

    @Test("an import that skips duplicates skips the same spelling only, names what it skipped, and keeps words that differ by an accent")
    func importSkipsTheSameSpellingOnly() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.add(WordContent(term: "hola"))
            let list = fixture.file("pairs.txt")
            let lines = [
                "año\tyear", "ano\tanus", "côte\tcoast", "cote\tdimension", "Maße\tmeasures", "Masse\tmass",
                "HOLA\thello", "nuevo\tnew", "Nuevo\tnew again", "pal\u{200B}abra\tword", "palabra\tword again",
            ]
            try (lines.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
            var options = ImportOptions()
            options.skipDuplicates = true
            let report = try library.importWords(from: list, options: options)
            #expect(report.added == 8)
            #expect(report.skippedDuplicates == 3)
            #expect(report.skippedDuplicateTerms == ["HOLA", "Nuevo", "palabra"])
            #expect(Set(try library.list().map(\.term)).isSuperset(of: ["año", "ano", "côte", "cote", "Maße", "Masse"]))
        }
    }

    @Test("a new term is added even when duplicates are refused")
    func newTermWithDuplicatesRefused() throws {
        try withTemporaryLibrary { fixture in
            try fixture.library.add(WordContent(term: "café"))
            let result = try fixture.library.add(WordContent(term: "té"), allowDuplicate: false)
            #expect(result.duplicates.isEmpty)
            #expect(try fixture.library.counts().words == 2)
        }
    }

    @Test("a word in the Trash does not count as a duplicate")
    func trashedWordIsNotADuplicate() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let old = try library.add(WordContent(term: "Café")).word
            try library.delete([old.id])
            let result = try library.add(WordContent(term: "cafe"), allowDuplicate: false)
            #expect(result.duplicates.isEmpty)
            #expect(try library.counts() == (words: 1, trash: 1))
        }
    }

    @Test("renaming a word updates which terms count as its duplicates")
    func renamedWordChangesDuplicates() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "perro")).word
            try library.edit(word.id, WordEdit(term: "Gato"))
            #expect(try library.duplicates(of: "perro").isEmpty)
            #expect(try library.duplicates(of: "gató").map(\.id) == [word.id])
        }
    }
}
