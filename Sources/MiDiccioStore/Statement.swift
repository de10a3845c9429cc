import CSQLite

/// A value bound to a statement parameter.
package enum SQLValue: Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

/// One prepared statement; `deinit` finalizes it.
package final class Statement {
    private let handle: OpaquePointer
    private unowned let database: Database
    /// The SQL it was prepared from, for error messages.
    package let sql: String

    package init(database: Database, sql: String) throws {
        var pointer: OpaquePointer?
        let code = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard code == SQLITE_OK, let pointer else {
            sqlite3_finalize(pointer)
            throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(database.handle)), sql: sql)
        }
        handle = pointer
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    /// Clears bindings and rewinds so the statement can run again.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1...n.
    package func bind(_ values: [SQLValue]) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    package func bind(_ value: SQLValue, at index: Int32) throws {
        let code: Int32
        switch value {
        case .null: code = sqlite3_bind_null(handle, index)
        case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
        case .text(var text):
            // The UTF-8 bytes with their length: no C string is made and nothing is counted.
            code = text.withUTF8 { bytes -> Int32 in
                guard let base = bytes.baseAddress else { return sqlite3_bind_text(handle, index, "", 0, nil) }
                return sqlite3_bind_text(
                    handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self),
                    Int32(bytes.count), midiccio_sqlite_transient())
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes {
                sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), midiccio_sqlite_transient())
            }
        }
        try check(code)
    }

    /// Binds `bytes` as a blob (SQLite copies them) to the 1-based parameter `index`.
    package func bind(blob bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        try check(sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), midiccio_sqlite_transient()))
    }

    /// Binds an integer to the 1-based parameter `index` (no `SQLValue` is made).
    package func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    /// Runs a statement that returns no rows with the values bound so far, then rewinds
    /// it, keeping the bindings (a hot loop rebinds each parameter before the next run).
    package func runBound() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Advances to the next row; false when the statement is done.
    @discardableResult
    package func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = SQLiteError(code: code, message: String(cString: sqlite3_errmsg(database.handle)), sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement with `values` and hands each row to `body`, keeping none.
    package func forEachRow(_ values: [SQLValue] = [], _ body: (Statement) throws -> Void) throws {
        try bind(values)
        defer { reset() }
        while try step() { try body(self) }
    }

    /// Runs the statement with `values` and collects one value per row.
    package func rows<T>(_ values: [SQLValue] = [], _ makeRow: (Statement) throws -> T) throws -> [T] {
        try bind(values)
        defer { reset() }
        var result: [T] = []
        while try step() { result.append(try makeRow(self)) }
        return result
    }

    // MARK: - Columns

    /// Column `index` as an integer (0 for NULL).
    package func int64(_ index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// Column `index` as a floating-point number (0 for NULL).
    package func double(_ index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// True when column `index` is NULL.
    package func isNull(_ index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// Column `index` as text ("" for NULL).
    package func text(_ index: Int32) -> String { optionalText(index) ?? "" }

    /// The bytes of column `index` (empty for NULL or an empty blob).
    package func bytes(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let pointer = sqlite3_column_blob(handle, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Hands the bytes of column `index` to `body` where SQLite holds them (empty for
    /// NULL), valid only during the call: for rows read by the million.
    package func withBytes<T>(_ index: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        // The blob first, then its size, as SQLite asks: a size read first can be made
        // stale by the conversion the blob call may do.
        let blob = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: count > 0 ? blob : nil, count: count))
    }

    /// Column `index` as text, or nil for NULL.
    package func optionalText(_ index: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(database.handle)), sql: sql)
        }
    }
}
