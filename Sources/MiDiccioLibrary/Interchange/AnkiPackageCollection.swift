import Foundation
import MiDiccioStore

/// What MiDiccio takes from an Anki collection (an SQLite file), in either schema:
///
/// - schema 11, the legacy one (collection.anki2 and collection.anki21): tables `col`,
///   `notes` and `cards`, with the note types and decks as JSON in `col.models` and
///   `col.decks`;
/// - schemas 15 to 18 (collection.anki21b): the same `notes` and `cards`, with the note
///   types in `notetypes` and `fields`, and the decks in `decks` (names with `\u{1F}`
///   between their parts where people see `::`).
///
/// Followed from Anki's source at 25.09.2-382 (rslib/src/storage/schema11.sql and
/// upgrades/schema15_upgrade.sql to schema18_upgrade.sql).
struct AnkiCollection {
    /// A note type: its name and its fields' names, by ordinal.
    struct NoteType {
        var name: String
        var fields: [String]
    }

    /// One note: its fields in order, its tags, and the decks its cards are in.
    struct Note {
        var id: Int64
        var typeID: Int64
        var fields: [String]
        var tags: [String]
        var deckIDs: [Int64]
    }

    /// The newest schema this reader knows (Anki's SCHEMA_MAX_VERSION at that version).
    static let newestSchema: Int64 = 18

    var schema: Int64
    var noteTypes: [Int64: NoteType]
    /// Each deck's name as its parts (`Spanish::Verbs` is `["Spanish", "Verbs"]`).
    var decks: [Int64: [String]]
    /// How many notes the collection holds.
    var noteCount: Int
    /// How the one note of the placeholder collection Anki writes for its older versions
    /// starts.
    static let placeholderText = "Please update to the latest Anki version"
    /// Its name in the package, for messages.
    private let name: String
    /// The collection, read-only, open until this is released.
    private let database: Database

    /// Reads the collection at `path` (a temporary copy), read-only; `name` is its name in
    /// the package, for messages.
    init(path: String, name: String) throws(AnkiPackageError) {
        do {
            let database = try SQLiteImportFile.openUntrusted(path)
            let tables = try Self.tables(database, name: name)
            for required in ["col", "notes", "cards"] where !tables.contains(required) {
                throw AnkiPackageError(
                    "\(name) inside the package is an SQLite file but not an Anki collection (it has no \(required) table)")
            }
            schema = try database.integer("SELECT ver FROM col") ?? 0
            guard schema <= Self.newestSchema else {
                throw AnkiPackageError("\(name) was written by a newer Anki (collection schema \(schema)); MiDiccio reads schemas 11 to 18")
            }
            guard schema >= 11 else {
                throw AnkiPackageError("\(name) is an Anki collection of an unknown schema (\(schema)); MiDiccio reads schemas 11 to 18")
            }
            if schema >= 15 {
                for required in ["notetypes", "fields", "decks"] where !tables.contains(required) {
                    throw AnkiPackageError("\(name) says it is collection schema \(schema) but has no \(required) table")
                }
                noteTypes = try Self.noteTypes(database, name: name)
                decks = try Self.decks(database, name: name)
            } else {
                (noteTypes, decks) = try Self.legacyTypesAndDecks(database, name: name)
            }
            noteCount = Int(try database.integer("SELECT count(*) FROM notes") ?? 0)
            // Current Anki puts a placeholder collection.anki2 beside its collection.anki21b
            // for older versions: one note asking to update Anki. Alone, it was imported as
            // that word (round 14A).
            if noteCount == 1, name == "collection.anki2",
                let text = try database.text("SELECT flds FROM notes LIMIT 1"), text.hasPrefix(Self.placeholderText)
            {
                throw AnkiPackageError(
                    "the package holds only the placeholder collection Anki writes for its older versions (\"\(Self.placeholderText)...\"): "
                        + "its notes are in collection.anki21b, which is not in this file (packed again by another program?). "
                        + "Export it again from Anki")
            }
            self.database = database
            self.name = name
        } catch let error as AnkiPackageError {
            throw error
        } catch let error as SQLiteError {
            throw Self.describe(error, name: name)
        } catch {
            throw AnkiPackageError("\(name) inside the package cannot be read (\(error))")
        }
    }

    // MARK: - Reading

    private static func tables(_ database: Database, name: String) throws -> Set<String> {
        // The first read is where SQLite finds out whether the file is a database at all.
        let statement = try database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        return Set(try statement.rows { try text($0, 0, name: name, what: "a table name") })
    }

    private static func noteTypes(_ database: Database, name: String) throws -> [Int64: NoteType] {
        var types: [Int64: NoteType] = [:]
        let typeNames = try database.prepare("SELECT id, name FROM notetypes").rows([]) {
            ($0.int64(0), try text($0, 1, name: name, what: "a note type's name"))
        }
        for (id, typeName) in typeNames {
            types[id] = NoteType(name: typeName, fields: [])
        }
        let fields = try database.prepare("SELECT ntid, ord, name FROM fields ORDER BY ntid, ord").rows {
            ($0.int64(0), $0.int64(1), try text($0, 2, name: name, what: "a field's name"))
        }
        for (typeID, ordinal, fieldName) in fields {
            // Anki's deck packages keep the fields of note types they leave out.
            guard types[typeID] != nil else { continue }
            guard ordinal == types[typeID]!.fields.count else {
                throw AnkiPackageError("\(name): the fields of note type \"\(types[typeID]!.name)\" are not numbered 0, 1, 2 ...")
            }
            types[typeID]!.fields.append(fieldName)
        }
        return types
    }

    private static func decks(_ database: Database, name: String) throws -> [Int64: [String]] {
        var decks: [Int64: [String]] = [:]
        let names = try database.prepare("SELECT id, name FROM decks").rows([]) {
            ($0.int64(0), try text($0, 1, name: name, what: "a deck's name"))
        }
        for (id, deckName) in names {
            decks[id] = deckName.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
        }
        return decks
    }

    /// The JSON in schema 11's `col` row: note types (`models`) and decks, keyed by id.
    private struct LegacyNoteType: Decodable {
        struct Field: Decodable {
            var name: String
            var ord: Int
        }
        var name: String
        var flds: [Field]
    }

    private struct LegacyDeck: Decodable {
        var name: String
    }

    private static func legacyTypesAndDecks(_ database: Database, name: String) throws -> ([Int64: NoteType], [Int64: [String]]) {
        let rows = try database.prepare("SELECT models, decks FROM col").rows {
            (try bytes($0, 0, name: name, what: "the note types"), try bytes($0, 1, name: name, what: "the decks"))
        }
        guard let (modelsJSON, decksJSON) = rows.first else {
            throw AnkiPackageError("\(name) is not an Anki collection (its col table is empty)")
        }
        let models: [String: LegacyNoteType]
        let legacyDecks: [String: LegacyDeck]
        do {
            models = try JSONDecoder().decode([String: LegacyNoteType].self, from: Data(modelsJSON))
            legacyDecks = try JSONDecoder().decode([String: LegacyDeck].self, from: Data(decksJSON))
        } catch {
            throw AnkiPackageError("\(name) is not an Anki collection (its note types or decks are not the JSON Anki writes)")
        }
        var types: [Int64: NoteType] = [:]
        for (key, model) in models {
            guard let id = Int64(key) else { continue }
            types[id] = NoteType(name: model.name, fields: model.flds.sorted { $0.ord < $1.ord }.map(\.name))
        }
        var decks: [Int64: [String]] = [:]
        for (key, deck) in legacyDecks {
            guard let id = Int64(key) else { continue }
            decks[id] = deck.name.components(separatedBy: "::")
        }
        return (types, decks)
    }

    /// Hands each note to `body`, in the order they were added (by id, which Anki makes
    /// from the time), one at a time. The notes and their cards are read side by side,
    /// both in note order. Errors in reading the collection are `AnkiPackageError`s;
    /// `body`'s own pass on as they are.
    func forEachNote(_ body: (Note) throws -> Void) throws {
        try readingInto(body, translate: { error in (error as? SQLiteError).map { Self.describe($0, name: name) } ?? error }) { each in
            // A card in a filtered deck remembers its home deck in odid; the home deck is
            // the one that says what the note is about.
            let cards = try database.prepare("SELECT nid, CASE WHEN odid != 0 THEN odid ELSE did END FROM cards ORDER BY nid, ord")
            defer { cards.reset() }
            var card = try cards.step() ? (note: cards.int64(0), deck: cards.int64(1)) : nil
            try database.prepare("SELECT id, mid, tags, flds FROM notes ORDER BY id").forEachRow { row in
                let id = row.int64(0)
                var decks: [Int64] = []
                while let current = card, current.note <= id {
                    if current.note == id && !decks.contains(current.deck) { decks.append(current.deck) }
                    card = try cards.step() ? (note: cards.int64(0), deck: cards.int64(1)) : nil
                }
                let tags = try Self.text(row, 2, name: name, what: "the tags of note \(id)")
                let fields = try Self.text(row, 3, name: name, what: "the fields of note \(id)")
                try each(
                    Note(
                        id: id, typeID: row.int64(1),
                        fields: fields.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init),
                        tags: tags.split(whereSeparator: { $0.isWhitespace }).map(String.init),
                        deckIDs: decks))
            }
        }
    }

    // MARK: - Text

    private static func bytes(_ row: Statement, _ column: Int32, name: String, what: String) throws -> [UInt8] {
        let bytes = row.bytes(column)
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw AnkiPackageError("\(name) has broken UTF-8 in \(what) (Anki writes only UTF-8)")
        }
        return bytes
    }

    /// Column `column` as text, refusing broken UTF-8 instead of mending it silently.
    private static func text(_ row: Statement, _ column: Int32, name: String, what: String) throws -> String {
        guard let text = String(validating: row.bytes(column), as: UTF8.self) else {
            throw AnkiPackageError("\(name) has broken UTF-8 in \(what) (Anki writes only UTF-8)")
        }
        return text
    }

    private static func describe(_ error: SQLiteError, name: String) -> AnkiPackageError {
        switch error.code & 0xFF {
        case 26:  // SQLITE_NOTADB
            AnkiPackageError("\(name) inside the package is not an SQLite database, so not an Anki collection")
        case 11:  // SQLITE_CORRUPT
            AnkiPackageError("\(name) inside the package is a damaged SQLite database (\(error.message))")
        case 1:  // SQLITE_ERROR: a missing column or table, for one
            AnkiPackageError("\(name) inside the package is not laid out as an Anki collection (\(error.message))")
        default:
            AnkiPackageError("\(name) inside the package cannot be read (\(error.message))")
        }
    }
}
