import Foundation
import MiDiccioFiles
import MiDiccioModel
import MiDiccioStore

/// Every kind of file `midiccio import` reads. `detect` tells them apart by content;
/// `--format` names one to skip the guessing.
///
/// Adding a format: a case here, a line in `detect`, and a case in
/// `WordLibrary.readImport` that turns the file into `SheetRow`s.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// MiDiccio CSV: a header row naming the columns, then one word a row.
    case csv
    /// MiDiccio TSV, the same with tabs.
    case tsv
    /// Anki's "Notes in Plain Text" export, which starts with `#key:value` lines.
    case ankiText = "anki-text"
    /// A list without a header: term, meaning, then notes by position.
    case list
    /// Kindle's Vocabulary Builder database, `vocab.db`.
    case kindle
    /// KOReader's vocabulary builder database, `vocabulary_builder.sqlite3`.
    case koreader
    /// An Anki deck package, `.apkg`: a zip holding an SQLite collection
    /// (Interchange/AnkiPackage*.swift).
    case apkg
    /// An Anki collection package, `.colpkg`: the same layout for a whole collection, read
    /// the same way; only a `.colpkg` name tells it from an `.apkg`.
    case colpkg

    /// The name said back to the user: "Imported 12 words from vocab.db (Kindle ...)".
    public var title: String {
        switch self {
        case .csv: "MiDiccio CSV"
        case .tsv: "MiDiccio TSV"
        case .ankiText: "Anki plain-text export"
        case .list: "list without a header"
        case .kindle: "Kindle Vocabulary Builder"
        case .koreader: "KOReader vocabulary builder"
        case .apkg: "Anki deck package"
        case .colpkg: "Anki collection package"
        }
    }

    /// The title after "a" or "an", for messages: "this is an Anki deck package".
    public var titleWithArticle: String {
        let startsWithVowel = title.first.map { "AEIOUaeiou".contains($0) } ?? false
        return (startsWithVowel ? "an " : "a ") + title
    }

    /// Every format with its `--format` name, for messages: "csv (MiDiccio CSV), ...".
    public static var known: String {
        allCases.map { "\($0.rawValue) (\($0.title))" }.joined(separator: ", ")
    }
}

/// The limits that keep a hostile or mistaken file from exhausting memory or time.
public enum ImportLimits {
    /// The largest file `import` reads: 100 MB, as the web app's upload limit.
    public static let fileBytes = 100 * 1024 * 1024
    /// The most words one import may bring.
    public static let rows = 1_000_000
}

/// Words a file holds (a sheet or list, a Kindle or KOReader database, an Anki package's
/// collection), read from it while they are written rather than held in memory. The import reads them on its
/// reading thread: one thread at a time, so a reader holding a connection may be
/// `@unchecked Sendable`.
protocol ImportedRows: Sendable {
    /// About how many words: what the import announces and its progress counts towards.
    var estimatedRows: Int { get }
    /// Hands each word to `body`, in the file's order.
    func forEachRow(_ body: (SheetRow) throws -> Void) throws
    /// The same, each with its fields as the file had them where the format has such (a
    /// list without a header), else nil.
    func forEachRowWithFields(_ body: (SheetRow, [String]?) throws -> Void) throws
}

/// Rows of look-ups in an e-reader (Kindle, KOReader): importing the same file again adds
/// only the look-ups not imported before, told by the words already in the library.
protocol LookupRows: ImportedRows {
    /// The term key of each word (`TermKey.fold`), to find look-ups imported before.
    var termKeys: Set<String> { get }
}

extension ImportedRows {
    func forEachRowWithFields(_ body: (SheetRow, [String]?) throws -> Void) throws {
        try forEachRow { try body($0, nil) }
    }
}

/// Runs `read`, which hands rows to `body` while it reads them: an error of `body` (the
/// library's, while it writes what was read) comes out as it was, and an error of `read`
/// itself goes through `translate` (a problem of the file, said about it). Without this,
/// an error thrown back through a reader looks like the reader's own.
func readingInto<Row>(
    _ body: (Row) throws -> Void, translate: (any Error) -> any Error, _ read: (_ each: (Row) throws -> Void) throws -> Void
) throws {
    do {
        // (`body` is only called while `read` runs, never kept.)
        try withoutActuallyEscaping(body) { body in
            try read { row in
                do { try body(row) } catch { throw PassedError(error: error) }
            }
        }
    } catch let passed as PassedError {
        throw passed.error
    } catch {
        throw translate(error)
    }
}

/// An error of the callback `readingInto` hands rows to, on its way out through the reader.
private struct PassedError: Error {
    let error: any Error
}

/// The first bytes of every SQLite 3 database file.
/// A zip archive's local file header, as in Anki packages.
private let zipSignature: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
/// The end record that starts an empty zip archive.
private let emptyZipSignature: [UInt8] = [0x50, 0x4B, 0x05, 0x06]

extension ImportFormat {
    /// What the bytes of `file` are, or an error naming the formats MiDiccio knows.
    ///
    /// An SQLite file is opened (read-only) to look at its tables; a zip archive is an Anki
    /// package when it holds a collection; text must be UTF-8. A `.apkg` or `.colpkg` name
    /// is a hint: such a file is read as a package, whose reader says what is wrong if it
    /// is not one, and the name tells a collection package from a deck package.
    static func detect(_ data: Data, file: String) throws -> ImportFormat {
        if data.starts(with: FileSystem.sqliteSignature) {
            let source = try SQLiteImportFile.open(file)
            let tables = try source.tableNames()
            if Set(["WORDS", "LOOKUPS", "BOOK_INFO"]).isSubset(of: tables) { return .kindle }
            if Set(["VOCABULARY", "TITLE"]).isSubset(of: tables) { return .koreader }
            // KOReader before 20220608 kept the book's title in the vocabulary table, with
            // no title table: it was refused as neither format (found by the exploratory
            // helper, round 11), though `--format koreader` read it.
            if tables.contains("VOCABULARY"), Set(["word", "create_time", "book_title"]).isSubset(of: try source.columns(of: "vocabulary"))
            {
                return .koreader
            }
            // Another MiDiccio library (an old laptop's, a conflict copy): `backup restore`
            // takes it, which the refusal did not say (round 14A).
            if Set(["LIBRARY_INFO", "WORDS", "WORD_TAGS"]).isSubset(of: tables) {
                throw LibraryError.invalidImport(
                    file: file, line: nil,
                    message: "a MiDiccio library file, not a list to import; take its words in with: "
                        + "midiccio backup restore \(FileSystem.shellQuoted(file)) (the newer of each field wins)")
            }
            throw LibraryError.invalidImport(
                file: file, line: nil,
                message: "an SQLite database, but neither Kindle's vocab.db (tables WORDS, LOOKUPS, BOOK_INFO) nor "
                    + "KOReader's vocabulary builder (tables vocabulary, title)")
        }
        let named = packageFormat(named: file)
        if let named { return named }
        if data.starts(with: zipSignature) || data.starts(with: emptyZipSignature) {
            let holdsCollection: Bool
            do {
                holdsCollection = try AnkiPackage.holdsCollection(at: file)
            } catch {
                throw LibraryError.invalidImport(
                    file: file, line: nil, message: "a zip archive that cannot be read (\(error.message)); MiDiccio reads \(known)")
            }
            guard holdsCollection else {
                throw LibraryError.invalidImport(
                    file: file, line: nil,
                    message: "a zip archive that holds no Anki collection (collection.anki2, collection.anki21 or "
                        + "collection.anki21b), so not an Anki package; MiDiccio reads \(known)")
            }
            return .apkg
        }
        // The first lines tell the format; a whole file of a million rows need not
        // become text twice (the import reads it whole once it knows how).
        let text = try utf8Text(leadingLines(of: data), file: file)
        if text.unicodeScalars.contains(where: { $0 == "\0" }) {
            if UTF16Text.looksLike(data) {
                throw LibraryError.invalidImport(
                    file: file, line: nil, message: "UTF-16 text without a byte order mark, not UTF-8; " + UTF16Text.advice)
            }
            throw LibraryError.invalidImport(file: file, line: nil, message: "a binary file; MiDiccio reads \(known)")
        }
        try refuseJSON(text, file: file)
        return WordSheet.announcedFormat(of: text) ?? .list
    }

    /// Refuses a JSON file, which read as a list without a header imported each of its lines
    /// as a word: a MiDiccio backup is restored instead (ids, the Trash and reviews kept).
    /// JSON is told by its first line: `{` or `[` alone, or `{"` or `[{` first.
    private static func refuseJSON(_ text: String, file: String) throws {
        let firstLine = text.drop { $0 == "\u{FEFF}" || $0.isWhitespace }.prefix { !$0.isNewline }
        let line = firstLine.filter { !$0.isWhitespace }
        guard line == "{" || line == "[" || line.hasPrefix("{\"") || line.hasPrefix("[{") else { return }
        // Through the bytes: StringProtocol's contains(_:) is the older Foundation's.
        let isBackup = Array(text.utf8.prefix(4_096)).firstRange(of: Array("\"\(BackupFile.formatName)\"".utf8)) != nil
        throw LibraryError.invalidImport(
            file: file, line: nil,
            message: isBackup
                ? "a MiDiccio backup, which is restored, not imported: midiccio backup restore '\(file)' (in the web app: Settings, \"Restore from a backup file\")"
                : "a JSON file; MiDiccio reads JSON only as its own backup (midiccio backup restore), and imports \(known)")
    }

    /// How many bytes of a file's start are read to tell its format: a megabyte, and one
    /// byte more to know whether the file goes on.
    static let detectionBytes = (1 << 20) + 1

    /// The first megabyte of `data` (a file's first `detectionBytes`), cut after its last
    /// line break there, or all of it when it is no longer. A first line longer than that
    /// is cut at the last whole character, so no character is cut in half.
    static func leadingLines(of data: Data) -> Data {
        let limit = 1 << 20
        guard data.count > limit else { return data }
        let head = data.prefix(limit)
        guard let lastBreak = head.lastIndex(of: 0x0A) else {
            return Data(head.prefix(FileSystem.completeUTF8Prefix(Array(head))))
        }
        return data[data.startIndex...lastBreak]
    }

    /// `.apkg` or `.colpkg` as the file's name says, or nil.
    static func packageFormat(named file: String) -> ImportFormat? {
        let name = file.lowercased()
        if name.hasSuffix(".colpkg") { return .colpkg }
        if name.hasSuffix(".apkg") { return .apkg }
        return nil
    }

    /// The bytes as text, or an error naming the line and byte of the first broken
    /// UTF-8 sequence, with the likely cause (UTF-16, or Latin-1 and Windows-1252 as
    /// spreadsheets save a plain CSV) and how to save the file again.
    static func utf8Text(_ data: Data, file: String) throws -> String {
        if let text = String(data: data, encoding: .utf8) { return text }
        var line = 1
        var offset = 0
        var iterator = data.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        loop: while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar):
                if scalar.count == 1 && scalar.first == UInt8(ascii: "\n") { line += 1 }
                offset += scalar.count
            case .error:
                break loop
            case .emptyInput:
                break loop
            }
        }
        let cause =
            UTF16Text.looksLike(data)
            ? "UTF-16 text (as Excel's \"Unicode Text\" saves it), not UTF-8"
            : "not UTF-8 text from byte \(offset + 1) of the file on (most often a file saved as Latin-1 or Windows-1252, "
                + "as a spreadsheet's plain \"CSV\" is)"
        throw LibraryError.invalidImport(
            file: file, line: line,
            message: cause + "; save it again as UTF-8 (in Excel: \"CSV UTF-8\"; in LibreOffice: the character set "
                + "\"Unicode (UTF-8)\")")
    }
}

// MARK: - SQLite files

/// An SQLite file brought in for import, opened read-only and checked, so that a
/// damaged or disguised file is refused before a row is read.
final class SQLiteImportFile {
    let database: Database
    let file: String

    private init(database: Database, file: String) {
        self.database = database
        self.file = file
    }

    /// Opens an SQLite file someone else wrote (an e-reader's database, an Anki
    /// collection) read-only, with its schema trusted with nothing: no view or trigger
    /// of the file may call a function of ours.
    static func openUntrusted(_ path: String) throws -> Database {
        let database = try Database(path: path, create: false, readOnly: true)
        try database.execute("PRAGMA trusted_schema = OFF")
        return database
    }

    /// Opens `file` read-only; a file SQLite cannot read, or whose integrity check
    /// fails, is an `invalidImport` error. (Anki collections skip the check: their
    /// indexes use Anki's own `unicase` collation, which SQLite needs to check them.)
    ///
    /// Every read of it, from the check on, is of one state of the file: a read
    /// transaction lasts as long as the connection. An e-reader's database written to
    /// while it was read (a sync program still delivering it) was read in two passes of two
    /// states, and a word got another word's sentences and notes (found by the exploratory
    /// helper, round 27B #3).
    static func open(_ file: String) throws -> SQLiteImportFile {
        do {
            let database = try openUntrusted(file)
            try database.execute("BEGIN")
            let check = try database.text("PRAGMA quick_check(1)")
            guard check == "ok" else {
                throw LibraryError.invalidImport(
                    file: file, line: nil, message: "a damaged SQLite database (\(check ?? "no answer"))")
            }
            return SQLiteImportFile(database: database, file: file)
        } catch let error as SQLiteError {
            throw LibraryError.invalidImport(
                file: file, line: nil, message: "starts like an SQLite database but SQLite cannot read it (\(error.message))")
        }
    }

    /// The names of the file's tables, in upper case.
    func tableNames() throws -> Set<String> {
        try sqlite {
            Set(try database.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").rows { $0.text(0).uppercased() })
        }
    }

    /// The columns of `table`, in lower case.
    func columns(of table: String) throws -> Set<String> {
        try sqlite {
            Set(try database.prepare("SELECT name FROM pragma_table_info(?)").rows([.text(table)]) { $0.text(0).lowercased() })
        }
    }

    /// Refuses the file unless `table` has every one of `required`, naming what is missing.
    func require(_ table: String, _ required: [String], format: ImportFormat) throws {
        let found = try columns(of: table)
        let missing = required.filter { !found.contains($0) }
        guard missing.isEmpty else {
            let what = found.isEmpty ? "no table \(table)" : "table \(table) lacks \(missing.joined(separator: ", "))"
            throw LibraryError.invalidImport(file: file, line: nil, message: "not a \(format.title) database: \(what)")
        }
    }

    /// Runs the query `sql` with `values` and hands each row to `body`. SQLite's errors
    /// in reading this file become import errors about it; `body`'s own errors (the
    /// library's, while it writes what was read) pass on as they are.
    func reading(_ sql: String, _ values: [SQLValue] = [], _ body: (Statement) throws -> Void) throws {
        try readingInto(body, translate: { error in (error as? SQLiteError).map(invalidImport) ?? error }) { each in
            try database.prepare(sql).forEachRow(values, each)
        }
    }

    /// Runs `body`, turning SQLite's errors into import errors about this file.
    func sqlite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw invalidImport(error)
        }
    }

    /// SQLite's `error` in reading this file, as an import error about it.
    private func invalidImport(_ error: SQLiteError) -> LibraryError {
        LibraryError.invalidImport(file: file, line: nil, message: "SQLite cannot read it (\(error.message))")
    }
}
