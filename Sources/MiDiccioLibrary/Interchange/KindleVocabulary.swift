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

    /// Every word with look-ups at or after `since` (milliseconds), in stem order.
    static func read(_ source: SQLiteImportFile, since: Int64?) throws -> [SheetRow] {
        try source.require("WORDS", ["id", "word", "stem", "lang"], format: .kindle)
        try source.require("LOOKUPS", ["word_key", "book_key", "usage", "timestamp"], format: .kindle)
        try source.require("BOOK_INFO", ["id", "title", "authors"], format: .kindle)
        struct Lookup {
            var form: String, stem: String, lang: String, usage: String, title: String, authors: String
        }
        let lookups = try source.sqlite {
            try source.database.prepare(
                """
                SELECT w.word, w.stem, w.lang, l.usage, b.title, b.authors
                FROM LOOKUPS l JOIN WORDS w ON w.id = l.word_key LEFT JOIN BOOK_INFO b ON b.id = l.book_key
                WHERE l.timestamp >= ?
                ORDER BY l.timestamp, l.rowid
                LIMIT ?
                """
            ).rows([.integer(since ?? Int64.min), .integer(Int64(ImportLimits.rows) + 1)]) {
                Lookup(
                    form: oneLine($0.text(0)), stem: oneLine($0.text(1)), lang: oneLine($0.text(2)),
                    usage: oneLine($0.text(3)), title: oneLine($0.text(4)), authors: oneLine($0.text(5)))
            }
        }
        guard lookups.count <= ImportLimits.rows else {
            throw LibraryError.invalidImport(
                file: source.file, line: nil, message: "more than \(ImportLimits.rows) look-ups; MiDiccio imports at most that many at once"
            )
        }

        struct Group {
            var row: SheetRow
            var forms: [String] = []
            var books: [String] = []
        }
        var groups: [String: Int] = [:]
        var words: [Group] = []
        for lookup in lookups {
            let term = lookup.stem.isEmpty ? lookup.form : lookup.stem
            guard !term.isEmpty else { continue }
            let key = lookup.lang + "\u{1F}" + term
            let index: Int
            if let found = groups[key] {
                index = found
            } else {
                index = words.count
                groups[key] = index
                let tags = [tagText(lookup.lang), tag].filter { !$0.isEmpty }
                words.append(Group(row: SheetRow(term: term, tags: tags)))
            }
            if !lookup.form.isEmpty, lookup.form.lowercased() != term.lowercased(), !words[index].forms.contains(lookup.form) {
                words[index].forms.append(lookup.form)
            }
            if !lookup.usage.isEmpty, !words[index].row.examples.contains(lookup.usage) {
                words[index].row.examples.append(lookup.usage)
            }
            let book = [lookup.title, lookup.authors].filter { !$0.isEmpty }.joined(separator: " — ")
            if !book.isEmpty, !words[index].books.contains(book) { words[index].books.append(book) }
        }
        return words.map { group in
            var row = group.row
            var notes: [String] = []
            if !group.forms.isEmpty { notes.append("Looked up as: " + group.forms.joined(separator: ", ")) }
            notes += group.books.map { "Book: " + $0 }
            row.notes = notes.joined(separator: "\n")
            return row
        }
    }

    /// Whitespace runs, line breaks included, made one space: a sentence is one example.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
    }

    /// A value made fit for a tag: no whitespace, at most `WordLimits.tagLength` characters.
    static func tagText(_ text: String) -> String {
        String(text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: "-").prefix(WordLimits.tagLength))
    }
}
