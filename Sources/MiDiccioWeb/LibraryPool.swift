import Foundation
import MiDiccioFiles
import MiDiccioKit

/// Open connections to one library, lent to one request at a time, and closed again once
/// the app has been left alone for a moment.
///
/// `WordLibrary` is not thread-safe, and libmicrohttpd answers on several threads, so
/// each request borrows a connection of its own; SQLite's WAL mode and busy timeout
/// let these connections and the command-line tool share the file. Keeping a few open
/// while the app is in use saves reopening (and re-preparing statements) on every request.
///
/// People restore a library file from a backup, or copy one over it, while the app sits
/// in the background. A connection kept open past that moment reads its cached pages of
/// the file that was there before and writes them into the new one (a malformed library,
/// found by hand), or goes on writing into a file moved out of the way. So connections
/// close once the app has been idle for `closeAfter` seconds, as if it were not running,
/// and a connection is lent only while the file looks as it did when the pool's
/// connections were opened (`FileStamp`).
final class LibraryPool: @unchecked Sendable {
    let path: String
    private let environment: [String: String]
    private let closeAfter: Double
    private let lock = NSLock()
    private var idle: [WordLibrary] = []
    private let maximumIdle = 8
    /// How many connections requests or the pool's thread have borrowed.
    private var lent = 0
    /// The file as it was when the connections now open were opened; nil when none is.
    private var stamp: FileStamp?
    /// Counts the times every open connection was given up; a connection borrowed before
    /// the last time is closed when it comes back.
    private var generation = 0
    /// When a request last gave its connection back.
    private var lastUse = Date()

    /// Opens connections to the library at `path` as they are needed. Every `interval`
    /// seconds, a thread of the pool's own looks after the library (`keepFileWholeEvery`);
    /// connections close once no request has used one for `closeAfter` seconds.
    init(
        path: String, environment: [String: String], interval: Double = LibraryPool.housekeepingInterval,
        closeAfter: Double = LibraryPool.idleCloseAfter
    ) {
        self.path = path
        self.environment = environment
        self.closeAfter = closeAfter
        Self.keepFileWholeEvery(interval, of: self)
    }

    /// Runs `body` with a connection nobody else is using. Its purges leave their scrub to
    /// the pool's thread (`WordLibrary.scrubsLater`).
    func withLibrary<T>(_ body: (WordLibrary) throws -> T) throws -> T {
        try withLibrary(byRequest: true, body)
    }

    /// Lends a connection to `body`. A request's use keeps the connections open
    /// (`closeAfter`); the pool's thread's does not. With `ownWrite`, what `body` writes
    /// into the library file itself (a checkpoint) is taken for the pool's own: the stamp
    /// is read again after it, so the next request keeps the connections.
    private func withLibrary<T>(byRequest: Bool, ownWrite: Bool = false, _ body: (WordLibrary) throws -> T) throws -> T {
        var stale: [WordLibrary] = []
        let (borrowed, borrowedIn) = lock.withLock {
            // Another file in the path, or this one written by something that is not a
            // connection of ours: what the open connections cached may no longer be in it.
            let now = FileSystem.stamp(path)
            if now != stamp {
                (stale, idle) = (idle, [])
                generation += 1
                stamp = now
            }
            lent += 1
            return (idle.popLast(), generation)
        }
        // The connections to a file moved away close before one opens the new file: the
        // last of them empties the log that both files' connections would share.
        stale.removeAll()
        let library: WordLibrary
        do {
            library = try borrowed ?? Self.open(path, environment)
        } catch {
            lock.withLock { lent -= 1 }
            throw error
        }
        var surplus: [WordLibrary] = []
        defer {
            lock.withLock {
                lent -= 1
                if byRequest { lastUse = Date() }
                if ownWrite && borrowedIn == generation { stamp = FileSystem.stamp(path) }
                if borrowedIn == generation && idle.count < maximumIdle {
                    idle.append(library)
                } else {
                    surplus.append(library)
                }
            }
            surplus.removeAll()
        }
        return try body(library)
    }

    private static func open(_ path: String, _ environment: [String: String]) throws -> WordLibrary {
        let library = try WordLibrary(path: path, environment: environment)
        library.scrubsLater = true
        return library
    }

    /// How often, in seconds, the pool's thread looks after the library.
    static let housekeepingInterval = 1.0

    /// After how many seconds without a request the pool closes its connections.
    static let idleCloseAfter = 2.0

    /// How long, in seconds, the pool's thread leaves a scrub that failed for another
    /// reason than a busy library (a full disk, say) before trying it again: each try
    /// rewrites the whole search index.
    static let failedScrubPause = 60.0

    /// While `pool` lives and holds connections open, every `interval` seconds:
    /// - scrubs the text of words purged through the app, or by a command that found the
    ///   library busy (`WordLibrary.scrubIfOwed`): purges answer at once and leave the
    ///   scrub, which rewrites the whole search index, to this thread;
    /// - moves the log into the library file (`WordLibrary.moveLogIntoFile`), whoever
    ///   wrote it: while the app is in use, neither SQLite (until the log passes 4 MB) nor
    ///   a `midiccio` command that closes (it is not the last connection) moves the log, so
    ///   a copy of the file alone, taken meanwhile, lacked the newest words;
    /// - once no request has come for `closeAfter` seconds, closes every connection (the
    ///   last to close empties the log): the library at rest is as safe to copy, or to
    ///   replace from a backup, as when the app is not running.
    private static func keepFileWholeEvery(_ interval: Double, of pool: LibraryPool) {
        OwnThread.start { [weak pool] in
            var scrubPausedUntil = Date.distantPast
            while true {
                Thread.sleep(forTimeInterval: interval)
                guard let pool else { return }
                guard pool.holdsConnections else { continue }
                do {
                    if Date() >= scrubPausedUntil {
                        try pool.withLibrary(byRequest: false, ownWrite: true) { _ = try $0.scrubIfOwed() }
                    }
                } catch {
                    scrubPausedUntil = Date().addingTimeInterval(failedScrubPause)
                }
                try? pool.withLibrary(byRequest: false, ownWrite: true) { try $0.moveLogIntoFile() }
                pool.closeIfIdle()
            }
        }
    }

    /// True while a connection is open, idle or lent.
    private var holdsConnections: Bool { lock.withLock { !idle.isEmpty || lent > 0 } }

    /// Closes every idle connection once no request has used one for `closeAfter`
    /// seconds and none is lent.
    private func closeIfIdle() {
        var closing: [WordLibrary] = []
        lock.withLock {
            guard lent == 0, Date().timeIntervalSince(lastUse) >= closeAfter else { return }
            (closing, idle) = (idle, [])
            stamp = nil
        }
        closing.removeAll()
    }
}
