import Foundation
import Testing

@Suite("Importing KOReader's vocabulary builder")
final class ImportFromKOReaderTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("each word gets its context as the example, and its book in the notes and the tags")
    func fields() throws {
        let file = try ImportFixtures.copy("vocabulary_builder.sqlite3", into: sandbox)
        let result = sandbox.run("import", file)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == "Imported 3 words from vocabulary_builder.sqlite3, read as KOReader vocabulary builder\n")
        let words = Dictionary(uniqueKeysWithValues: try sandbox.listedWords().map { ($0["term"] as! String, $0) })
        let melancholy = try #require(words["melancholy"])
        #expect(melancholy["examples"] as? [String] == ["a sort of melancholy settled over him"])
        #expect(melancholy["notes"] as? String == "Book: Moby Dick")
        #expect(melancholy["tags"] as? [String] == ["Moby-Dick", "koreader"])
        #expect(melancholy["meaning"] as? String == "")
        let ephemeral = try #require(words["ephemeral"])
        #expect(ephemeral["examples"] as? [String] == ["the Ephemeral beauty of it"])
        #expect(ephemeral["tags"] as? [String] == ["Short-Stories", "koreader"])
        let lone = try #require(words["lone"])
        #expect(lone["examples"] as? [String] == [])
        #expect(lone["notes"] as? String == "Book: Moby Dick")
    }

    @Test("a file from before KOReader kept its books in a table of their own is recognised and read")
    func beforeTitles() throws {
        let file = try ImportFixtures.copy("vocabulary_builder_2022.sqlite3", into: sandbox)
        let result = sandbox.run("import", file)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == "Imported 2 words from vocabulary_builder_2022.sqlite3, read as KOReader vocabulary builder\n")
        let words = Dictionary(uniqueKeysWithValues: try sandbox.listedWords().map { ($0["term"] as! String, $0) })
        #expect(words["ephemeral"]?["examples"] as? [String] == ["it was ephemeral and brief"])
        #expect(words["ubiquitous"]?["notes"] as? String == "Book: Old Book")
    }

    @Test(
        "importing the file again adds only what is new: a word counts as imported while its context is an example of a word with its term, in the Trash too, or once this library imported it"
    )
    func importedAgain() throws {
        let file = try ImportFixtures.copy("vocabulary_builder.sqlite3", into: sandbox)
        #expect(sandbox.run("import", file).status == 0)
        let again = sandbox.run("import", file)
        #expect(again.status == 0, "\(again.errorOutput)")
        #expect(again.output.contains("Imported 0 words"), "\(again.output)")
        #expect(again.output.contains("left out 3 look-ups imported before"), "\(again.output)")
        #expect(try sandbox.listedTerms() == ["ephemeral", "lone", "melancholy"])

        // Moved to the Trash, they still count; so does a word whose example was changed
        // since (this library noted the look-up as it imported it: round 14A).
        let words = try sandbox.listedWords()
        let ephemeral = try #require(words.first { $0["term"] as? String == "ephemeral" }?["id"] as? String)
        let melancholy = try #require(words.first { $0["term"] as? String == "melancholy" }?["id"] as? String)
        #expect(sandbox.run("delete", ephemeral).status == 0)
        #expect(sandbox.run("edit", melancholy, "--example", "another sentence").status == 0)
        let third = sandbox.run("import", file)
        #expect(third.output.contains("Imported 0 words"), "\(third.output)")
        #expect(third.output.contains("left out 3 look-ups imported before (1 of them in the Trash"), "\(third.output)")
        #expect(try sandbox.listedTerms() == ["lone", "melancholy"])
    }

    @Test("--no-duplicates skips words already in the library, and undo takes the rest out")
    func duplicatesAndUndo() throws {
        // Added by hand, without the book's sentence: not a look-up imported before.
        try sandbox.add("Melancholy")
        let file = try ImportFixtures.copy("vocabulary_builder.sqlite3", into: sandbox)
        let result = sandbox.run("import", file, "--no-duplicates")
        #expect(result.output.contains("skipped 1 already in the library"), "\(result.output)")
        #expect(try sandbox.listedTerms() == ["ephemeral", "lone", "Melancholy"])
        #expect(sandbox.run("import", "undo").status == 0)
        #expect(try sandbox.listedTerms() == ["Melancholy"])
    }

    @Test("a truncated database changes nothing")
    func truncated() throws {
        let file = try ImportFixtures.copy("vocabulary_builder.sqlite3", into: sandbox)
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        try data.prefix(5000).write(to: URL(fileURLWithPath: file))
        let result = sandbox.run("import", file)
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("nothing was imported"), "\(result.errorOutput)")
        #expect(try sandbox.listedTerms().isEmpty)
    }
}
