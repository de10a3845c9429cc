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
        Self.moveLogEverySecond(of: self)
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

    /// How often, in seconds, the log is moved into the library file.
    static let logMoveInterval = 1.0

    /// While `pool` lives, moves the log into the library file every second
    /// (`WordLibrary.moveLogIntoFile`), whoever wrote it: the web app keeps the library
    /// open for days, and while it does, neither SQLite (until the log passes 4 MB) nor a
    /// `midiccio` command that closes (it is not the last connection) moves the log, so a
    /// copy of the file alone, taken to a new laptop while the app ran, lacked the newest
    /// words. With nothing new in the log, SQLite only reads the log's header.
    private static func moveLogEverySecond(of pool: LibraryPool) {
        OwnThread.start { [weak pool] in
            while true {
                Thread.sleep(forTimeInterval: logMoveInterval)
                guard let pool else { return }
                try? pool.withLibrary { try $0.moveLogIntoFile() }
            }
        }
    }
}
