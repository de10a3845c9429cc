import CFullTextRank
import CSQLite
import Synchronization

/// One open SQLite connection. The only owner of its `sqlite3` handle: `deinit` closes it.
///
/// Not thread-safe: a `Database` is used by one thread at a time (the library that
/// owns it serialises access).
package final class Database {
    /// The raw handle, for `Statement` only.
    package let handle: OpaquePointer
    /// The file this connection opened.
    package let path: String
    private var statementCache: [String: Statement] = [:]
    /// The cached statements' SQL, oldest first: the cache keeps at most
    /// `statementCacheLimit`, so no pattern of queries can grow it without bound.
    private var cacheOrder: [String] = []
    /// The most statements `cached(_:)` keeps prepared.
    package static let statementCacheLimit = 64
    private var transactionDepth = 0
    /// Run inside every write transaction (`write`) that changed a row, just before it
    /// commits (one that changed nothing writes nothing, and stays so).
    package var beforeCommit: (() throws -> Void)?
    /// Run once by `prepareToClose()`, as the connection's owner lets go of it: before
    /// SQLite closes it (and, when it is the last connection, copies the log into the file).
    package var beforeClose: ((Database) -> Void)?
    /// Asked before each checkpoint `checkpoint(_:)` runs; one it answers false to is left
    /// out (the log holds what the file this connection opened must not take).
    package var mayCheckpoint: ((Database) -> Bool)?

    /// Opens (and with `create`, creates) the database at `path`. `fileAlone` opens it
    /// read-only as an unchanging file (SQLite's `immutable`): no lock is taken, no file
    /// is made beside it, and a WAL beside it is not read.
    package init(path: String, create: Bool, readOnly: Bool = false, fileAlone: Bool = false) throws {
        _ = Self.memoryCountStopped
        _ = Self.listeningForRecoveries
        var pointer: OpaquePointer?
        var flags = readOnly || fileAlone ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly && !fileAlone { flags |= SQLITE_OPEN_CREATE }
        flags |= SQLITE_OPEN_NOMUTEX
        var name = path
        if fileAlone {
            flags |= SQLITE_OPEN_URI
            name = "file:" + Self.uriEscaped(path) + "?immutable=1"
        }
        let code = sqlite3_open_v2(name, &pointer, flags, nil)
        guard code == SQLITE_OK, let pointer else {
            let message = pointer.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            // sqlite3_open_v2 hands back a handle even on failure; it must still be closed.
            if let pointer { sqlite3_close_v2(pointer) }
            throw SQLiteError(code: code, message: message)
        }
        handle = pointer
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    /// SQLite's count of the memory it takes is turned off once, before the first
    /// connection opens: the count takes a process-wide mutex on every allocation and free,
    /// and SQLite as Debian builds it allocates each small object on its own (no
    /// lookaside). Without it an import or a new device's first sync of 100,000 words takes
    /// about 6% less time (README, "Bulk work"). MiDiccio reads no memory figure from
    /// SQLite. Only on Linux, where this binary holds its own SQLite; on Apple platforms
    /// the system's SQLite may already be in use by the system's own frameworks.
    private static let memoryCountStopped: Bool = {
        #if canImport(Glibc)
        return midiccio_sqlite_stop_counting_memory() == SQLITE_OK
        #else
        return false
        #endif
    }()

    /// Whether SQLite has counted any memory in this process (its high-water mark is not
    /// zero): false on Linux once a connection has opened, as `memoryCountStopped` turns
    /// the count off before SQLite is first used.
    package static var sqliteCountsMemory: Bool { sqlite3_memory_highwater(0) > 0 }

    /// `path` for a `file:` URI: `%`, `?` and `#` would otherwise end or change it.
    private static func uriEscaped(_ path: String) -> String {
        var escaped = ""
        for character in path {
            switch character {
            case "%": escaped += "%25"
            case "?": escaped += "%3f"
            case "#": escaped += "%23"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Makes `transform` callable from SQL as `name(text)`: one text argument, one text
    /// result (NULL gives NULL), deterministic. It lives as long as the connection.
    package func defineTextFunction(_ name: String, _ transform: @escaping (String) -> String) throws {
        let box = Unmanaged.passRetained(TextFunction(transform)).toOpaque()
        let code = sqlite3_create_function_v2(
            handle, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
            { context, _, arguments in
                guard let context, let function = sqlite3_user_data(context) else { return }
                guard let arguments, let argument = arguments[0], let text = sqlite3_value_text(argument) else {
                    sqlite3_result_null(context)
                    return
                }
                let result = Unmanaged<TextFunction>.fromOpaque(function).takeUnretainedValue().transform(String(cString: text))
                sqlite3_result_text(context, result, -1, midiccio_sqlite_transient())
            }, nil, nil,
            { box in
                if let box { Unmanaged<TextFunction>.fromOpaque(box).release() }
            })
        guard code == SQLITE_OK else { throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle))) }
    }

    /// The SQL function the library's triggers call before each change of `library_info`
    /// (`defineSchemaGuard`).
    package static let schemaGuardFunction = "midiccio_schema_known"

    /// How the guard's error starts; the schema that stopped it follows.
    private static let schemaGuardMessage = "the library was updated by a newer MiDiccio, to schema "

    /// Makes `midiccio_schema_known(version)` callable from SQL on this connection: NULL
    /// while `version` is at most `newest`, else an error naming it. The library's triggers
    /// call it with the file's `user_version` before every change of `library_info`, which
    /// every write of MiDiccio makes, ever since its first version: a connection without it
    /// (a MiDiccio from before the triggers, left running across an update) cannot write any
    /// more, and one whose `newest` is older is refused once a newer MiDiccio updated the file
    /// under it. Such a process's edits went on after the update, written as the old schema
    /// knew them (found by the exploratory helper, round 15A).
    package func defineSchemaGuard(newest: Int) throws {
        let code = sqlite3_create_function_v2(
            handle, Self.schemaGuardFunction, 1, SQLITE_UTF8 | SQLITE_INNOCUOUS, UnsafeMutableRawPointer(bitPattern: max(newest, 1)),
            { context, _, arguments in
                guard let context else { return }
                let newest = Int(bitPattern: sqlite3_user_data(context))
                let version = arguments.flatMap { $0[0] }.map { Int(sqlite3_value_int64($0)) } ?? 0
                guard version > newest else { return sqlite3_result_null(context) }
                sqlite3_result_error(context, Database.schemaGuardMessage + String(version), -1)
            }, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle))) }
    }

    /// The schema a newer MiDiccio updated the library to, when `error` is the guard's
    /// refusal (`defineSchemaGuard`); nil for any other error.
    package static func newerSchema(in error: SQLiteError) -> Int? {
        let message = Array(error.message.utf8)
        guard let range = message.firstRange(of: Array(schemaGuardMessage.utf8)) else { return nil }
        return Int(String(decoding: message[range.upperBound...].prefix { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self))
    }

    /// Adds the FTS5 auxiliary function `midiccio_match_stats` to this connection (see
    /// CFullTextRank): a match's BM25 inputs without the per-phrase document counts.
    package func defineFullTextMatchStats() throws {
        let code = midiccio_register_match_stats(handle)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle))) }
    }

    /// Keeps the WAL file (emptied) and the shared-memory index file beside the database
    /// when the last connection closes, instead of deleting them (SQLITE_FCNTL_PERSIST_WAL).
    package func keepWALFiles() {
        var on: Int32 = 1
        _ = sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &on)
    }

    /// Makes closing this connection leave the WAL beside the file as it is, even when it
    /// is the last connection: for a log found not to fit its file, which closing would
    /// otherwise copy into it.
    package func leaveLogOnClose() {
        _ = midiccio_sqlite_skip_checkpoint_on_close(handle)
    }

    /// Runs `beforeClose`, once. Called by the connection's owner as it lets go (not from
    /// `deinit`: statements cannot run on a connection being destroyed).
    package func prepareToClose() {
        guard let beforeClose else { return }
        self.beforeClose = nil
        beforeClose(self)
    }

    /// True when the file at `path` is no longer the one this connection opened: another
    /// file was moved into its place, or it was moved away or deleted (SQLite's
    /// SQLITE_FCNTL_HAS_MOVED, which compares the inode at the path with its own).
    package var fileMovedAway: Bool {
        var moved: Int32 = 0
        return sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && moved != 0
    }

    /// How a checkpoint treats other connections (SQLite's `wal_checkpoint` modes).
    package enum CheckpointMode: String {
        /// Copies what no reader still needs, waiting for nobody.
        case passive = "PASSIVE"
        /// Waits (up to the busy timeout) for writers and readers, copies the whole log and
        /// cuts it to nothing.
        case truncate = "TRUNCATE"
    }

    /// Copies the log into the file (`mode`), unless `mayCheckpoint` says no.
    package func checkpoint(_ mode: CheckpointMode) throws {
        if let mayCheckpoint, !mayCheckpoint(self) { return }
        try execute("PRAGMA wal_checkpoint(\(mode.rawValue))")
    }

    /// The system's error number (`errno`) of the last failed file operation SQLite made on
    /// this connection, e.g. ENOSPC when the disk is full (SQLite's own message then says
    /// only "disk I/O error").
    package var systemErrno: Int32 { sqlite3_system_errno(handle) }

    /// Runs one or more statements that return no rows.
    package func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: code, message: message, sql: sql)
        }
    }

    /// A prepared statement for `sql`, reused across calls (reset and unbound first).
    package func cached(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        let statement = try Statement(database: self, sql: sql)
        if cacheOrder.count >= Self.statementCacheLimit {
            statementCache[cacheOrder.removeFirst()] = nil
        }
        statementCache[sql] = statement
        cacheOrder.append(sql)
        return statement
    }

    /// A new prepared statement for `sql`, for one-off queries.
    package func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Runs `body` in a transaction that takes the write lock at once (BEGIN IMMEDIATE),
    /// so two processes writing one library wait for each other instead of failing
    /// half way. Nested calls join the outer transaction.
    package func write<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            return try body()
        }
        try execute("BEGIN IMMEDIATE")
        transactionDepth = 1
        let changesBefore = sqlite3_total_changes64(handle)
        do {
            let result = try body()
            if let beforeCommit, sqlite3_total_changes64(handle) != changesBefore { try beforeCommit() }
            transactionDepth = 0
            try execute("COMMIT")
            return result
        } catch {
            transactionDepth = 0
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` with `tick` called every `instructions` steps of SQLite's virtual
    /// machine, in every statement `body` runs (those an FTS5 rebuild runs inside itself
    /// too): a sign of life from one long statement that has no count of its own. `tick`
    /// cannot stop the statement. Without `tick`, runs `body` alone.
    package func withTicks<T>(every instructions: Int32, _ tick: (() -> Void)?, _ body: () throws -> T) throws -> T {
        guard let tick else { return try body() }
        let box = Unmanaged.passRetained(TickBox(tick))
        sqlite3_progress_handler(
            handle, instructions,
            { context in
                guard let context else { return 0 }
                Unmanaged<TickBox>.fromOpaque(context).takeUnretainedValue().tick()
                return 0
            }, box.toOpaque())
        defer {
            sqlite3_progress_handler(handle, 0, nil, nil)
            box.release()
        }
        return try body()
    }

    /// The closure `withTicks` hands to SQLite as a pointer.
    private final class TickBox {
        let tick: () -> Void
        init(_ tick: @escaping () -> Void) { self.tick = tick }
    }

    /// True while a transaction is open on this connection (SQLite's own view: outside
    /// one, a statement commits by itself).
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Runs `body` in a read transaction so it sees one consistent state.
    package func read<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 { return try body() }
        try execute("BEGIN DEFERRED")
        transactionDepth = 1
        defer {
            transactionDepth = 0
            try? execute("COMMIT")
        }
        return try body()
    }

    /// The rowid of the last row inserted on this connection.
    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// How many statements `cached(_:)` holds prepared now.
    package var cachedStatementCount: Int { statementCache.count }

    /// The number of rows the last statement changed.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// A single integer from a query such as `PRAGMA user_version`.
    package func integer(_ sql: String, _ values: [SQLValue] = []) throws -> Int64? {
        let statement = try cached(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? statement.int64(0) : nil
    }

    /// A single text value from a query.
    package func text(_ sql: String, _ values: [SQLValue] = []) throws -> String? {
        let statement = try cached(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? statement.optionalText(0) : nil
    }

    /// A single blob from a query, as bytes.
    package func blob(_ sql: String, _ values: [SQLValue] = []) throws -> [UInt8]? {
        let statement = try cached(sql)
        try statement.bind(values)
        defer { statement.reset() }
        return try statement.step() ? statement.bytes(0) : nil
    }

    /// Runs a statement that returns no rows, with `values` bound in order.
    package func run(_ sql: String, _ values: [SQLValue] = []) throws {
        try run(try cached(sql), values)
    }

    /// Runs an already prepared statement (hot paths keep theirs, skipping the cache).
    package func run(_ statement: Statement, _ values: [SQLValue]) throws {
        statement.reset()
        try statement.bind(values)
        defer { statement.reset() }
        while try statement.step() {}
    }
}

/// A Swift function SQL calls (see `Database.defineTextFunction`).
private final class TextFunction {
    let transform: (String) -> String

    init(_ transform: @escaping (String) -> String) {
        self.transform = transform
    }
}

// MARK: - A log left by a process that stopped without closing

extension Database {
    /// The WAL files whose index a connection of this process rebuilt from the log file
    /// itself while it held committed changes, not yet asked about (`rebuiltFromLeftoverLog`).
    private static let recoveredLogs = Mutex<Set<String>>([])

    /// SQLite's log is listened to once, before the first connection opens, for its
    /// notice of a recovery (SQLITE_NOTICE_RECOVER_WAL: "recovered N frames from WAL file
    /// PATH"). Only on Linux, for the reason `memoryCountStopped` gives; elsewhere
    /// `rebuiltFromLeftoverLog` is always false.
    private static let listeningForRecoveries: Bool = {
        #if canImport(Glibc)
        return midiccio_sqlite_set_log { _, code, message in
            // SQLITE_NOTICE_RECOVER_WAL is (SQLITE_NOTICE | (1 << 8)), a macro Swift cannot import.
            guard code == SQLITE_NOTICE | (1 << 8), let message else { return }
            let text = String(cString: message)
            guard let start = text.firstRange(of: " from WAL file ")?.upperBound else { return }
            let log = String(text[start...])
            Database.recoveredLogs.withLock { _ = $0.insert(log) }
        } == SQLITE_OK
        #else
        return false
        #endif
    }()

    /// True, once, when this process rebuilt the index of this file's WAL from a log that
    /// held committed changes: what the first connection does after a process stopped
    /// without closing the file (killed, or the power lost). Such a log is applied to the
    /// file that is at the path now, which may no longer be the file it was written for.
    package func rebuiltFromLeftoverLog() -> Bool {
        guard let file = sqlite3_db_filename(handle, "main"), let log = sqlite3_filename_wal(file) else { return false }
        let name = String(cString: log)
        return Self.recoveredLogs.withLock { $0.remove(name) != nil }
    }
}
