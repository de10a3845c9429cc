import Foundation
import Testing

@testable import MiDiccioCLI
@testable import MiDiccioCLICore

/// A term from an imported file or another device may hold escape sequences (clear the
/// screen, set the window title). `list`, `show`, `trash` and `study` showed them safely,
/// but `add`, `edit`, `delete`, `restore`, `review`, `purge`, an import's preview and the
/// notes and errors that quote a term printed them as they were (found by the exploratory
/// helper, round 6).
@Suite("A word's escape sequences never reach the terminal, whichever command shows it")
final class AWordsEscapeSequencesNeverReachTheTerminalTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

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
}
