import Foundation
import MiDiccioKit
import MiDiccioTesting
import Testing

@testable import MiDiccioCLI
@testable import MiDiccioCLICore

/// Issue 12, "Progress": the line a long operation shows on a terminal, with a fake
/// terminal and a clock moved by hand.
@Suite("A progress line shows after a second, at most ten times a second, only on a terminal, and is cleared")
struct ProgressLineTests {
    private static let escape = "\u{1B}"
    private static let terminal = ["TERM": "xterm", "LANG": "en_US.UTF-8"]

    private func line(
        terminal: Bool = true, environment: [String: String] = Self.terminal, json: Bool = false
    ) -> (ProgressLine, CapturedIO, ManualClock) {
        let io = CapturedIO()
        io.errorIsTerminal = terminal
        let clock = ManualClock()
        return (ProgressLine(io: io, environment: environment, json: json, clock: clock), io, clock)
    }

    @Test("nothing shows within the first second, so a quick run never flickers")
    func nothingWithinASecond() {
        let (progress, io, clock) = line()
        var made = 0
        func text() -> String {
            made += 1
            return "Importing words.tsv: 1 of 2 words"
        }
        for _ in 0..<10 {
            progress.show(text())
            clock.advance(by: 99)
        }
        progress.finish()
        #expect(io.errorOutput.isEmpty)
        #expect(made == 0, "the text is not even made before it can show")
        #expect(io.output.isEmpty)
    }

    @Test("after a second the line is drawn in place, and cleared at the end")
    func drawnThenCleared() {
        let (progress, io, clock) = line()
        clock.advance(by: 1_000)
        progress.show("Importing words.tsv: 45,000 of 100,000 words")
        #expect(io.errorOutput == "\rImporting words.tsv: 45,000 of 100,000 words\u{1B}[K")
        progress.finish()
        #expect(io.errorOutput.hasSuffix("\u{1B}[K\r\u{1B}[K"))
        progress.finish()
        #expect(io.errorOutput.components(separatedBy: "\r").count == 3, "a second finish writes nothing more")
        #expect(io.output.isEmpty, "progress never reaches standard output")
    }

    @Test("told every millisecond for two seconds, it redraws at most ten times a second")
    func redrawRate() {
        let (progress, io, clock) = line()
        for done in 0..<3_000 {
            progress.show("First sync: merging \(done) of 3,000 words")
            clock.advance(by: 1)
        }
        let redraws = io.errorOutput.components(separatedBy: "\r").count - 1
        #expect(redraws == 20)
        #expect(io.errorOutput.hasPrefix("\rFirst sync: merging 1000 of 3,000 words"))
    }

    @Test(
        "nothing at all when standard error is not a terminal, with --json, or on a dumb terminal",
        arguments: [(false, Self.terminal, false), (true, Self.terminal, true), (true, ["TERM": "dumb"], false)])
    func hidden(terminal: Bool, environment: [String: String], json: Bool) {
        let (progress, io, clock) = line(terminal: terminal, environment: environment, json: json)
        #expect(progress.style == .hidden)
        for _ in 0..<30 {
            clock.advance(by: 100)
            progress.show("Restoring backup.json: 1 of 2 words")
        }
        progress.finish()
        #expect(io.errorOutput.isEmpty)
    }

    @Test("with NO_COLOR it writes no escape sequence: spaces clear what a longer line left")
    func noColour() {
        let (progress, io, clock) = line(environment: ["TERM": "xterm", "NO_COLOR": "1"])
        clock.advance(by: 1_000)
        progress.show("Uploading every word once: 9,000 of 10,000 words")
        clock.advance(by: 100)
        progress.show("Syncing: tidying up")
        progress.finish()
        #expect(!io.errorOutput.contains(Self.escape))
        let long = "Uploading every word once: 9,000 of 10,000 words"
        let short = "Syncing: tidying up"
        let padding = String(repeating: " ", count: long.count - short.count)
        #expect(io.errorOutput == "\r\(long)\r\(short)\(padding)\r\(String(repeating: " ", count: short.count))\r")
    }

    @Test("counts are grouped by thousands, and a long file name is cut short")
    func wording() {
        #expect(ProgressLine.count(45_000, of: 100_000) == "45,000 of 100,000 words")
        #expect(ProgressLine.count(12, of: 10) == "10 of 10 words")
        #expect([0, 999, 1_000, 1_234_567].map(ProgressLine.number) == ["0", "999", "1,000", "1,234,567"])
        #expect(ProgressLine.fileName("/home/ana/words.tsv") == "words.tsv")
        #expect(ProgressLine.fileName(String(repeating: "a", count: 40) + ".csv") == String(repeating: "a", count: 31) + "…")
    }

    @Test("an update of a library made by an earlier MiDiccio, which has no count, says how long it has run")
    func upgradeWording() {
        #expect(
            ProgressLine.upgrading(seconds: 3)
                == "Updating the library for this version of MiDiccio (once; large libraries take a while): 3 s")
    }

    @Test("a sync says what it is doing, and calls the first one of an empty library a first sync")
    func syncWording() {
        #expect(
            SyncCommand.describe(.merging(words: 100_000, done: 12_000), firstSync: true)
                == "First sync: merging 12,000 of 100,000 words")
        #expect(SyncCommand.describe(.downloading, firstSync: false) == "Syncing: downloading")
        #expect(
            SyncCommand.describe(.writingSnapshot(words: 100_000, done: 45_000, fullUpload: true), firstSync: false)
                == "Uploading every word once: 45,000 of 100,000 words")
        #expect(
            SyncCommand.describe(.writingSnapshot(words: 100_000, done: 100_000, fullUpload: true), firstSync: false)
                == "Uploading every word once: compressing and writing 100,000 words")
        #expect(
            SyncCommand.describe(.writingSnapshot(words: 3_000, done: 1_000, fullUpload: false), firstSync: false)
                == "Syncing: writing a snapshot: 1,000 of 3,000 words")
        #expect(SyncCommand.describe(.uploading(words: 1), firstSync: false) == "Syncing: uploading 1 word")
        #expect(
            SyncCommand.describe(.uploading(words: 100_000, done: 12_000), firstSync: false)
                == "Syncing: uploading 12,000 of 100,000 words")
        #expect(
            SyncCommand.describe(.uploading(words: 100_000, done: 100_000), firstSync: false)
                == "Syncing: compressing and writing 100,000 words")
    }
}
