import CCollation
import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// Search is accent- and case-insensitive in every field and every script, not only for
/// Latin letters in terms (round 19B, F1 and F13 to F16): a learner of Greek, Russian,
/// Arabic or Hebrew types words without their marks; a word in a sentence copied from an
/// e-book holds a soft hyphen; a Japanese or Chinese word sits inside a longer run of
/// ideographs, with no space around it.
@Suite("Search finds words in every script, with or without their marks")
struct SearchFindsWordsInEveryScriptTests {
    /// The terms `query` finds in `library`, best first.
    private func found(_ library: WordLibrary, _ query: String) throws -> [String] {
        try library.search(query, limit: 20).map(\.term)
    }

    /// A library holding words whose meanings, examples and notes carry what round 19B
    /// found unsearchable.
    private func addWords(_ library: WordLibrary) throws {
        try library.add(WordContent(term: "anthropos", meaning: "ο άνθρωπος"))
        try library.add(WordContent(term: "yolka", meaning: "ёлка", examples: ["Новогодняя ёлка стоит в углу."]))
        try library.add(WordContent(term: "kitab", meaning: "الكِتَابَ"))
        try library.add(WordContent(term: "shalom", meaning: "שָׁלוֹם עֲלֵיכֶם"))
        try library.add(WordContent(term: "Wörter", notes: "from the book: Wör\u{AD}ter und Sät\u{200B}ze"))
        try library.add(WordContent(term: "Łódź", meaning: "a city in Poland"))
        try library.add(WordContent(term: "hygge", meaning: "cosiness, as in København"))
        try library.add(WordContent(term: "test", meaning: "ＴＯＥＩＣ exam"))
        try library.add(WordContent(term: "JLPT", meaning: "日本語能力試験"))
        try library.add(WordContent(term: "がっこう", meaning: "school"))
        try library.add(WordContent(term: "かっこう", meaning: "cuckoo"))
        // Decomposed Hangul and kana, as some keyboards and macOS file names give them.
        try library.add(WordContent(term: "school", meaning: "학교".decomposedStringWithCanonicalMapping))
        try library.add(WordContent(term: "ガス", examples: ["ガス代".decomposedStringWithCanonicalMapping]))
    }

    @Test("Greek, Russian, Arabic and Hebrew words are found without their marks, in any case")
    func marksOfEveryScript() throws {
        try withTemporaryLibrary { fixture in
            try addWords(fixture.library)
            #expect(try found(fixture.library, "ανθρωπος") == ["anthropos"])
            #expect(try found(fixture.library, "ΑΝΘΡΩΠΟΣ") == ["anthropos"])
            #expect(try found(fixture.library, "елка") == ["yolka"])
            #expect(try found(fixture.library, "новогодняя") == ["yolka"])
            #expect(try found(fixture.library, "الكتاب") == ["kitab"])
            #expect(try found(fixture.library, "עליכם") == ["shalom"])
            // And with them: the marks typed find the word as before.
            #expect(try found(fixture.library, "άνθρωπος") == ["anthropos"])
            #expect(try found(fixture.library, "ёлка") == ["yolka"])
        }
    }

    @Test("the index a word at a time holds what the index built in bulk holds: the same fold in Swift and in SQL")
    func swiftAndSQLFoldAlike() throws {
        try withTemporaryLibrary { fixture in
            try addWords(fixture.library)
            let edited = try fixture.library.add(WordContent(term: "Ǆemal", meaning: "ﬁn ½ ＡＢＣ ǅ İstanbul")).word
            _ = try fixture.library.edit(edited.id, WordEdit(meaning: "ΣΊΣΥΦΟΣ, ᾯ, ﷺ"))
            try BulkWritesMatchWordByWordTests.indexAgrees(fixture.library)
            #expect(try found(fixture.library, "istanbul").isEmpty, "the meaning before the edit is gone from the index")
            #expect(try found(fixture.library, "σισυφοσ") == ["Ǆemal"])
        }
    }

    @Test("a word holding a soft hyphen or a zero-width space is found by the word without it")
    func invisibleCharactersInsideWords() throws {
        try withTemporaryLibrary { fixture in
            try addWords(fixture.library)
            #expect(try found(fixture.library, "worter") == ["Wörter"])
            #expect(try found(fixture.library, "satze") == ["Wörter"])
            // Typed with the soft hyphen too.
            #expect(try found(fixture.library, "Wör\u{AD}ter") == ["Wörter"])
        }
    }

    @Test("letters with a stroke, ligatures and full-width letters are found as their plain letters")
    func strokesAndWidths() throws {
        try withTemporaryLibrary { fixture in
            try addWords(fixture.library)
            #expect(try found(fixture.library, "lodz") == ["Łódź"])
            #expect(try found(fixture.library, "kobenhavn") == ["hygge"])
            #expect(try found(fixture.library, "toeic") == ["test"])
            // The duplicate warning takes them as one term too.
            #expect(try fixture.library.duplicates(of: "LODZ").map(\.term) == ["Łódź"])
        }
    }

    @Test("a word of ideographs or kana is found inside a longer run, and kana keep their voicing")
    func ideographsAndKana() throws {
        try withTemporaryLibrary { fixture in
            try addWords(fixture.library)
            #expect(try found(fixture.library, "試験") == ["JLPT"])
            #expect(try found(fixture.library, "能力") == ["JLPT"])
            #expect(try found(fixture.library, "日本語能力試験") == ["JLPT"])
            // In order: the characters apart are no match.
            #expect(try found(fixture.library, "験試").isEmpty)
            #expect(try found(fixture.library, "がっこう") == ["がっこう"])
            #expect(try found(fixture.library, "かっこう") == ["かっこう"])
            #expect(try fixture.library.duplicates(of: "かっこう").map(\.term) == ["かっこう"])
        }
    }

    @Test("decomposed Hangul and kana in a meaning or example are found as typed")
    func decomposedHangulAndKana() throws {
        try withTemporaryLibrary { fixture in
            try addWords(fixture.library)
            #expect(try found(fixture.library, "학교") == ["school"])
            #expect(try found(fixture.library, "ガス代") == ["ガス"])
        }
    }

    /// Pieces of text of every script: whole characters (a kana and its voicing mark, jamo
    /// that make a syllable) and their code points apart, so that both meet their neighbours.
    static let pool: [String] = {
        let text =
            "aZ éÉçñüß ẞİıǅǄ Łøæœđħ ΆάΣςσΐ ёйЁ الكِتَابَ ﻻﺍ שָׁלוֹם か\u{3099}がｶﾞﾊﾟ 학교\u{1100}\u{1161}\u{11A8} 日本語試験 ＴＯＥＩＣ ﬁﬀﷺ "
            + "\u{AD}\u{200B}\u{FEFF}\u{202E} 😀👩🏽‍🔬🇪🇸 क़क्ष হো\u{9C7}\u{9BE} ที่ ½²Å\u{212B}\u{2126} e\u{301}\u{316}\u{327} ㈱㌔ℌ"
        return text.map(String.init) + text.unicodeScalars.map { String($0) }
    }()

    @Test("the search text SQL makes is the one Swift makes, unit by unit, on random text of every script")
    func sqlAndSwiftSearchTextsAlike() throws {
        try withTemporaryLibrary { fixture in
            var generator = SeededGenerator(seed: 21)
            let statement = try fixture.library.database.prepare("SELECT midiccio_search_text(?)")
            for _ in 0..<3_000 {
                let string = (0..<Int.random(in: 1...8, using: &generator)).map { _ in Self.pool.randomElement(using: &generator)! }
                    .joined()
                let fromSQL = try statement.rows([.text(string)]) { $0.text(0) }.first.map { Array($0.utf16) }
                #expect(fromSQL == Array(SearchText.fold(string).utf16), "\(string.debugDescription)")
                // And both what the UTF-16 fold (with ICU over the whole text when needed) gives.
                let throughUTF16 = string.utf8.allSatisfy { $0 < 0x80 } ? string : TermKey.folded(string, by: midiccio_search_fold)
                #expect(fromSQL == throughUTF16.map { Array($0.utf16) }, "\(string.debugDescription)")
            }
        }
    }

    @Test("the fold a character at a time, from what each folds to alone, gives what ICU gives over the whole text")
    func foldByCharacterMatchesTheWholeFold() throws {
        let pool = Self.pool
        var generator = SeededGenerator(seed: 20)
        for _ in 0..<5_000 {
            let string = (0..<Int.random(in: 1...8, using: &generator)).map { _ in pool.randomElement(using: &generator)! }.joined()
            // Unit by unit: Swift's == takes a composed and a decomposed spelling for one,
            // where the search index and the term keys compare bytes.
            let byCharacter = TermKey.folded(string, by: midiccio_fold).map { Array($0.utf16) }
            let whole = TermKey.folded(string, by: midiccio_fold_whole).map { Array($0.utf16) }
            #expect(byCharacter == whole, "\(string.debugDescription)")
        }
    }

    @Test("a library made before is searchable in every script once opened, by an index built again")
    func anOlderLibraryIsIndexedAgain() throws {
        try withTemporaryLibrary { fixture in
            try addWords(fixture.library)
            let gone = try fixture.library.add(WordContent(term: "gone", meaning: "ο άνθρωπος")).word
            try fixture.library.delete([gone.id])
            try Self.makeLikeBefore(fixture.library.database)
            #expect(try found(fixture.library, "ανθρωπος").isEmpty, "the index as it was: Latin accents only")

            let reopened = try WordLibrary(path: fixture.path, clock: fixture.clock, environment: [:])
            #expect(try found(reopened, "ανθρωπος") == ["anthropos"])
            #expect(try found(reopened, "試験") == ["JLPT"])
            #expect(try reopened.info("collation.icu") == TermCollation.keysVersion)
            try BulkWritesMatchWordByWordTests.indexAgrees(reopened)
        }
    }

    /// Puts the search indexes of `database` back as a library of schema 26 had them (the
    /// fields as written, through a view, Latin accents folded by the tokenizer) and
    /// forgets the migration and the keys' version, as such a library has them. With
    /// `termsIndex` false, without the index of terms either, as before schema 22.
    static func makeLikeBefore(_ database: Database, termsIndex: Bool = true) throws {
        try database.execute(
            """
            DROP TABLE words_fts;
            DROP TABLE terms_fts;
            CREATE VIEW words_fts_source AS
                SELECT seq, term, reading, meaning, examples, notes, tags FROM words WHERE +deleted_at IS NULL;
            CREATE VIRTUAL TABLE words_fts USING fts5 (
                term, reading, meaning, examples, notes, tags,
                content = 'words_fts_source', content_rowid = 'seq',
                tokenize = 'unicode61 remove_diacritics 2'
            );
            INSERT INTO words_fts (words_fts, rank) VALUES ('rank', 'bm25(\(SearchRanking.bm25Weights))');
            INSERT INTO words_fts (words_fts) VALUES ('rebuild');
            UPDATE library_info SET value = '\(TermCollation.icuVersion)' WHERE key = 'collation.icu';
            DELETE FROM schema_migrations WHERE name = '2026-12-search-in-every-script';
            """)
        if termsIndex {
            try database.execute(
                """
                CREATE VIRTUAL TABLE terms_fts USING fts5 (
                    term, content = 'words_fts_source', content_rowid = 'seq', tokenize = 'unicode61 remove_diacritics 2'
                );
                INSERT INTO terms_fts (terms_fts) VALUES ('rebuild');
                """)
        } else {
            try database.run("DELETE FROM schema_migrations WHERE name = '2026-12-terms-search-index'")
        }
    }
}
