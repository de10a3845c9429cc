import Foundation
import MiDiccioFiles
import MiDiccioKit
import MiDiccioStore

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
/// found by hand), or goes on writing into a file moved out of the way. So:
/// - connections close once the app has been idle for `idleCloseAfter` seconds, as if it were
///   not running;
/// - a connection is lent only while the file looks as it did when the pool's connections
///   were opened (`FileStamp`); otherwise they close and new ones open;
/// - when another file was moved into the path, no connection opens until every one to
///   the file moved away has closed: the last of them empties the log beside the path,
///   which the new file's first connection would otherwise take for its own.
///
/// Connections close under the pool's lock, as the last reference to them goes.
final class LibraryPool: @unchecked Sendable {
    let path: String
    private let environment: [String: String]
    private let condition = NSCondition()
    private var idle: [WordLibrary] = []
    private let maximumIdle = 8
    /// How many connections are lent, by the generation they were opened in.
    private var lent: [Int: Int] = [:]
    /// The file as it was when the connections now open were opened; nil when none is.
    private var stamp: FileStamp?
    /// Counts the times every open connection was given up; a connection opened before the
    /// last time is closed when it comes back.
    private var generation = 0
    /// The first generation whose connections reach the file now in the path: those of
    /// earlier generations reach a file moved away.
    private var movedAt = 0
    /// When a request last gave its connection back.
    private var lastUse = Date()

    /// Opens connections to the library at `path` as they are needed. Every `interval`
    /// seconds, a thread of the pool's own looks after the library (`keepFileWholeEvery`);
    /// connections close once no request has used one for `idleCloseAfter` seconds.
    init(path: String, environment: [String: String], interval: Double = LibraryPool.housekeepingInterval) {
        self.path = path
        self.environment = environment
        Self.keepFileWholeEvery(interval, of: self)
    }

    /// Runs `body` with a connection nobody else is using. Its purges leave their scrub to
    /// the pool's thread (`WordLibrary.scrubsLater`).
    func withLibrary<T>(_ body: (WordLibrary) throws -> T) throws -> T {
        try withLibrary(byRequest: true, body)
    }

    /// A lent connection; the pool drops it from here when it comes back, so that, when it
    /// does not keep it, the connection closes under the pool's lock.
    private final class Lease {
        var library: WordLibrary?
        let generation: Int

        init(_ library: WordLibrary, _ generation: Int) {
            self.library = library
            self.generation = generation
        }
    }

    /// Lends a connection to `body`. A request's use keeps the connections open
    /// (`idleCloseAfter`); the pool's thread's does not. With `ownWrite`, what `body` writes
    /// into the library file itself (a checkpoint) is taken for the pool's own: the stamp
    /// is read again after it, so the next request keeps the connections.
    private func withLibrary<T>(byRequest: Bool, ownWrite: Bool = false, _ body: (WordLibrary) throws -> T) throws -> T {
        let lease = try borrow()
        defer { giveBack(lease, byRequest: byRequest, ownWrite: ownWrite) }
        guard let library = lease.library else { preconditionFailure("a lease holds its connection until given back") }
        return try body(library)
    }

    private func borrow() throws -> Lease {
        condition.lock()
        defer { condition.unlock() }
        dropIfFileChanged()
        let deadline = Date().addingTimeInterval(Self.movedFileWait)
        while lent.contains(where: { $0.key < movedAt && $0.value > 0 }) {
            guard condition.wait(until: deadline) else {
                throw LibraryError.storage(
                    .busy("the library file was replaced while a long action was still writing to the one it replaced"))
            }
        }
        // Opened under the lock too: a connection to a file just moved into the path waits
        // for the ones to the file moved away.
        let library = try idle.popLast() ?? Self.open(path, environment)
        lent[generation, default: 0] += 1
        return Lease(library, generation)
    }

    /// Under the lock: when the file is not as the open connections found it (another
    /// file in the path, or this one written by something that is not a connection of
    /// ours, so what they cached may no longer be in it), closes the idle ones and has the
    /// lent ones close when they come back.
    private func dropIfFileChanged() {
        let now = FileSystem.stamp(path)
        guard now != stamp else { return }
        if let known = stamp, !(now.map(known.isSameFile) ?? false) {
            movedAt = generation + 1
        }
        retire(idle, generation)
        idle = []
        generation += 1
        stamp = now
    }

    private func giveBack(_ lease: Lease, byRequest: Bool, ownWrite: Bool) {
        condition.lock()
        defer { condition.unlock() }
        if byRequest { lastUse = Date() }
        if ownWrite && lease.generation == generation, let known = stamp, let now = FileSystem.stamp(path),
            now.isSameFile(as: known)
        {
            // The pool's own checkpoint changed the size and time; another file moved into
            // the path meanwhile never is its own.
            stamp = now
        }
        lent[lease.generation, default: 1] -= 1
        if lent[lease.generation] == 0 { lent[lease.generation] = nil }
        if lease.generation == generation && idle.count < maximumIdle, let library = lease.library {
            idle.append(library)
        } else if let library = lease.library {
            retire([library], lease.generation)
        }
        // Closes the connection, unless kept above.
        lease.library = nil
        condition.broadcast()
    }

    /// Readies connections of `generation` to close. SQLite does not empty the log of a
    /// file moved away from its path when its last connection closes (it leaves the file
    /// as it is), so the file now in the path would take that log for its own: the last
    /// connection to a file moved away empties the log first (while another one is still
    /// lent, its reads or writes would keep that waiting). Called under the lock, after
    /// the lease of a connection given back has left `lent`.
    private func retire(_ libraries: [WordLibrary], _ generation: Int) {
        guard generation < movedAt, !lent.contains(where: { $0.key < movedAt }), let last = libraries.last else { return }
        try? last.emptyLog()
    }

    /// Opens a connection; a library deleted while the app ran is not made again, empty.
    private static func open(_ path: String, _ environment: [String: String]) throws -> WordLibrary {
        let library = try WordLibrary(path: path, create: false, environment: environment)
        library.scrubsLater = true
        return library
    }

    /// How often, in seconds, the pool's thread looks after the library.
    static let housekeepingInterval = 1.0

    /// After how many seconds without a request the pool closes its connections.
    static let idleCloseAfter = 2.0

    /// How long, in seconds, a request waits for a long action still writing to a library
    /// file moved away before it is refused as busy (SQLite's own busy timeout).
    static let movedFileWait = 10.0

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
    /// - once no request has come for `idleCloseAfter` seconds, closes every connection (the
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
    private var holdsConnections: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !idle.isEmpty || !lent.isEmpty
    }

    /// Closes every idle connection once no request has used one for `idleCloseAfter`
    /// seconds and none is lent.
    private func closeIfIdle() {
        condition.lock()
        defer { condition.unlock() }
        guard lent.isEmpty, Date().timeIntervalSince(lastUse) >= Self.idleCloseAfter else { return }
        // A file moved into the path meanwhile: the connections to the old one empty its log.
        dropIfFileChanged()
        idle = []
        stamp = nil
    }
}
