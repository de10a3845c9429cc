import Foundation
import MiDiccioFiles

/// Where a command's output goes; tests capture it instead of printing.
public protocol TerminalIO: AnyObject {
    /// Writes to standard output.
    func write(_ text: String)
    /// Writes to standard error.
    func writeError(_ text: String)
    /// True when standard output is a terminal (tables may use colour).
    var outputIsTerminal: Bool { get }
    /// True when standard error is a terminal (progress is shown).
    var errorIsTerminal: Bool { get }
    /// Reads all of standard input.
    func readInput() -> String
    /// True when standard input is a terminal (a person can answer a question).
    var inputIsTerminal: Bool { get }
    /// Reads one line of standard input (an answer), without its newline.
    func readLine() -> String?
    /// Reads one key of standard input (one byte, from a terminal in raw mode or a pipe),
    /// waiting for it; nil at the end of input.
    func readKey() -> Character?
}

/// The process's real standard streams.
public final class StandardIO: TerminalIO {
    /// Makes the standard streams.
    public init() {}

    // write(2) straight to the descriptor, unbuffered as `FileHandle` wrote, which lives
    // in the part of Foundation the everyday binary leaves out (README, "Start-up"). A
    // write that fails (a closed pipe) drops the text, as nothing else can be done with it.
    public func write(_ text: String) {
        _ = FileSystem.writeAll(Data(text.utf8), to: 1)
    }

    public func writeError(_ text: String) {
        _ = FileSystem.writeAll(Data(text.utf8), to: 2)
    }

    public var outputIsTerminal: Bool { isatty(1) == 1 }
    public var inputIsTerminal: Bool { isatty(0) == 1 }
    public func readLine() -> String? { Swift.readLine(strippingNewline: true) }
    public var errorIsTerminal: Bool { isatty(2) == 1 }

    public func readKey() -> Character? {
        var byte: UInt8 = 0
        guard read(0, &byte, 1) == 1 else { return nil }
        return Character(Unicode.Scalar(byte))
    }

    public func readInput() -> String {
        var lines: [String] = []
        while let line = Swift.readLine(strippingNewline: false) { lines.append(line) }
        return lines.joined()
    }
}
