import Foundation
import Testing

@Suite("Adding a term that is already in the library")
final class DuplicateTermCLITests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test(
        "a duplicate term warns on stderr, naming the existing word, and is added anyway",
        arguments: [
            ("café", "café"), ("café", "Cafe"), ("café", "  CAFÉ  "), ("caf\u{E9}", "cafe\u{301}"),
        ])
    func duplicateWarnsAndAdds(existing: String, added: String) throws {
        let first = try sandbox.add(existing)
        let result = sandbox.run("add", added, "--meaning", "coffee")
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("Added \""), "\(result.output)")
        #expect(result.errorOutput.hasPrefix("warning: "), "\(result.errorOutput)")
        #expect(result.errorOutput.contains(String(first.prefix(8))))
        #expect(try sandbox.listedWords().count == 2)
    }

    @Test("a different term does not warn")
    func differentTermDoesNotWarn() throws {
        try sandbox.add("casa")
        let result = sandbox.run("add", "cosa")
        #expect(result.status == 0)
        #expect(result.errorOutput.isEmpty)
    }

    @Test("a word in the Trash is not a duplicate")
    func trashedWordIsNotDuplicate() throws {
        let id = try sandbox.add("casa")
        sandbox.run("delete", id)
        let result = sandbox.run("add", "casa", "--no-duplicates")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.errorOutput.isEmpty)
    }

    @Test("--no-duplicates refuses a duplicate term with exit 1 and adds nothing")
    func noDuplicatesRefuses() throws {
        let first = try sandbox.add("café", "--meaning", "coffee")
        let result = sandbox.run("add", "CAFÉ", "--meaning", "other", "--no-duplicates", "--json")
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errorOutput.hasPrefix("Error: "))
        #expect(result.errorOutput.contains(first), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("nothing added"))
        let words = try sandbox.listedWords()
        #expect(words.count == 1)
        #expect(words.first?["meaning"] as? String == "coffee")
    }

    @Test("--no-duplicates still adds a new term")
    func noDuplicatesAddsNewTerm() throws {
        try sandbox.add("café")
        let result = sandbox.run("add", "té", "--no-duplicates")
        #expect(result.status == 0)
        #expect(try sandbox.listedTerms() == ["café", "té"])
    }

    @Test("importing terms already in the library warns and adds them; --no-duplicates skips them")
    func importDuplicates() throws {
        try sandbox.add("uno")
        let file = try sandbox.write("term,meaning\nuno,one\ndos,two\n", to: "words.csv")

        let skipped = sandbox.run("import", file, "--no-duplicates")
        #expect(skipped.status == 0)
        #expect(skipped.output.contains("Imported 1 word from words.csv, read as MiDiccio CSV, skipped 1"), "\(skipped.output)")
        #expect(try sandbox.listedTerms() == ["dos", "uno"])

        let added = sandbox.run("import", file)
        #expect(added.status == 0)
        #expect(added.errorOutput.hasPrefix("warning: 2 imported terms"), "\(added.errorOutput)")
        #expect(try sandbox.listedTerms().count == 4)
    }
}
