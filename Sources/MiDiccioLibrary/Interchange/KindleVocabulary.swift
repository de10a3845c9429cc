import MiDiccioModel

/// Reads Kindle's Vocabulary Builder database (`system/vocabulary/vocab.db`).
///
/// The tables, as found on Kindles and described by the tools that read them (README,
/// "Import"): `WORDS (id, word, stem, lang, ...)`, one row per looked-up form, its id
/// `lang:word`; `LOOKUPS (id, word_key, book_key, usage, timestamp, ...)`, one row per
/// look-up, `timestamp` in milliseconds since 1970; `BOOK_INFO (id, title, authors, ...)`.
///
/// One word per stem and language: the stem is the term, the forms looked up when they
/// differ from it go to the notes, each look-up's sentence is an example, each book's
/// title and author a line of the notes, the language and `kindle` are tags.
enum KindleVocabulary {
    /// The tag every Kindle word carries.
    static let tag = "kindle"

    /// The words of a `vocab.db` with look-ups at or after `since` (milliseconds), in the
    /// order of each word's first look-up, read from the file while they are written.
    ///
    /// A word gathers look-ups from anywhere in the file, so it is read in two passes with
    /// little held in memory: the first numbers the words in look-up order and notes each
    /// look-up's word in a temporary table of the read-only connection; the second reads
    /// the look-ups again word by word through that table, and hands each word on as soon
    /// as its last look-up is read. (Read whole, 500,000 look-ups took 360 MB.)
    final class Words: LookupRows, @unchecked Sendable {
        private let source: SQLiteImportFile
        /// How many words the file holds.
        let estimatedRows: Int
        /// The term key of each word (`TermKey.fold`), to find look-ups imported before.
        let termKeys: Set<String>

        /// Checks the file's tables and makes the first pass; a file with more than
        /// `ImportLimits.rows` look-ups is refused.
        init(_ source: SQLiteImportFile, since: Int64?) throws {
            try source.require("WORDS", ["id", "word", "stem", "lang"], format: .kindle)
            try source.require("LOOKUPS", ["word_key", "book_key", "usage", "timestamp"], format: .kindle)
            try source.require("BOOK_INFO", ["id", "title", "authors"], format: .kindle)
            self.source = source
            let database = source.database
            var words: [String: Int64] = [:]
            var keys = Set<String>()
            // Inside the read transaction the file is opened with (`SQLiteImportFile.open`):
            // the second pass reads the state of the file the first one read.
            try source.sqlite {
                try database.execute(
                    """
                    DROP TABLE IF EXISTS temp.midiccio_lookups;
                    CREATE TABLE temp.midiccio_lookups (position INTEGER PRIMARY KEY, word INTEGER NOT NULL, lookup INTEGER NOT NULL);
                    """)
                let note = try database.prepare("INSERT INTO temp.midiccio_lookups (word, lookup) VALUES (?, ?)")
                var lookups = 0
                try database.prepare(
                    """
                    SELECT w.word, w.stem, w.lang, l.rowid
                    FROM LOOKUPS l JOIN WORDS w ON w.id = l.word_key
                    WHERE l.timestamp >= ?
                    ORDER BY l.timestamp, l.rowid
                    """
                ).forEachRow([.integer(since ?? Int64.min)]) { row in
                    lookups += 1
                    guard lookups <= ImportLimits.rows else {
                        throw LibraryError.invalidImport(
                            file: source.file, line: nil,
                            message: "more than \(ImportLimits.rows) look-ups; MiDiccio imports at most that many at once")
                    }
                    let term = Self.term(form: row.text(0), stem: row.text(1))
                    guard !term.isEmpty else { return }
                    let key = oneLine(row.text(2)) + "\u{1F}" + term
                    let word: Int64
                    if let known = words[key] {
                        word = known
                    } else {
                        word = Int64(words.count)
                        words[key] = word
                        keys.insert(TermKey.fold(term))
                    }
                    try database.run(note, [.integer(word), .integer(row.int64(3))])
                }
                try database.execute("CREATE INDEX temp.midiccio_lookups_by_word ON midiccio_lookups (word, position);")
            }
            estimatedRows = words.count
            termKeys = keys
        }

        /// The word a look-up belongs to: its stem, or the form looked up when the stem is
        /// empty, each on one line.
        private static func term(form: String, stem: String) -> String {
            let stem = oneLine(stem)
            return stem.isEmpty ? oneLine(form) : stem
        }

        /// Hands each word to `body`, in the order of its first look-up. One per stem and
        /// language: the stem is the term, the forms looked up when they differ from it go
        /// to the notes, each look-up's sentence is an example, each book's title and
        /// author a line of the notes, the language and `kindle` are tags.
        func forEachRow(_ body: (SheetRow) throws -> Void) throws {
            /// Texts each kept once, in the order first seen.
            struct FirstOfEach {
                var texts: [String] = []
                private var seen = Set<String>()
                mutating func add(_ text: String) { if seen.insert(text).inserted { texts.append(text) } }
            }
            var current: Int64 = -1
            var row = SheetRow(term: "")
            var forms = FirstOfEach(), examples = FirstOfEach(), books = FirstOfEach()
            func handOn() throws {
                var notes: [String] = []
                if !forms.texts.isEmpty { notes.append("Looked up as: " + forms.texts.joined(separator: ", ")) }
                notes += books.texts.map { "Book: " + $0 }
                row.examples = examples.texts
                row.notes = notes.joined(separator: "\n")
                try body(row)
            }
            try source.reading(
                """
                SELECT m.word, w.word, w.stem, w.lang, l.usage, b.title, b.authors
                FROM temp.midiccio_lookups m JOIN LOOKUPS l ON l.rowid = m.lookup JOIN WORDS w ON w.id = l.word_key
                LEFT JOIN BOOK_INFO b ON b.id = l.book_key
                ORDER BY m.word, m.position
                """
            ) { lookup in
                let form = oneLine(lookup.text(1))
                if lookup.int64(0) != current {
                    if current >= 0 { try handOn() }
                    current = lookup.int64(0)
                    let tags = [tagText(oneLine(lookup.text(3))), tag].filter { !$0.isEmpty }
                    row = SheetRow(term: Self.term(form: lookup.text(1), stem: lookup.text(2)), tags: tags)
                    (forms, examples, books) = (FirstOfEach(), FirstOfEach(), FirstOfEach())
                }
                // Forms, sentences and books each once, in look-up order.
                if !form.isEmpty, form.lowercased() != row.term.lowercased() { forms.add(form) }
                let usage = oneLine(lookup.text(4))
                if !usage.isEmpty { examples.add(usage) }
                let book = [oneLine(lookup.text(5)), oneLine(lookup.text(6))].filter { !$0.isEmpty }.joined(separator: " — ")
                if !book.isEmpty { books.add(book) }
            }
            if current >= 0 { try handOn() }
        }
    }

    /// Whitespace runs, line breaks included, made one space: a sentence is one example.
    static func oneLine(_ text: String) -> String {
        // Most text is ASCII words between single spaces, which this leaves as it is:
        // looking at its bytes costs far less than splitting it into characters (a third
        // of the time of an import of 500,000 look-ups). Below 0x20, only tabs and line
        // breaks are whitespace, but any such byte takes the long way.
        var atSpace = true
        for byte in text.utf8 {
            guard byte >= 0x20, byte < 0x80, !(byte == 0x20 && atSpace) else { return splitAndJoined(text) }
            atSpace = byte == 0x20
        }
        return atSpace ? splitAndJoined(text) : text
    }

    /// `oneLine` the long way, character by character. A NUL character, which no text
    /// file can carry and no field holds, parts words as a space does: one in one look-up's
    /// sentence refused the whole file (found by the exploratory helper, round 27B #6).
    private static func splitAndJoined(_ text: String) -> String {
        text.split(whereSeparator: isSeparator).joined(separator: " ")
    }

    /// Whitespace, a line break, or a NUL character.
    private static func isSeparator(_ character: Character) -> Bool {
        character.isWhitespace || character.isNewline || character == "\u{0}"
    }

    /// A value made fit for a tag: no whitespace, at most `WordLimits.tagLength` characters.
    /// A longer one keeps its first 55 characters and 8 hexadecimal digits of the whole, as
    /// an Anki deck's name does: two books whose titles start alike shared one tag (round
    /// 14A).
    static func tagText(_ text: String) -> String {
        let tag = text.split(whereSeparator: isSeparator).joined(separator: "-")
        guard tag.count > WordLimits.tagLength else { return tag }
        return String(tag.prefix(WordLimits.tagLength - 9)) + "~" + FNV1a.hash(tag.utf8).sixteenHexDigits.prefix(8)
    }
}
