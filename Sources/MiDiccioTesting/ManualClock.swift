import MiDiccioKit
import MiDiccioModel
import Synchronization

/// A clock that only moves when told to: tests and simulations start it anywhere and
/// advance it by hand, so nothing depends on the machine's time or on sleeping.
package final class ManualClock: Clock {
    private let current: Mutex<Int64>

    /// Makes a clock that reads `start` until advanced.
    package init(start: Timestamp = Timestamp(milliseconds: 1_764_000_000_000)) {
        current = Mutex(start.milliseconds)
    }

    package func now() -> Timestamp {
        Timestamp(milliseconds: current.withLock { $0 })
    }

    /// Moves the clock forward (or back, with a negative amount) by `milliseconds`.
    package func advance(by milliseconds: Int64) {
        current.withLock { $0 += milliseconds }
    }

    /// Sets the clock to `time`.
    package func set(_ time: Timestamp) {
        current.withLock { $0 = time.milliseconds }
    }
}
