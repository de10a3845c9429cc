import MiDiccioCLI

/// Captured output for tests and in-process use.
package final class CapturedIO: TerminalIO {
    /// Everything written to standard output.
    package private(set) var output = ""
    /// Everything written to standard error.
    package private(set) var errorOutput = ""
    /// What `readInput` returns.
    package var input: String
    package var outputIsTerminal = false
    package var errorIsTerminal = false

    /// Makes an empty capture with `input` as standard input.
    package init(input: String = "") { self.input = input }

    package func write(_ text: String) { output += text }
    package func writeError(_ text: String) { errorOutput += text }
    package func readInput() -> String { input }
    package var inputIsTerminal = false
    /// Runs before `readKey` takes the key at this index (0 for the first): a test's
    /// moment between two keys, as a person pausing at the keyboard.
    package var beforeKey: ((Int) -> Void)?
    private var keysRead = 0
    package func readKey() -> Character? {
        beforeKey?(keysRead)
        keysRead += 1
        return input.isEmpty ? nil : input.removeFirst()
    }
    package func readLine() -> String? {
        guard !input.isEmpty else { return nil }
        let line = input.prefix { $0 != "\n" }
        input = String(input.dropFirst(line.count + 1))
        return String(line)
    }
}
