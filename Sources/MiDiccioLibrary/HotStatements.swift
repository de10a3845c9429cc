import MiDiccioModel
import MiDiccioStore

/// The statements every save of a word runs, prepared once per connection: looking
/// them up by their SQL text on each call cost more than running some of them.
final class HotStatements {
    /// The statements, by what they do.
    enum Kind: Int, CaseIterable {
        /// `insertWords` is `insertWord` for `HotStatements.rowsPerInsert` words at once.
        case insertWord, insertWords, updateWord, addToSearch, removeFromSearch, insertTag, deleteTags

        var sql: String {
            switch self {
            case .insertWord: HotStatements.insertSQL(rows: 1)
            case .insertWords: HotStatements.insertSQL(rows: HotStatements.rowsPerInsert)
            case .updateWord:
                """
                UPDATE words SET id = ?1, term = ?2, meaning = ?3, reading = ?4, examples = ?5, notes = ?6, tags = ?7,
                    created_at = ?8, updated_at = ?9, deleted_at = ?10, term_time = ?11, meaning_time = ?12,
                    reading_time = ?13, examples_time = ?14, notes_time = ?15, tags_time = ?16, deleted_time = ?17,
                    pending = ?18, local_change = ?19, term_key = ?20, sort_key = coalesce(?21, sort_key),
                    term_by = ?23, meaning_by = ?24, reading_by = ?25, examples_by = ?26, notes_by = ?27,
                    tags_by = ?28, deleted_by = ?29,
                    trash_seen_at = CASE WHEN ?10 IS NULL THEN NULL
                                         WHEN deleted_at IS ?10 AND trash_seen_at IS NOT NULL THEN trash_seen_at
                                         ELSE ?30 END
                WHERE seq = ?22
                """
            case .addToSearch:
                "INSERT INTO words_fts (rowid, term, reading, meaning, examples, notes, tags) VALUES (?, ?, ?, ?, ?, ?, ?)"
            case .removeFromSearch:
                "INSERT INTO words_fts (words_fts, rowid, term, reading, meaning, examples, notes, tags) VALUES ('delete', ?, ?, ?, ?, ?, ?, ?)"
            case .insertTag:
                "INSERT OR IGNORE INTO word_tags (tag_key, word_seq, tag) VALUES (?, ?, ?)"
            case .deleteTags:
                "DELETE FROM word_tags WHERE word_seq = ?"
            }
        }
    }

    /// How many new words `insertWords` writes: one statement for several rows saves
    /// the work each statement costs besides its rows (a bulk write's rows go in faster).
    static let rowsPerInsert = 16
    /// How many values `insertSQL` takes per row.
    static let valuesPerInsertedRow = 29

    /// An INSERT of `rows` new words, each with `valuesPerInsertedRow` values in the
    /// order `WordLibrary.newRowValues` gives them (the last one, the time this device saw
    /// the word, is kept only for a word in the Trash).
    private static func insertSQL(rows: Int) -> String {
        let tuples = (0..<rows).map { row in
            let first = row * valuesPerInsertedRow
            let plain = (1...valuesPerInsertedRow - 1).map { "?\(first + $0)" }.joined(separator: ", ")
            return "(\(plain), CASE WHEN ?\(first + 10) IS NULL THEN NULL ELSE ?\(first + valuesPerInsertedRow) END)"
        }
        return """
            INSERT INTO words (id, term, meaning, reading, examples, notes, tags, created_at, updated_at, deleted_at,
                term_time, meaning_time, reading_time, examples_time, notes_time, tags_time, deleted_time,
                pending, local_change, term_key, sort_key,
                term_by, meaning_by, reading_by, examples_by, notes_by, tags_by, deleted_by, trash_seen_at)
            VALUES \(tuples.joined(separator: ",\n    "))
            """
    }

    private unowned let database: Database
    private var prepared: [Statement?] = Array(repeating: nil, count: Kind.allCases.count)

    init(database: Database) {
        self.database = database
    }

    /// The prepared statement of `kind`.
    func statement(_ kind: Kind) throws -> Statement {
        if let statement = prepared[kind.rawValue] { return statement }
        let statement = try database.prepare(kind.sql)
        prepared[kind.rawValue] = statement
        return statement
    }
}
