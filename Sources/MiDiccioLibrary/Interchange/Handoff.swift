import Dispatch
import Foundation
import Synchronization

/// Runs a producer on a thread of its own and hands what it makes, batch by batch, to
/// the caller's thread through a bounded queue: an import reads and checks rows on the
/// second core while the first writes them into the library, and a first sync reads a
/// file's review events there while this thread stores its words, then the events.
///
/// The queue holds at most `capacity` batches, so a producer faster than the writer
/// waits instead of filling memory. Whatever either side throws ends both: an error of
/// the producer reaches the caller after the batches made before it, and an error of
/// `consume` stops the producer at its next batch. `run` returns only once the producer
/// has stopped, so nothing it captured is used after.
package enum Handoff {
    /// Thrown inside the producer when the consumer has stopped; `run` never throws it.
    package struct Stopped: Error {}

    /// Runs `produce` on another thread, calling `consume` here with each batch it emits,
    /// in order. Rethrows the first error of either side.
    package static func run<Batch: Sendable>(
        capacity: Int,
        produce: @escaping @Sendable (_ emit: (Batch) throws -> Void) throws -> Void,
        consume: (Batch) throws -> Void
    ) throws {
        let queue = Queue<Batch>(capacity: max(1, capacity))
        let stopped = DispatchSemaphore(value: 0)
        // A thread of its own, not a dispatch queue: a pool whose threads were all busy
        // (two imports at once, say) could leave the reader waiting while the writer
        // waits for it.
        OwnThread.start {
            let outcome: (any Error)?
            do {
                try produce { batch in try queue.put(batch) }
                outcome = nil
            } catch {
                outcome = error
            }
            queue.finish(outcome)
            stopped.signal()
        }
        defer { stopped.wait() }
        do {
            while let batch = try queue.take() { try consume(batch) }
        } catch {
            queue.stop()
            throw error
        }
    }

    /// The bounded queue between the two threads.
    private final class Queue<Batch: Sendable>: Sendable {
        private struct State {
            var batches: [Batch] = []
            var head = 0
            var finished = false
            var failure: (any Error)?
            var stopped = false
        }

        private let state = Mutex(State())
        /// Signalled once per batch put and once when the producer finishes.
        private let ready = DispatchSemaphore(value: 0)
        /// Counts free places; the producer waits on it before each batch.
        private let room: DispatchSemaphore

        init(capacity: Int) {
            // Made empty and then given its places: libdispatch stops a program that frees
            // a semaphore below the value it was made with, which a queue stopped while
            // full would be.
            room = DispatchSemaphore(value: 0)
            for _ in 0..<capacity { room.signal() }
        }

        /// Adds `batch`, waiting while the queue is full; throws `Stopped` once the
        /// consumer has stopped.
        func put(_ batch: Batch) throws {
            room.wait()
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.batches.append(batch)
                return true
            }
            guard accepted else {
                room.signal()
                throw Stopped()
            }
            ready.signal()
        }

        /// The producer is done, with the error that ended it, if any.
        func finish(_ failure: (any Error)?) {
            state.withLock { state in
                state.finished = true
                state.failure = failure
            }
            ready.signal()
        }

        /// The next batch, nil when the producer finished without error, or its error.
        func take() throws -> Batch? {
            while true {
                ready.wait()
                let next = state.withLock { state -> Result<Batch?, any Error>? in
                    if state.head < state.batches.count {
                        let batch = state.batches[state.head]
                        state.head += 1
                        if state.head > 64 && state.head * 2 > state.batches.count {
                            state.batches.removeFirst(state.head)
                            state.head = 0
                        }
                        return .success(batch)
                    }
                    guard state.finished else { return nil }
                    if let failure = state.failure { return .failure(failure) }
                    return .success(nil)
                }
                switch next {
                case .success(let batch?):
                    room.signal()
                    return batch
                case .success(nil):
                    return nil
                case .failure(let error):
                    throw error
                case nil:
                    continue
                }
            }
        }

        /// The consumer stopped: the producer's next `put` throws, and a producer waiting
        /// for room is woken to see it.
        func stop() {
            state.withLock { $0.stopped = true }
            room.signal()
        }
    }
}
