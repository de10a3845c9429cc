import MiDiccioModel

/// Reads KOReader's vocabulary builder database (`settings/vocabulary_builder.sqlite3`).
///
/// Follows the schema of KOReader's `plugins/vocabbuilder.koplugin/db.lua` at schema
/// version 20240905 (`PRAGMA user_version`): `vocabulary (word, title_id, create_time,
/// prev_context, next_context, highlight, ...)` with `create_time` in seconds since 1970,
/// and `title (id, name, ...)`. Files from before 20220608 kept the title in
/// `vocabulary.book_title`; those are read too. `highlight`, when present, is the text
/// selected in the book, set only when it differs from the word.
///
/// Each word becomes one word: the context before, the selection (or the word) and the
/// context after make the example, as KOReader shows it; the book title goes to the
/// notes and, fitted to a tag, to the tags with `koreader`.
enum KOReaderVocabulary {
    /// The tag every KOReader word carries.
    static let tag = "koreader"

    /// The words added at or after `since` (milliseconds), oldest first, read from the
    /// file while they are written.
    final class Words: LookupRows, @unchecked Sendable {
        private let source: SQLiteImportFile
        private let sql: String
        private let since: Int64
        /// The look-ups from `since` on; words without a term among them are left out.
        let estimatedRows: Int
        /// The term key of each word from `since` on, to find words imported before.
        let termKeys: Set<String>

        /// Checks the file's tables and counts its words; a file with more than
        /// `ImportLimits.rows` is refused.
        init(_ source: SQLiteImportFile, since: Int64?) throws {
            try source.require("vocabulary", ["word", "create_time"], format: .koreader)
            let columns = try source.columns(of: "vocabulary")
            func column(_ name: String) -> String { columns.contains(name) ? "v.\(name)" : "NULL" }
            let title: String
            let join: String
            if columns.contains("title_id") {
                try source.require("title", ["id", "name"], format: .koreader)
                (title, join) = ("t.name", "LEFT JOIN title t ON t.id = v.title_id")
            } else {
                (title, join) = (column("book_title"), "")
            }
            // Column names come from the fixed list above, never from the file.
            sql = """
                SELECT v.word, \(column("prev_context")), \(column("next_context")), \(column("highlight")), \(title)
                FROM vocabulary v \(join)
                WHERE v.create_time >= ?
                ORDER BY v.create_time, v.rowid
                """
            self.source = source
            let seconds = since.map { $0 / 1000 } ?? Int64.min
            self.since = seconds
            let count = try source.sqlite {
                try source.database.integer(
                    "SELECT count(*) FROM (SELECT 1 FROM vocabulary WHERE create_time >= ? LIMIT ?)",
                    [.integer(seconds), .integer(Int64(ImportLimits.rows) + 1)]) ?? 0
            }
            guard count <= ImportLimits.rows else {
                throw LibraryError.invalidImport(
                    file: source.file, line: nil,
                    message: "more than \(ImportLimits.rows) words; MiDiccio imports at most that many at once")
            }
            estimatedRows = Int(count)
            termKeys = try source.sqlite {
                var keys = Set<String>()
                try source.database.prepare("SELECT word FROM vocabulary WHERE create_time >= ?").forEachRow([.integer(seconds)]) {
                    keys.insert(TermKey.fold(KindleVocabulary.oneLine($0.text(0))))
                }
                return keys
            }
        }

        /// Hands each word with a term to `body`: the context before, the selection (or
        /// the word) and the context after make the example, as KOReader shows it; the
        /// book title goes to the notes and, fitted to a tag, to the tags with `koreader`.
        func forEachRow(_ body: (SheetRow) throws -> Void) throws {
            try source.reading(sql, [.integer(since)]) { row in
                let word = KindleVocabulary.oneLine(row.text(0))
                guard !word.isEmpty else { return }
                let before = row.text(1)
                let after = row.text(2)
                let selected = row.text(3)
                let book = KindleVocabulary.oneLine(row.text(4))
                var result = SheetRow(term: word)
                if !before.isEmpty || !after.isEmpty {
                    let example = KindleVocabulary.oneLine(before + (selected.isEmpty ? row.text(0) : selected) + after)
                    if !example.isEmpty { result.examples = [example] }
                }
                if !book.isEmpty { result.notes = "Book: " + book }
                result.tags = [KindleVocabulary.tagText(book), tag].filter { !$0.isEmpty }
                try body(result)
            }
        }
    }
}
