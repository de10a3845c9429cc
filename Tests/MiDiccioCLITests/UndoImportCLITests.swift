import Foundation
import Testing

@Suite("Undoing an import from the command line")
final class UndoImportCLITests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("import undo keeps a word edited since the import, says so, and moves the others to the Trash")
    func editedWordKept() throws {
        let file = try sandbox.write("term,meaning\nhund,dog\nkatze,cat\n", to: "words.csv")
        #expect(sandbox.run("import", file).status == 0)
        let katze = try #require(try sandbox.listedWords().first { $0["term"] as? String == "katze" }?["id"] as? String)
        #expect(sandbox.run("edit", katze, "--meaning", "cat, the animal").status == 0)

        undoMovesOneWord(andSays: "1 word was changed since the import (edited, or moved to the Trash and back) and kept")
        #expect(try sandbox.listedTerms() == ["katze"])
    }

    @Test("import undo says how many of the import's words were in the Trash already, so the counts add up")
    func alreadyGoneSaid() throws {
        let file = try sandbox.write("term,meaning\nhund,dog\nkatze,cat\nmaus,mouse\n", to: "words.csv")
        #expect(sandbox.run("import", file).status == 0)
        let ids = Dictionary(
            uniqueKeysWithValues: try sandbox.listedWords().compactMap { word in
                (word["term"] as? String).flatMap { term in (word["id"] as? String).map { (term, $0) } }
            })
        let katze = try #require(ids["katze"]), maus = try #require(ids["maus"])
        #expect(sandbox.run("delete", katze).status == 0)
        #expect(sandbox.run("delete", maus).status == 0)

        undoMovesOneWord(andSays: "2 words were in the Trash already, or deleted permanently, and left as they were.")
    }

    /// Runs `import undo`, which must move one word to the Trash and say `note`.
    private func undoMovesOneWord(andSays note: String) {
        let undo = sandbox.run("import", "undo")
        #expect(undo.status == 0, "\(undo.errorOutput)")
        #expect(undo.output == "Undid the last import: 1 word moved to the Trash\n")
        #expect(undo.errorOutput.contains(note), "\(undo.errorOutput)")
    }

    @Test("an undo after an import that failed names the import it undoes, the one before")
    func undoNamesTheImport() throws {
        let file = try sandbox.write("term,meaning\nhund,dog\nkatze,cat\n", to: "yesterday.csv")
        #expect(sandbox.run("import", file).status == 0)
        // Today's import stops at its bad line and changes nothing.
        let bad = try sandbox.write("term,meaning\nmaus,mouse\n,no term\n", to: "today.csv")
        #expect(sandbox.run("import", bad).status != 0)

        let undo = sandbox.run("import", "undo")
        #expect(undo.output == "Undid the last import: 2 words moved to the Trash\n")
        #expect(undo.errorOutput.contains("That was the import of yesterday.csv of "), "\(undo.errorOutput)")
        let again = try sandbox.write("term,meaning\nvogel,bird\n", to: "again.csv")
        #expect(sandbox.run("import", again).status == 0)
        let object = try sandbox.run("import", "undo", "--json").jsonObject()
        #expect((object["undid"] as? String)?.hasPrefix("again.csv of ") == true, "\(object)")
    }

    @Test("import undo --json counts the words moved, kept and already gone")
    func json() throws {
        let file = try sandbox.write("term,meaning\nhund,dog\nkatze,cat\n", to: "words.csv")
        #expect(sandbox.run("import", file).status == 0)
        let undo = sandbox.run("import", "undo", "--json")
        #expect(undo.status == 0)
        let object = try undo.jsonObject()
        #expect(object["trashed"] as? Int == 2)
        #expect(object["keptEdited"] as? Int == 0)
        #expect(object["alreadyGone"] as? Int == 0)
    }
}
