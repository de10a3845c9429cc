import CSQLite

/// A failed SQLite call: the result code, SQLite's message and the SQL that failed.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's (extended) result code.
    public var code: Int32
    /// SQLite's own explanation.
    public var message: String
    /// The statement that failed, when there was one.
    public var sql: String?

    /// Makes an error from its parts.
    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// A busy error (SQLITE_BUSY) raised outside SQLite: something else is still writing,
    /// and waiting for it took too long.
    public static func busy(_ message: String) -> SQLiteError {
        SQLiteError(code: SQLITE_BUSY, message: message)
    }

    /// True when another connection held the lock past the busy timeout.
    public var isBusy: Bool { code & 0xFF == SQLITE_BUSY || code & 0xFF == SQLITE_LOCKED }

    /// True when SQLite could not write for want of room (SQLITE_FULL): the disk is full.
    public var isFull: Bool { code & 0xFF == SQLITE_FULL }

    /// True when SQLite may not write the file (SQLITE_READONLY): the file, its folder or its
    /// disk is read-only.
    public var isReadOnly: Bool { code & 0xFF == SQLITE_READONLY }

    /// True when SQLite found the file's pages inconsistent (SQLITE_CORRUPT): the file was
    /// damaged on disk, or copied while it was being written.
    public var isCorrupt: Bool { code & 0xFF == SQLITE_CORRUPT }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " (in: \(sql.prefix(200)))" }
        return text
    }
}
