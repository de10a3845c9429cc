import MiDiccioModel
import MiDiccioStore

/// The statements every save of a word runs, and the lookup a sync makes for every word
/// it reads, prepared once per connection: looking them up by their SQL text on each
/// call cost more than running some of them.
final class HotStatements {
    /// The statements, by what they do.
    enum Kind: Int, CaseIterable {
        /// `insertWords` is `insertWord` for `HotStatements.rowsPerInsert` words at once.
        case insertWord, insertWords, addToSearch, removeFromSearch, addToTermSearch, removeFromTermSearch, insertTag, deleteTag
        case storedByID

        var sql: String {
            switch self {
            case .insertWord: HotStatements.insertSQL(rows: 1)
            case .insertWords: HotStatements.insertSQL(rows: HotStatements.rowsPerInsert)
            case .addToSearch:
                "INSERT INTO words_fts (rowid, term, reading, meaning, examples, notes, tags) VALUES (?, ?, ?, ?, ?, ?, ?)"
            case .removeFromSearch:
                "INSERT INTO words_fts (words_fts, rowid, term, reading, meaning, examples, notes, tags) VALUES ('delete', ?, ?, ?, ?, ?, ?, ?)"
            case .addToTermSearch:
                "INSERT INTO terms_fts (rowid, term) VALUES (?, ?)"
            case .removeFromTermSearch:
                "INSERT INTO terms_fts (terms_fts, rowid, term) VALUES ('delete', ?, ?)"
            case .insertTag:
                "INSERT OR IGNORE INTO word_tags (tag_key, word_seq, tag) VALUES (?, ?, ?)"
            case .deleteTag:
                "DELETE FROM word_tags WHERE word_seq = ? AND tag_key = ?"
            case .storedByID:
                "SELECT \(WordLibrary.columns) FROM words WHERE id = ?"
            }
        }
    }

    /// How many new words `insertWords` writes: one statement for several rows saves
    /// the work each statement costs besides its rows (a bulk write's rows go in faster).
    static let rowsPerInsert = 16
    /// How many values `insertSQL` takes per row.
    static let valuesPerInsertedRow = 30

    /// An INSERT of `rows` new words, each with `valuesPerInsertedRow` values in the
    /// order `WordLibrary.newRowValues` gives them (the last one, the time this device saw
    /// the word, is kept only for a word in the Trash, and never before its `deleted_at`).
    private static func insertSQL(rows: Int) -> String {
        let tuples = (0..<rows).map { row in
            let first = row * valuesPerInsertedRow
            let plain = (1...valuesPerInsertedRow - 1).map { "?\(first + $0)" }.joined(separator: ", ")
            return "(\(plain), CASE WHEN ?\(first + 10) IS NULL THEN NULL ELSE max(?\(first + valuesPerInsertedRow), ?\(first + 10)) END)"
        }
        return """
            INSERT INTO words (id, term, meaning, reading, examples, notes, tags, created_at, updated_at, deleted_at,
                term_time, meaning_time, reading_time, examples_time, notes_time, tags_time, deleted_time,
                pending, local_change, term_key, sort_key,
                term_by, meaning_by, reading_by, examples_by, notes_by, tags_by, deleted_by, tag_clock, trash_seen_at)
            VALUES \(tuples.joined(separator: ",\n    "))
            """
    }

    /// The columns of `words` that an index, an index's condition or a trigger reads.
    /// An update of a stored word sets these only when they change: SQLite then leaves
    /// alone every index and trigger that reads none of the columns it sets. Setting
    /// them all made every save rewrite ten index entries and run the Trash's triggers,
    /// and so keep a statement journal, which SQLite moves to a temporary file for the
    /// rest of the write once one passes 64 KiB: a system call per page after that. A
    /// tag put on a word now rewrites two indexes' entries and keeps no journal.
    struct IndexedColumns: OptionSet, Hashable {
        let rawValue: UInt8
        static let id = IndexedColumns(rawValue: 1 << 0)
        static let createdAt = IndexedColumns(rawValue: 1 << 1)
        static let updatedAt = IndexedColumns(rawValue: 1 << 2)
        /// `deleted_at` with `trash_seen_at`, which follows it.
        static let deletedAt = IndexedColumns(rawValue: 1 << 3)
        /// The term's keys, `term_key` and `sort_key`.
        static let termKeys = IndexedColumns(rawValue: 1 << 4)
        static let pending = IndexedColumns(rawValue: 1 << 5)
        static let localChange = IndexedColumns(rawValue: 1 << 6)
    }

    /// The UPDATE of a stored word that sets its fields, field times, writers and tag clock, then
    /// the `columns` given, in the order `IndexedColumns` lists them (`deletedAt` takes
    /// two values: the time, then now, the time this device saw the word enter the
    /// Trash), then takes the row number.
    static func updateSQL(setting columns: IndexedColumns) -> String {
        var assignments = ["term", "meaning", "reading", "examples", "notes", "tags"]
        assignments += WordField.allCases.map { "\($0.rawValue)_time" }
        assignments += WordField.allCases.map { "\($0.rawValue)_by" }
        assignments.append("tag_clock")
        var sql = assignments.enumerated().map { "\($1) = ?\($0 + 1)" }
        var next = assignments.count + 1
        func set(_ column: String) {
            sql.append("\(column) = ?\(next)")
            next += 1
        }
        if columns.contains(.id) { set("id") }
        if columns.contains(.createdAt) { set("created_at") }
        if columns.contains(.updatedAt) { set("updated_at") }
        if columns.contains(.deletedAt) {
            // Kept while the word stays in the Trash; set when it enters; cleared when it leaves.
            // Set to the later of now and the deletion's own time: a clock far behind when
            // the word came in would otherwise count its days from weeks before, and purge it
            // everywhere once set right (found by the exploratory helper, round 9).
            let time = next
            set("deleted_at")
            sql.append(
                """
                trash_seen_at = CASE WHEN ?\(time) IS NULL THEN NULL
                    WHEN deleted_at IS ?\(time) AND trash_seen_at IS NOT NULL THEN trash_seen_at ELSE max(?\(next), ?\(time)) END
                """)
            next += 1
        }
        if columns.contains(.termKeys) {
            set("term_key")
            set("sort_key")
        }
        if columns.contains(.pending) { set("pending") }
        if columns.contains(.localChange) { set("local_change") }
        return "UPDATE words SET \(sql.joined(separator: ", ")) WHERE seq = ?\(next)"
    }

    private unowned let database: Database
    private var prepared: [Statement?] = Array(repeating: nil, count: Kind.allCases.count)
    private var updates: [UInt8: Statement] = [:]

    init(database: Database) {
        self.database = database
    }

    /// The prepared UPDATE of a stored word that sets `columns` (`updateSQL`).
    func update(setting columns: IndexedColumns) throws -> Statement {
        if let statement = updates[columns.rawValue] { return statement }
        let statement = try database.prepare(Self.updateSQL(setting: columns))
        updates[columns.rawValue] = statement
        return statement
    }

    /// The prepared statement of `kind`.
    func statement(_ kind: Kind) throws -> Statement {
        if let statement = prepared[kind.rawValue] { return statement }
        let statement = try database.prepare(kind.sql)
        prepared[kind.rawValue] = statement
        return statement
    }
}
