import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A thread of its own for work that waits on another thread (`Handoff`'s producer, the
/// sync a command starts on open), never a worker of the shared pool: a pool whose workers
/// were all busy could leave that work waiting while its caller waits for it.
///
/// On Linux it is a POSIX thread: Foundation's `Thread` lives in the part of Foundation the
/// everyday binary leaves out (README, "Start-up").
package enum OwnThread {
    /// Runs `body` on a new thread, which ends when `body` returns.
    package static func start(_ body: @escaping @Sendable () -> Void) {
        #if canImport(Glibc)
        let work = Unmanaged.passRetained(Work(body))
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, work.toOpaque())
        if started == 0 {
            pthread_detach(thread)
        } else {
            work.release()
            // The system gives no more threads: a worker of the pool is better than none.
            DispatchQueue.global().async(execute: body)
        }
        #else
        Thread.detachNewThread(body)
        #endif
    }

    /// The body, carried through pthread_create's context pointer.
    private final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
