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

    init(path: String, environment: [String: String]) {
        self.path = path
        self.environment = environment
    }

    /// Runs `body` with a connection nobody else is using.
    func withLibrary<T>(_ body: (WordLibrary) throws -> T) throws -> T {
        let borrowed = lock.withLock { idle.popLast() }
        let library = try borrowed ?? WordLibrary(path: path, environment: environment)
        defer {
            lock.withLock {
                if idle.count < maximumIdle { idle.append(library) }
            }
        }
        return try body(library)
    }
}
