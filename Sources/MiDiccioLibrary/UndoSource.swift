import MiDiccioModel
import MiDiccioStore

/// Which file the last import or restore read, and when: what its undo names, so that an
/// undo run after a later import or restore failed (killed, or stopped by bad input, which
/// changes nothing) says it undoes the one before (found by the exploratory helper, round
/// 9: it undid yesterday's restore without a word of which).
public struct UndoSource: Hashable, Sendable {
    /// The file's name, without its folder.
    public var file: String
    /// When the import or restore ran, by this device's clock.
    public var at: Timestamp

    /// The file at `path`, read at `at`.
    init(path: String, at: Timestamp) {
        file = path.split(separator: "/").last.map(String.init) ?? path
        self.at = at
    }

    /// The source as `stored` gave it, or nil.
    init?(stored: String) {
        guard let tab = stored.firstIndex(of: "\t"), let milliseconds = Int64(stored[..<tab]) else { return nil }
        file = String(stored[stored.index(after: tab)...])
        at = Timestamp(milliseconds: milliseconds)
    }

    /// How it is kept in the library.
    var stored: String { "\(at.milliseconds)\t\(file)" }

    /// This import or restore exactly (its time to the millisecond, then its file), as an
    /// undo asked for it names it (`undoImport(expecting:)`, `undoRestore(expecting:)`).
    /// The text for people named the file and the minute only, and the web app's undo of
    /// its own import undid a terminal's import of a file of the same name made in the same
    /// minute (round 18B).
    public var identity: String { stored }

    /// For people: "words.csv of 2026-12-03 14:02 UTC".
    public var described: String {
        let time = at.iso8601.prefix(16).split(separator: "T").joined(separator: " ")
        return "\(file) of \(time) UTC"
    }
}

extension WordLibrary {
    /// Where the last restore's source is kept, and the last import's.
    static let restoreSourceKey = "restore.undo.source", importSourceKey = "import.undo.source"

    /// Notes, inside the writing transaction, that the undo kept under `key` is of `path`.
    func noteUndoSource(_ key: String, path: String) throws {
        try setInfo(key, UndoSource(path: path, at: clock.now()).stored)
    }

    /// The source of the import the next `undoImport` undoes, if it is known.
    public func importUndoSource() throws -> UndoSource? {
        try guarded { try info(Self.importSourceKey).flatMap(UndoSource.init(stored:)) }
    }

    /// The source of the restore the next `undoRestore` undoes, if it is known.
    public func restoreUndoSource() throws -> UndoSource? {
        try guarded { try info(Self.restoreSourceKey).flatMap(UndoSource.init(stored:)) }
    }

    /// Throws `undoSourceChanged` when the undo kept under `key` is no longer of the source
    /// whose `identity` is `expected` (nil: any). Call inside the undo's transaction.
    func checkUndoSource(_ key: String, expected: String?) throws {
        guard let expected, let now = try info(key).flatMap(UndoSource.init(stored:)), now.identity != expected else { return }
        throw LibraryError.undoSourceChanged(now: now.described)
    }

    /// The source noted under `key`, removed (inside the undo's transaction).
    func takeUndoSource(_ key: String) throws -> UndoSource? {
        let source = try info(key).flatMap(UndoSource.init(stored:))
        try database.run("DELETE FROM library_info WHERE key = ?", [.text(key)])
        return source
    }
}
