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

    /// Opens connections to the library at `path` as they are needed. Every `interval`
    /// seconds, a thread of the pool's own keeps the library file whole
    /// (`keepFileWholeEvery`).
    init(path: String, environment: [String: String], interval: Double = LibraryPool.housekeepingInterval) {
        self.path = path
        self.environment = environment
        Self.keepFileWholeEvery(interval, of: self)
    }

    /// Runs `body` with a connection nobody else is using. Its purges leave their scrub to
    /// the pool's thread (`WordLibrary.scrubsLater`).
    func withLibrary<T>(_ body: (WordLibrary) throws -> T) throws -> T {
        let borrowed = lock.withLock { idle.popLast() }
        let library = try borrowed ?? Self.open(path, environment)
        defer {
            lock.withLock {
                if idle.count < maximumIdle { idle.append(library) }
            }
        }
        return try body(library)
    }

    private static func open(_ path: String, _ environment: [String: String]) throws -> WordLibrary {
        let library = try WordLibrary(path: path, environment: environment)
        library.scrubsLater = true
        return library
    }

    /// How often, in seconds, the pool's thread looks after the library file.
    static let housekeepingInterval = 1.0

    /// How long, in seconds, the pool's thread leaves a scrub that failed for another
    /// reason than a busy library (a full disk, say) before trying it again: each try
    /// rewrites the whole search index.
    static let failedScrubPause = 60.0

    /// While `pool` lives, every `interval` seconds:
    /// - scrubs the text of words purged through the app, or by a command that found the
    ///   library busy (`WordLibrary.scrubIfOwed`): purges answer at once and leave the
    ///   scrub, which rewrites the whole search index, to this thread;
    /// - moves the log into the library file (`WordLibrary.moveLogIntoFile`), whoever
    ///   wrote it: the web app keeps the library open for days, and while it does, neither
    ///   SQLite (until the log passes 4 MB) nor a `midiccio` command that closes (it is not
    ///   the last connection) moves the log, so a copy of the file alone, taken to a new
    ///   laptop while the app ran, lacked the newest words. With nothing new in the log,
    ///   SQLite only reads the log's header.
    private static func keepFileWholeEvery(_ interval: Double, of pool: LibraryPool) {
        OwnThread.start { [weak pool] in
            var scrubPausedUntil = Date.distantPast
            while true {
                Thread.sleep(forTimeInterval: interval)
                guard let pool else { return }
                do {
                    if Date() >= scrubPausedUntil { try pool.withLibrary { _ = try $0.scrubIfOwed() } }
                } catch {
                    scrubPausedUntil = Date().addingTimeInterval(failedScrubPause)
                }
                try? pool.withLibrary { try $0.moveLogIntoFile() }
            }
        }
    }
}
