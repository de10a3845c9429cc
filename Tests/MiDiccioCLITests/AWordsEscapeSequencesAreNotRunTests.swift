import Foundation
import Testing
@testable import MiDiccioCLICore

/// A word from another device or an imported deck may hold an escape sequence or a bell
/// (its notes: "ESC[31m… BEL"). `show` and `list` printed it raw, and the terminal ran
/// it: colours, a bell, a changed window title. Only `study` showed such text safely.
/// Then `add`, `edit`, `delete`, `restore`, `review`, `purge`, an import's preview and the
/// notes and errors that quote a term still printed it as it was (found by the
/// exploratory helper, round 6).
@Suite("A word's escape sequences are shown, never run by the terminal")
final class AWordsEscapeSequencesAreNotRunTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("show, list and search print control characters as U+FFFD, keep line breaks and tabs, and --json keeps the text")
    func shownNotRun() throws {
        // Through a backup, as a sync or an imported deck brings such text.
        let id = "3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b"
        let backup = try sandbox.write(
            """
            {"format": "midiccio-backup", "version": 1, "exportedAt": "2026-12-01T10:00:00.000Z", "words": [
            {"id": "\(id)", "term": "ctrl\\u001b]0;pwned\\u0007", "meaning": "red \\u001b[31mtext\\u009b", "reading": "",
             "examples": [], "notes": "line one\\nline\\ttwo", "tags": [],
             "createdAt": "2026-12-01T10:00:00.000Z", "updatedAt": "2026-12-01T10:00:00.000Z"}]}
            """, to: "backup.json")
        let restored = sandbox.run("backup", "restore", backup)
        #expect(restored.status == 0, "\(restored.errorOutput)")

        for arguments in [["show", id], ["list"], ["search", "ctrl"]] {
            let result = sandbox.run(arguments, terminal: true)
            #expect(result.status == 0, "\(arguments): \(result.errorOutput)")
            let controls = result.output.unicodeScalars.filter { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\u{1B}" }
            #expect(controls.isEmpty, "\(arguments) printed \(result.output.debugDescription)")
            #expect(!result.output.contains("\u{1B}]0;") && !result.output.contains("\u{1B}[31m"), "\(result.output.debugDescription)")
            #expect(!result.output.unicodeScalars.contains("\u{9B}"))
            #expect(result.output.contains("\u{FFFD}"))
        }
        let shown = sandbox.run("show", id).output
        #expect(shown.contains("line\ttwo") && shown.contains("line one\n"), "\(shown.debugDescription)")
        let json = sandbox.run("show", id, "--json").output
        #expect(json.contains("\\u001b[31m") || json.contains("\\u001B[31m"), "--json keeps the word's text: \(json)")
    }

    /// The term: a window title set, then the screen cleared.
    static let term = "\u{1B}]0;pwned\u{07}\u{1B}[2Jrojo"

    /// Runs `arguments` and checks that neither output holds a control character the
    /// term brought (an escape or a bell), and that the term's letters are there.
    private func shownSafely(_ arguments: String..., status: Int32 = 0) {
        let result = sandbox.run(arguments)
        #expect(result.status == status, "\(arguments): \(result.errorOutput)")
        let both = result.output + result.errorOutput
        #expect(!both.contains("\u{1B}") && !both.contains("\u{07}"), "\(arguments): \(both.debugDescription)")
        #expect(both.contains("rojo"), "\(arguments): \(both)")
    }

    @Test("add, edit, review, delete, restore, purge, a duplicate's warning and an error that quotes the term")
    func everyCommand() throws {
        shownSafely("add", Self.term, "--meaning", "red")
        let id = try #require(try sandbox.listedWords().first?["id"] as? String)
        shownSafely("add", Self.term, "--meaning", "red again")
        shownSafely("edit", id, "--meaning", "rojo y más")
        shownSafely("review", id, "good")
        shownSafely("delete", id)
        shownSafely("review", id, "good", status: 1)
        shownSafely("restore", id)
        shownSafely("delete", id)
        shownSafely("purge", id)
    }

    @Test("an import's preview of the rows it read")
    func importPreview() throws {
        let file = sandbox.path("words.csv")
        try "term,meaning\n\"\(Self.term)\",red\n".write(toFile: file, atomically: true, encoding: .utf8)
        shownSafely("import", file, "--dry-run")
    }

    @Test("a bidirectional override in a term is shown as U+FFFD, so the term cannot pass for another; --json keeps it")
    func bidirectionalOverrides() throws {
        // "txt.exe" written backwards behind a right-to-left override shows as "exe.txt".
        let term = "file\u{202E}txt.exe\u{2066}x\u{2069}"
        let added = sandbox.run("add", term, "--meaning", "spoof")
        #expect(added.status == 0, "\(added.errorOutput)")
        let id = try #require(try sandbox.listedWords().first?["id"] as? String)
        for arguments in [["show", id], ["list"], ["search", "file"], ["add", term, "--meaning", "again"]] {
            let result = sandbox.run(arguments)
            let both = result.output + result.errorOutput
            let bidi = both.unicodeScalars.filter { (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) }
            #expect(bidi.isEmpty, "\(arguments) printed \(both.debugDescription)")
            #expect(both.contains("file\u{FFFD}txt.exe\u{FFFD}x\u{FFFD}"), "\(arguments) printed \(both.debugDescription)")
        }
        let json = sandbox.run("show", id, "--json").output
        #expect(json.contains("\u{202E}") || json.lowercased().contains("\\u202e"), "--json keeps the word's text: \(json)")
        // Right-to-left text itself is left alone.
        #expect("שלום عربي".shownSafely == "שלום عربي")
    }
}
