import Foundation
import MiDiccioModel
import MiDiccioSync
import Synchronization

/// One line on standard error that says how far a long operation (an import, a restore,
/// a full upload, a first sync) has come, redrawn in place and cleared when it ends.
///
/// It is for a person watching a terminal, so it shows nothing when standard error is
/// not a terminal, with `--json`, or on a dumb terminal (`TERM=dumb`), and nothing for
/// an operation that ends within `delay`: a fast run never flickers. It redraws at most
/// once per `interval`, however often it is told. With `NO_COLOR` it writes no escape
/// sequence either: spaces clear what an earlier, longer line left.
///
/// Unchecked: the output is used only under the lock, so a sync's thread may report.
package final class ProgressLine: @unchecked Sendable {
    /// How long an operation runs, in milliseconds, before its line appears.
    static let delay: Int64 = 1_000
    /// The shortest time between two redraws, in milliseconds (ten a second at most).
    static let interval: Int64 = 100

    /// How the line is drawn.
    enum Style: Equatable {
        /// Not at all.
        case hidden
        /// With `\r` and the erase-to-end-of-line sequence.
        case escapes
        /// With `\r` and spaces only.
        case plain
    }

    /// How this line is drawn, from the terminal, the environment and `--json`.
    let style: Style
    private let io: TerminalIO
    private let clock: any Clock
    private let started: Int64
    /// When the line was last drawn, and how many characters it then had (nil: never).
    private let drawn = Mutex<(time: Int64, width: Int)?>(nil)

    /// A line on `io`'s standard error, timed by `clock` from now.
    init(io: TerminalIO, environment: [String: String], json: Bool, clock: any Clock = MonotonicClock()) {
        self.io = io
        self.clock = clock
        started = clock.now().milliseconds
        style = Self.style(errorIsTerminal: io.errorIsTerminal, environment: environment, json: json)
    }

    /// The style for standard error as described.
    static func style(errorIsTerminal: Bool, environment: [String: String], json: Bool) -> Style {
        guard errorIsTerminal, !json, environment["TERM"] != "dumb" else { return .hidden }
        // no-color.org: NO_COLOR counts when present and not empty.
        return (environment["NO_COLOR"] ?? "").isEmpty ? .escapes : .plain
    }

    /// Shows `text` as the line, if the operation has run longer than `delay` and the
    /// line was not drawn within `interval`. `text` is only made when it is shown.
    package func show(_ text: @autoclosure () -> String) {
        guard style != .hidden else { return }
        let now = clock.now().milliseconds
        guard now - started >= Self.delay else { return }
        drawn.withLock { drawn in
            if let drawn, now - drawn.time < Self.interval { return }
            let line = text()
            let width = line.count
            switch style {
            case .escapes:
                io.writeError("\r" + line + "\u{1B}[K")
            case .plain:
                io.writeError("\r" + line + String(repeating: " ", count: max(0, (drawn?.width ?? 0) - width)))
            case .hidden:
                return
            }
            drawn = (now, width)
        }
    }

    /// Clears the line if it was drawn; call it when the operation ends, however it ends.
    package func finish() {
        drawn.withLock { drawn in
            guard let shown = drawn else { return }
            switch style {
            case .escapes: io.writeError("\r\u{1B}[K")
            case .plain: io.writeError("\r" + String(repeating: " ", count: shown.width) + "\r")
            case .hidden: break
            }
            drawn = nil
        }
    }

    /// `count` with a comma between groups of three digits: 45,000.
    package static func number(_ count: Int) -> String {
        let digits = String(count.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped += "," }
            grouped.append(digit)
        }
        return (count < 0 ? "-" : "") + grouped
    }

    /// "45,000 of 100,000 words".
    package static func count(_ done: Int, of total: Int) -> String {
        "\(number(min(done, total))) of \(number(total)) words"
    }

    /// What an update of a library made by an earlier MiDiccio shows, `seconds` in: it
    /// has no count to show, so the time says it is still going.
    package static func upgrading(seconds: Int64) -> String {
        "Updating the library for this version of MiDiccio (once; large libraries take a while): \(seconds) s"
    }

    /// The last part of `path`, cut short so the line fits a narrow terminal.
    package static func fileName(_ path: String) -> String {
        let name = URL(fileURLWithPath: path).lastPathComponent
        return name.count > 32 ? String(name.prefix(31)) + "…" : name
    }
}

/// The time since the machine started, which no clock adjustment moves: what a progress
/// line's delay and redraw rate are measured with.
struct MonotonicClock: Clock {
    /// Milliseconds on the monotonic clock (a Timestamp only in type).
    func now() -> Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Timestamp(milliseconds: Int64(time.tv_sec) * 1_000 + Int64(time.tv_nsec) / 1_000_000)
    }
}

extension ToolContext {
    /// A progress line for a long operation of this command; `json` when it was given.
    package func progressLine(json: Bool) -> ProgressLine {
        ProgressLine(io: io, environment: environment, json: json)
    }
}
