import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// Issue 13, part 8: terms that look the same are the same term for the duplicate check
/// and the term key, whatever invisible characters or Unicode spelling they carry; the
/// stored term keeps what was typed.
@Suite("Invisible characters and Unicode spellings in terms")
struct InvisibleCharactersInTermsTests {
    @Test("a term with a zero-width space is refused as a duplicate, and a word added anyway keeps what was typed")
    func storedTextKept() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.add(WordContent(term: "palabra"))
            #expect(throws: LibraryError.self) { try library.add(WordContent(term: "pal\u{200B}abra"), allowDuplicate: false) }
            let added = try library.add(WordContent(term: "pal\u{200B}abra")).word
            #expect(try library.word(added.id)?.term == "pal\u{200B}abra")
            #expect(TermKey.fold("pal\u{200B}abra") == "palabra")
        }
    }

    @Test("an exact search with an invisible character finds the word without it")
    func searchIgnoresInvisibleCharacters() throws {
        try withTemporaryLibrary { fixture in
            let word = try fixture.library.add(WordContent(term: "palabra", meaning: "word")).word
            #expect(try fixture.library.search("pal\u{200B}abra").first?.id == word.id)
        }
    }

    @Test("an import counts a term with a zero-width space as a duplicate")
    func importSkipsInvisibleDuplicates() throws {
        try withTemporaryLibrary { fixture in
            try fixture.library.add(WordContent(term: "palabra", meaning: "word"))
            let path = fixture.file("words.csv")
            try Data("term,meaning\npal\u{200B}abra,word\n".utf8).write(to: URL(fileURLWithPath: path))
            var options = ImportOptions()
            options.skipDuplicates = true
            let report = try fixture.library.importWords(from: path, options: options)
            #expect(report.skippedDuplicates == 1)
            #expect(report.added == 0)
        }
    }

    @Test("opening a library made before this change recomputes its term keys, and nothing is to upload")
    func migrationRecomputesKeys() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "Pal\u{200B}abra")).word
            try library.markAllUploaded()
            // The key as the older MiDiccio stored it, and the migration not applied yet.
            try library.database.run("UPDATE words SET term_key = 'pal\u{200B}abra' WHERE id = ?", [.text(word.id.rawValue)])
            try library.database.run(
                "DELETE FROM schema_migrations WHERE name = '2026-12-term-key-ignores-invisible-characters'")
            let reopened = try WordLibrary(path: fixture.path, clock: fixture.clock, environment: [:])
            let key = try reopened.database.prepare("SELECT term_key FROM words WHERE id = ?").rows([.text(word.id.rawValue)]) {
                $0.text(0)
            }
            #expect(key == ["palabra"])
            #expect(try reopened.word(word.id)?.term == "Pal\u{200B}abra")
            #expect(try reopened.duplicates(of: "palabra").map(\.id) == [word.id])
            #expect(try reopened.database.integer("SELECT count(*) FROM words WHERE pending = 1") == 0)
        }
    }

    @Test("a term made only of invisible characters is refused as an empty one is, by an add, an edit and an import of a list")
    func aTermThatShowsNothingIsRefused() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            for term in ["\u{200B}", "\u{200B}\u{2060}\u{FEFF}", " \u{200D} ", "\u{3164}", "\u{00AD}"] {
                do {
                    try library.add(WordContent(term: term, meaning: "nothing"))
                    Issue.record("\(term.debugDescription) was added")
                } catch LibraryError.invalidWord(let error) {
                    #expect(error.field == "term")
                    #expect(error.message.contains("invisible") || error.message == "must not be empty", "\(error.message)")
                }
            }
            let word = try library.add(WordContent(term: "a\u{200B}b", meaning: "visible")).word
            #expect(throws: LibraryError.self) { try library.edit(word.id, WordEdit(term: "\u{200B}")) }
            let path = fixture.file("words.txt")
            try Data("fine\tok\n\u{200B}\tnothing\n".utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: (any Error).self) { try library.importWords(from: path, options: ImportOptions()) }
            #expect(try library.counts().words == 1, "a refused import adds nothing")
            // Letters, marks, CJK and emoji all show.
            for term in ["é", "\u{0301}a", "語", "🙂", "ع"] {
                #expect(term.hasVisibleCharacter, "\(term.debugDescription)")
            }
        }
    }

    @Test("a word whose term shows nothing, stored before this check, can still be edited, backed up and restored")
    func anOlderInvisibleTermStaysUsable() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "placeholder", meaning: "old")).word
            // As an older version or another device stored it.
            try library.database.run("UPDATE words SET term = '\u{200B}' WHERE id = ?", [.text(word.id.rawValue)])
            let edited = try library.edit(word.id, WordEdit(meaning: "new meaning"))
            #expect(edited.term == "\u{200B}" && edited.meaning == "new meaning")
            let backup = fixture.file("backup.json")
            _ = try library.exportBackup(to: backup)
            try library.delete([word.id])
            let report = try library.restoreBackup(from: backup, replace: true)
            #expect(report.updated == 1, "\(report)")
            #expect(try library.word(word.id)?.deletedAt == nil)
            // Its library's own export reads back whole: the whole file was refused (round 19B).
            for format in SheetFormat.allCases {
                let export = fixture.file("words.\(format.rawValue)")
                _ = try library.exportSheet(to: export, format: format)
                let other = try WordLibrary(path: fixture.file("other-\(format.rawValue).sqlite"), environment: [:])
                #expect(try other.importWords(from: export).added == 1)
                #expect(try other.list().map(\.term) == ["\u{200B}"])
            }
        }
    }
}
