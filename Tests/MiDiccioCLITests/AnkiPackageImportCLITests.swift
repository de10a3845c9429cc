import Foundation
import Testing

@Suite("Importing Anki packages with midiccio import")
final class AnkiPackageImportCLITests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test("an .apkg imports in one command and says what it left out")
    func apkg() throws {
        let result = sandbox.run("import", ankiFixture("words.apkg"))
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(
            result.output == """
                Imported 5 words
                Left out 4 media references (sounds and images; MiDiccio keeps text)
                Left out 1 notes whose term field has no text (an image only, say)

                """)
        #expect(try sandbox.listedTerms() == ["comer", "hablar", "perro", "犬", "猫"])
        let dog = try #require(try sandbox.listedWords().first { $0["term"] as? String == "犬" })
        #expect(dog["meaning"] as? String == "dog")
        #expect(dog["notes"] as? String == "Reading: いぬ\nExample: 犬が好きです。")
        #expect(dog["tags"] as? [String] == ["animal", "JLPT::N5", "Japanese_Vocab"])
    }

    @Test("a .colpkg with --json reports the counts, media included; a second one with --no-duplicates adds nothing")
    func colpkgJSONAndDuplicates() throws {
        let first = sandbox.run("import", ankiFixture("words.colpkg"), "--json")
        #expect(first.status == 0, "\(first.errorOutput)")
        let report = try first.jsonObject()
        #expect(report["added"] as? Int == 3)
        #expect(report["droppedMediaReferences"] as? Int == 1)
        #expect(report["notesWithoutTerm"] as? Int == 0)

        let second = sandbox.run("import", ankiFixture("words-latest.apkg"), "--no-duplicates")
        #expect(second.status == 0, "\(second.errorOutput)")
        #expect(second.output.hasPrefix("Imported 0 words, skipped 3 already in the library\n"))
        #expect(try sandbox.listedTerms() == ["fromage", "pain", "pomme"])
    }

    @Test("--fields, repeated for each note type, chooses the term's and the meaning's fields")
    func fields() throws {
        let result = sandbox.run("import", ankiFixture("words.apkg"), "--fields", "Back,Front", "--fields", "Meaning, Word")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try sandbox.listedTerms() == ["cat", "dog", "dog & hound", "house", "to eat\nto have lunch", "to speak"])
    }

    @Test("--fields with three names or an empty one is a usage error (exit 64)", arguments: ["a,b,c", "Front,", ""])
    func fieldsUsage(value: String) throws {
        let result = sandbox.run("import", ankiFixture("words.apkg"), "--fields", value)
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("--fields takes one or two field names"))
    }

    @Test(
        "a broken package exits 1 with the file's name and changes nothing",
        arguments: ["truncated.apkg", "zstd-bomb.colpkg", "fake-collection.apkg", "broken-utf8.apkg"])
    func broken(fixture: String) throws {
        try sandbox.add("hund", "--meaning", "dog")
        let before = sandbox.contents(of: sandbox.libraryPath)
        let result = sandbox.run("import", ankiFixture(fixture))
        #expect(result.status == 1)
        #expect(result.errorOutput.hasPrefix("Error: \(ankiFixture(fixture)): "), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("nothing was imported"))
        #expect(result.output.isEmpty)
        #expect(try sandbox.listedTerms() == ["hund"])
        #expect(sandbox.contents(of: sandbox.libraryPath) == before)
    }
}
