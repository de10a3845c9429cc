import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Every open connection of one server, with whether a request is in progress on it and
/// since when it has been idle; near the connection limit, it drops the connections idle
/// longest so a new client still gets in.
///
/// libmicrohttpd 0.9.75 cannot close a chosen connection. Shutting its socket down makes
/// libmicrohttpd read end-of-file and clean the connection up itself; the socket is never
/// closed here. The table is told of a connection's end (under its lock) before
/// libmicrohttpd closes the socket, so a socket number is never shut down once reused.
///
/// With a thread pool each worker thread has its own share of the connection limit. The
/// count and the choice are over all of them: while the server as a whole stays a tenth
/// below its limit, at least one worker is below its share and accepts.
final class IdleConnections: Sendable {
    private struct Connection {
        let socket: Int32
        /// When the last request ended (or the connection opened); nil while a request is in progress.
        var idleSince: UInt64?
        /// True once its socket was shut down here, waiting for libmicrohttpd to clean it up.
        var dropped = false
    }

    private struct State {
        var connections: [UInt: Connection] = [:]
        /// Connections not dropped.
        var alive = 0
        var droppedCount = 0
    }

    /// Idle connections are dropped once this many are open.
    let threshold: Int
    private let state = Mutex(State())

    /// For a server of at most `limit` connections: a tenth of them (at least one) is kept
    /// free for clients that come next.
    init(limit: Int) {
        threshold = max(1, limit - max(1, limit / 10))
    }

    /// How many connections were dropped for being idle, since the server started.
    var droppedCount: Int { state.withLock { $0.droppedCount } }

    /// A connection opened; when `threshold` or more are now open, drops the ones idle
    /// longest (never this one, nor one with a request in progress).
    func opened(_ connection: UInt, socket: Int32, now: UInt64) {
        state.withLock { state in
            state.connections[connection] = Connection(socket: socket, idleSince: now)
            state.alive += 1
            while state.alive > threshold {
                var oldest: (key: UInt, since: UInt64)?
                for (key, entry) in state.connections where key != connection && !entry.dropped {
                    if let since = entry.idleSince, since < oldest?.since ?? .max { oldest = (key, since) }
                }
                guard let oldest, let entry = state.connections[oldest.key] else { return }
                #if canImport(Glibc)
                _ = shutdown(entry.socket, Int32(SHUT_RDWR))
                #endif
                state.connections[oldest.key]?.dropped = true
                state.alive -= 1
                state.droppedCount += 1
            }
        }
    }

    /// A request began on `connection`: it is not idle until the request ends.
    func busy(_ connection: UInt) {
        state.withLock { $0.connections[connection]?.idleSince = nil }
    }

    /// A request on `connection` ended; it is idle from `now`.
    func idle(_ connection: UInt, now: UInt64) {
        state.withLock { $0.connections[connection]?.idleSince = now }
    }

    /// `connection` is gone (libmicrohttpd closes its socket after this).
    func closed(_ connection: UInt) {
        state.withLock { state in
            guard let entry = state.connections.removeValue(forKey: connection) else { return }
            if !entry.dropped { state.alive -= 1 }
        }
    }
}
