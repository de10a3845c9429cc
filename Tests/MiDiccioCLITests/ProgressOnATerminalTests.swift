import Foundation
import Testing

/// Issue 12, "Progress", with the real `midiccio`: on a terminal a long import shows a
/// progress line on standard error, redrawn in place and cleared at the end; sent
/// anywhere else, the output is exactly what a quick import prints.
@Suite("A long import shows its progress on a terminal, and nothing of it elsewhere")
final class ProgressOnATerminalTests {
    let sandbox: Sandbox
    let children: ChildProcesses
    let sheet: String
    /// Enough words for an import of this debug build to take well over the 1.3 s this test
    /// needs (20,000 words once took 1.2 s).
    static let words = 50_000

    init() throws {
        sandbox = try Sandbox()
        children = try ChildProcesses(in: sandbox)
        sheet = try sandbox.write(
            "term\tmeaning\n" + (0..<Self.words).map { "word\($0)\tmeaning \($0)\n" }.joined(), to: "words.tsv")
    }

    @Test("on a terminal: 'Importing words.tsv: N of 50,000 words' redrawn in place, then cleared; stdout stays clean")
    func onATerminal() throws {
        // The library is made first: its first command at a terminal says where it is.
        #expect(sandbox.run(["list"]).status == 0)
        let terminal = try PseudoTerminal()
        let started = Date()
        // An empty NO_COLOR counts as unset, as no-color.org says.
        let child = try children.start(["import", sheet], environment: ["NO_COLOR": "", "TERM": "xterm"], error: terminal.terminal)
        terminal.closeTerminal()
        let run = children.finish(child, timeout: 60)
        let seconds = Date().timeIntervalSince(started)
        let shown = terminal.collected()
        #expect(run.succeeded, "\(run)")
        #expect(run.output == "Imported 50000 words from words.tsv, read as MiDiccio TSV\n")
        try #require(seconds > 1.3, "the import took \(seconds) s, too quick to need a progress line: give it more words")
        let redraws = shown.split(separator: "\r", omittingEmptySubsequences: true)
        #expect(redraws.count >= 2, "\(shown.debugDescription)")
        let lines = redraws.dropLast()
        for line in lines {
            #expect(line.hasPrefix("Importing words.tsv: ") && line.hasSuffix(" of 50,000 words\u{1B}[K"), "\(line.debugDescription)")
        }
        #expect(shown.hasSuffix("\r\u{1B}[K"), "the line is cleared at the end: \(shown.suffix(80).debugDescription)")
        #expect(!shown.contains("\n"), "the line never scrolls: \(shown.debugDescription)")
        // At most ten redraws a second, and none in the first second.
        #expect(Double(lines.count) <= (seconds - 1) * 10 + 1, "\(lines.count) redraws in \(seconds) s")
    }

    @Test("on a terminal, the import's undo and emptying the Trash show their progress lines too")
    func undoAndEmptyOnATerminal() throws {
        #expect(sandbox.run(["import", sheet]).status == 0)
        for (arguments, label, result) in [
            (["import", "undo", "--offline"], "Undoing the import: ", "Undid the last import: 50000 words moved to the Trash\n"),
            (["trash", "empty", "--yes"], "Emptying the Trash: ", "Purged 50000 words permanently\n"),
        ] {
            let terminal = try PseudoTerminal()
            let started = Date()
            let child = try children.start(arguments, environment: ["NO_COLOR": "", "TERM": "xterm"], error: terminal.terminal)
            terminal.closeTerminal()
            let run = children.finish(child, timeout: 120)
            let seconds = Date().timeIntervalSince(started)
            var shown = terminal.collected()
            // The undo names the import it undid, once the progress line is cleared.
            if let named = shown.range(of: "That was the import of words.tsv of ") {
                shown = String(shown[..<named.lowerBound])
            } else {
                #expect(arguments[0] != "import", "the import is named: \(shown.suffix(120).debugDescription)")
            }
            #expect(run.succeeded, "\(run)")
            #expect(run.output == result)
            try #require(seconds > 1.3, "\(arguments) took \(seconds) s, too quick to need a progress line: give it more words")
            let lines = shown.split(separator: "\r", omittingEmptySubsequences: true).dropLast()
            #expect(!lines.isEmpty, "\(shown.debugDescription)")
            for line in lines {
                #expect(line.hasPrefix(label) && line.hasSuffix(" of 50,000 words\u{1B}[K"), "\(line.debugDescription)")
            }
            #expect(shown.hasSuffix("\r\u{1B}[K"), "the line is cleared at the end: \(shown.suffix(80).debugDescription)")
        }
    }

    @Test("sent to a file, the same import prints its result and nothing else")
    func piped() throws {
        let run = try children.run(["import", sheet], environment: ["NO_COLOR": "", "TERM": "xterm"], timeout: 60)
        #expect(run.succeeded, "\(run)")
        #expect(run.output == "Imported 50000 words from words.tsv, read as MiDiccio TSV\n")
        #expect(run.errorOutput.isEmpty, "\(run.errorOutput.debugDescription)")
    }
}
