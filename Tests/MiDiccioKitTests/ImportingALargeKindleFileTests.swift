import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// A Kindle `vocab.db` is read while its words are written (issue 12: 500,000 look-ups
/// read whole took 360 MB): a first pass numbers the words in look-up order, a second
/// reads the look-ups word by word on the import's reading thread. The words come out as
/// reading the whole file and grouping it in memory made them, and a bad word anywhere
/// still leaves nothing imported.
@Suite("A large Kindle file imports as it streams, as if read whole")
struct ImportingALargeKindleFileTests {
    /// One look-up: the form looked up, its stem, language, sentence and book.
    private struct Lookup {
        var form: String
        var stem: String
        var lang: String
        var usage: String
        var book: Int
    }

    /// 3,000 look-ups of 700 stems, each stem's look-ups far apart in the file. Among them:
    /// a stem in two languages (two words), stems that differ only in their whitespace
    /// (one word), forms without a stem, a sentence looked up twice, forms that differ only
    /// in case, and one word looked up 61 times (its examples make two words).
    private func lookups() -> [Lookup] {
        var lookups: [Lookup] = []
        for index in 0..<3_000 {
            let stem = index % 700
            var lookup = Lookup(
                form: stem % 5 == 0 ? "Palabra\(stem)s" : "palabra\(stem)", stem: "palabra\(stem)", lang: "es",
                usage: "Frase \(index) con palabra\(stem).", book: index % 7)
            switch stem {
            case 1: lookup.lang = index / 700 % 2 == 0 ? "es" : "en"
            case 2: lookup.stem = index / 700 % 2 == 0 ? "gran  perro" : "gran perro\t"
            case 3: lookup.stem = ""
            case 4: lookup.usage = "Siempre la misma frase."
            default: break
            }
            lookups.append(lookup)
        }
        for extra in 0..<56 {
            lookups.append(Lookup(form: "palabra9", stem: "palabra9", lang: "es", usage: "Otra frase \(extra).", book: 1))
        }
        return lookups
    }

    /// A `vocab.db` with Kindle's tables holding `lookups`, in that order of time.
    private func write(_ lookups: [Lookup], to path: String) throws {
        let database = try Database(path: path, create: true)
        try database.execute(
            """
            CREATE TABLE WORDS (id TEXT PRIMARY KEY NOT NULL UNIQUE, word TEXT, stem TEXT, lang TEXT);
            CREATE TABLE LOOKUPS (id TEXT PRIMARY KEY NOT NULL UNIQUE, word_key TEXT, book_key TEXT, usage TEXT, timestamp INTEGER);
            CREATE TABLE BOOK_INFO (id TEXT PRIMARY KEY NOT NULL UNIQUE, title TEXT, authors TEXT);
            """)
        try database.write {
            for book in 0..<7 {
                try database.run("INSERT INTO BOOK_INFO VALUES (?, ?, ?)", [.text("b\(book)"), .text("Libro \(book)"), .text("Autora")])
            }
            for (index, lookup) in lookups.enumerated() {
                let key = "\(lookup.lang):\(lookup.form):\(lookup.stem)"
                try database.run(
                    "INSERT OR IGNORE INTO WORDS VALUES (?, ?, ?, ?)",
                    [.text(key), .text(lookup.form), .text(lookup.stem), .text(lookup.lang)])
                try database.run(
                    "INSERT INTO LOOKUPS VALUES (?, ?, ?, ?, ?)",
                    [
                        .text("l\(index)"), .text(key), .text("b\(lookup.book)"), .text(lookup.usage),
                        .integer(1_700_000_000_000 + Int64(index)),
                    ])
            }
        }
    }

    /// The words the whole file makes, grouped in memory as the import did before it
    /// streamed: one per language and term, in the order of their first look-ups.
    private func expectedWords(_ lookups: [Lookup]) -> [(term: String, examples: [String], notes: String, tags: [String])] {
        var order: [String] = []
        var groups: [String: (term: String, lang: String, forms: [String], examples: [String], books: [String])] = [:]
        for lookup in lookups {
            let stem = KindleVocabulary.oneLine(lookup.stem)
            let term = stem.isEmpty ? lookup.form : stem
            let key = lookup.lang + "/" + term
            if groups[key] == nil {
                order.append(key)
                groups[key] = (term, lookup.lang, [], [], [])
            }
            if lookup.form.lowercased() != term.lowercased(), !groups[key]!.forms.contains(lookup.form) {
                groups[key]!.forms.append(lookup.form)
            }
            if !groups[key]!.examples.contains(lookup.usage) { groups[key]!.examples.append(lookup.usage) }
            let book = "Libro \(lookup.book) — Autora"
            if !groups[key]!.books.contains(book) { groups[key]!.books.append(book) }
        }
        return order.flatMap { key in
            let group = groups[key]!
            let notes =
                ((group.forms.isEmpty ? [] : ["Looked up as: " + group.forms.joined(separator: ", ")]) + group.books.map { "Book: " + $0 })
                .joined(separator: "\n")
            // At most 50 examples a word: the rest make another word.
            return stride(from: 0, to: max(group.examples.count, 1), by: WordLimits.exampleCount).map { start in
                (
                    group.term, Array(group.examples[start..<min(start + WordLimits.exampleCount, group.examples.count)]), notes,
                    [group.lang, "kindle"]
                )
            }
        }
    }

    @Test("the words are those of the whole file grouped in memory, in the order of their first look-ups")
    func sameWordsAsReadWhole() throws {
        try withTemporaryLibrary { fixture in
            let lookups = lookups()
            let path = fixture.file("vocab.db")
            try write(lookups, to: path)
            let report = try fixture.library.importWords(from: path)
            let expected = expectedWords(lookups)
            #expect(report.rowCount == 701)  // 700 stems, one of them in two languages
            #expect(report.added == expected.count)
            let words = try fixture.library.list(ListQuery(sort: .created)).reversed().map { ($0.term, $0.examples, $0.notes, $0.tags) }
            #expect(words.count == expected.count)
            for (word, wanted) in zip(words, expected) {
                #expect(word.0 == wanted.term)
                #expect(word.1 == wanted.examples, "\(wanted.term)")
                #expect(word.2 == wanted.notes, "\(wanted.term)")
                #expect(word.3 == wanted.tags, "\(wanted.term)")
            }
            // Read again, every look-up is known.
            let again = try fixture.library.importWords(from: path)
            #expect(again.added == 0)
            #expect(again.alreadyImported == Set(lookups.map { "\($0.lang)/\($0.stem)/\($0.usage)" }).count)
        }
    }

    @Test("a word past the limits late in the file leaves nothing imported and names it")
    func badWordLateInTheFile() throws {
        try withTemporaryLibrary { fixture in
            _ = try fixture.library.add(WordContent(term: "antes"))
            var lookups = lookups()
            lookups[2_900].stem = String(repeating: "x", count: 501)
            let path = fixture.file("vocab.db")
            try write(lookups, to: path)
            #expect {
                try fixture.library.importWords(from: path)
            } throws: { error in
                guard case LibraryError.invalidImport(let file, nil, let message) = error else { return false }
                return file == path && message.hasPrefix("the word \"xxxx") && message.contains("term")
            }
            #expect(try fixture.library.list().map(\.term) == ["antes"])
        }
    }

    /// The two passes read two states of a file another program wrote between them: a look-up
    /// moved to a new word was read under it in the second pass, and the import gave that
    /// word another word's sentences and notes (found by the exploratory helper, round 27B #3).
    @Test("a file written to between the two passes is read as it was when the first began")
    func bothPassesReadOneStateOfTheFile() throws {
        try withTemporaryLibrary { fixture in
            let path = fixture.file("vocab.db")
            try write(Array(lookups().prefix(300)), to: path)
            let writer = try Database(path: path, create: false)
            _ = try writer.text("PRAGMA journal_mode = WAL")
            let source = try SQLiteImportFile.open(path)
            let words = try KindleVocabulary.Words(source, since: nil)
            // The e-reader writes: a new word, and the first look-up moved to it.
            try writer.write {
                try writer.run("INSERT INTO WORDS VALUES ('es:nueva:nueva', 'nueva', 'nueva', 'es')")
                try writer.run("UPDATE LOOKUPS SET word_key = 'es:nueva:nueva' WHERE id = 'l0'")
            }
            var read: [SheetRow] = []
            try words.forEachRow { read.append($0) }
            #expect(!read.contains { $0.term == "nueva" }, "the word written after the first pass began is not read")
            let first = try #require(read.first)
            #expect(first.term == "palabra0" && first.examples.contains("Frase 0 con palabra0."), "\(first)")
            #expect(read.count == words.estimatedRows)
        }
    }

    @Test("oneLine leaves single-spaced text as it is and makes every other run of whitespace one space")
    func oneLineMatchesSplittingByCharacter() {
        var generator = SeededGenerator(seed: 12)
        let pieces = ["a", "Z", " ", "  ", "\t", "\n", "\r\n", "é", "\u{A0}", "\u{2028}", "語", "\u{7F}", "-", "\u{0}"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let slow = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline || $0 == "\u{0}" }).joined(separator: " ")
            #expect(KindleVocabulary.oneLine(text) == slow, "\(Array(text.unicodeScalars))")
        }
    }
}
