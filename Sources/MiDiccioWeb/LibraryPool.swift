import Foundation
import MiDiccioKit

/// Open connections to one library, lent to one request at a time.
///
/// `WordLibrary` is not thread-safe, and libmicrohttpd answers on several threads, so
/// each request borrows a connection of its own; SQLite's WAL mode and busy timeout
/// let these connections and the command-line tool share the file. Keeping a few open
/// saves reopening (and re-preparing statements) on every request.
final class LibraryPool: @unchecked Sendable {
    let path: String
    private let environment: [String: String]
    private let lock = NSLock()
    private var idle: [WordLibrary] = []
    private let maximumIdle = 8

    /// True when a connection wrote since the log was last moved into the file.
    private var wrote = false

    init(path: String, environment: [String: String]) {
        self.path = path
        self.environment = environment
        Self.moveLogAfterWrites(of: self)
    }

    /// Runs `body` with a connection nobody else is using.
    func withLibrary<T>(_ body: (WordLibrary) throws -> T) throws -> T {
        let borrowed = lock.withLock { idle.popLast() }
        let library = try borrowed ?? WordLibrary(path: path, environment: environment)
        let before = library.rowsWritten
        defer {
            let wroteNow = library.rowsWritten != before
            lock.withLock {
                if wroteNow { wrote = true }
                if idle.count < maximumIdle { idle.append(library) }
            }
        }
        return try body(library)
    }

    /// Whether a connection wrote since the last call.
    private func takeWrote() -> Bool {
        lock.withLock {
            defer { wrote = false }
            return wrote
        }
    }

    /// How often, in seconds, the log is moved into the library file after a write.
    static let logMoveInterval = 1.0

    /// While `pool` lives, moves the log into the library file within about a second of
    /// any write through it (`WordLibrary.moveLogIntoFile`): the web app keeps the library
    /// open for days, and SQLite alone moves the log only once it passes 4 MB, so a copy
    /// of the file alone, taken to a new laptop while the app ran, lacked the newest words.
    private static func moveLogAfterWrites(of pool: LibraryPool) {
        OwnThread.start { [weak pool] in
            while true {
                Thread.sleep(forTimeInterval: logMoveInterval)
                guard let pool else { return }
                if pool.takeWrote() { try? pool.withLibrary { try $0.moveLogIntoFile() } }
            }
        }
    }
}
