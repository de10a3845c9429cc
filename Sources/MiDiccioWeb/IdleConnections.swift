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
/// With a thread pool each worker thread has its own share of the connection limit and
/// accepts on its own, so the count and the choice are per worker.
final class IdleConnections: Sendable {
    private struct Connection {
        let socket: Int32
        let worker: UInt
        /// When the last request ended (or the connection opened); nil while a request is in progress.
        var idleSince: UInt64?
        /// True once its socket was shut down here, waiting for libmicrohttpd to clean it up.
        var dropped = false
    }

    private struct State {
        var connections: [UInt: Connection] = [:]
        /// Connections not dropped, per worker.
        var alive: [UInt: Int] = [:]
        var droppedCount = 0
    }

    /// A worker drops idle connections once it holds this many.
    let threshold: Int
    private let state = Mutex(State())

    /// `limit` connections shared by `workers` worker threads; each worker keeps a tenth of
    /// its share free (at least one) for clients that come next.
    init(limit: Int, workers: Int) {
        let share = max(1, limit / max(1, workers))
        threshold = max(1, share - max(1, share / 10))
    }

    /// How many connections were dropped for being idle, since the server started.
    var droppedCount: Int { state.withLock { $0.droppedCount } }

    /// A connection opened on `worker`; drops the longest-idle ones of that worker when
    /// it now holds `threshold` or more.
    func opened(_ connection: UInt, socket: Int32, worker: UInt, now: UInt64) {
        state.withLock { state in
            state.connections[connection] = Connection(socket: socket, worker: worker, idleSince: now)
            state.alive[worker, default: 0] += 1
            var excess = state.alive[worker, default: 0] - threshold
            guard excess > 0 else { return }
            let idle = state.connections.filter { $0.value.worker == worker && !$0.value.dropped && $0.value.idleSince != nil }
                .sorted { ($0.value.idleSince ?? 0, $0.key) < ($1.value.idleSince ?? 0, $1.key) }
            for (key, entry) in idle where excess > 0 && key != connection {
                #if canImport(Glibc)
                _ = shutdown(entry.socket, Int32(SHUT_RDWR))
                #endif
                state.connections[key]?.dropped = true
                state.alive[worker, default: 0] -= 1
                state.droppedCount += 1
                excess -= 1
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
            if !entry.dropped { state.alive[entry.worker, default: 0] -= 1 }
        }
    }
}
