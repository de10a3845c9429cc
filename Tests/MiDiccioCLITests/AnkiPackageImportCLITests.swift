import Foundation
import MiDiccioTesting
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
                Imported 5 words from words.apkg, read as Anki deck package
                Left out 4 media references (sounds and images; MiDiccio keeps text)
                Left out 1 note whose term field has no text (an image only, say)

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
        #expect(
            second.output.hasPrefix(
                "Imported 0 words from words-latest.apkg, read as Anki deck package, skipped 3 already in the library or earlier in the file ("
            ))
        #expect(try sandbox.listedTerms() == ["fromage", "pain", "pomme"])
    }

    @Test(
        "a refused package import and a dry run leave no copy of the collection in the temporary folder; a killed import's is removed by the next"
    )
    func noCollectionLeftBehind() throws {
        let children = try ChildProcesses(in: sandbox)
        let temporary = sandbox.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        // What a killed import leaves: a folder named with its process id, no longer running.
        let killed = "midiccio-anki-\(try endedProcessID())-5eed"
        try FileManager.default.createDirectory(atPath: temporary + "/" + killed, withIntermediateDirectories: true)
        _ = try sandbox.write("a copy of someone's collection", to: "tmp/\(killed)/collection.sqlite")
        // One of this running test process, and one named otherwise: left alone.
        let running = temporary + "/midiccio-anki-\(getpid())-beef"
        let unnamed = temporary + "/midiccio-anki-notanumber"
        for folder in [running, unnamed] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }

        let library = sandbox.path("library.sqlite")
        for _ in 0..<4 {
            let refused = try children.run(
                ["import", ankiFixture("words.apkg"), "--fields", "Nope", "--library", library], environment: ["TMPDIR": temporary])
            #expect(!refused.succeeded)
            let dryRun = try children.run(
                ["import", ankiFixture("words.apkg"), "--dry-run", "--library", library], environment: ["TMPDIR": temporary])
            #expect(dryRun.succeeded, "\(dryRun.errorOutput)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary).sorted()
        #expect(left == ["midiccio-anki-\(getpid())-beef", "midiccio-anki-notanumber"], "\(left)")
    }

    @Test("a note too long for a word is left out and counted, naming it, and the rest of the deck imports")
    func noteOverLimitLeftOut() throws {
        let result = sandbox.run("import", ankiFixture("long-note.apkg"), "--json")
        #expect(result.status == 0, "\(result.errorOutput)")
        let report = try result.jsonObject()
        #expect(report["added"] as? Int == 4)
        #expect(report["notesOverLimit"] as? Int == 1)
        let first = report["firstNoteOverLimit"] as? String ?? ""
        #expect(first.contains("La {{c1::fotosíntesis}}") && first.contains("the limit is 500"), "\(first)")
        #expect(try sandbox.listedTerms() == ["hablar", "perro", "犬", "猫"])
        let text = sandbox.run(["--library", sandbox.path("other.sqlite"), "import", ankiFixture("long-note.apkg")])
        #expect(text.output.contains("Left out 1 note too long for a word (the first: note "), "\(text.output)")
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

    @Test("import undo after an .apkg leaves the library as it was: the package's words go to the Trash, the others stay")
    func undo() throws {
        try sandbox.add("hund", "--meaning", "dog")
        let before = try sandbox.listedTerms()
        #expect(sandbox.run("import", ankiFixture("words.apkg")).status == 0)
        #expect(try sandbox.listedTerms().count == 6)
        let undo = sandbox.run("import", "undo")
        #expect(undo.status == 0, "\(undo.errorOutput)")
        #expect(undo.output == "Undid the last import: 5 words moved to the Trash\n")
        #expect(try sandbox.listedTerms() == before)
        let hund = try #require(try sandbox.listedWords().first)
        #expect(hund["meaning"] as? String == "dog")
        #expect(sandbox.run("import", "undo").status == 1)
    }

    @Test("--format apkg reads a package whatever its name; --fields is refused for a file that is not a package")
    func formatAndFieldsOnlyForPackages() throws {
        let renamed = sandbox.path("deck.txt")
        try Data(contentsOf: URL(fileURLWithPath: ankiFixture("words.colpkg"))).write(to: URL(fileURLWithPath: renamed))
        let result = sandbox.run("import", renamed, "--format", "apkg", "--json")
        #expect(result.status == 0, "\(result.errorOutput)")
        let report = try result.jsonObject()
        #expect(report["format"] as? String == "apkg")
        #expect(report["added"] as? Int == 3)

        let list = try sandbox.write("uno\tone\n", to: "words.txt")
        let refused = sandbox.run("import", list, "--fields", "Front,Back")
        #expect(refused.status == 1)
        #expect(refused.errorOutput.contains("--fields is for Anki packages"), "\(refused.errorOutput)")
        #expect(try sandbox.listedTerms() == ["fromage", "pain", "pomme"])
    }

    @Test("--dry-run of a package shows its first words and what it would leave out, and changes nothing")
    func dryRun() throws {
        let result = sandbox.run("import", ankiFixture("words.apkg"), "--dry-run")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.hasPrefix("Read words.apkg as Anki deck package\n"), "\(result.output)")
        #expect(result.output.contains("Would import 5 of 5 words. Nothing was changed.\n"), "\(result.output)")
        #expect(result.output.contains("Left out 4 media references"))
        #expect(try sandbox.listedTerms().isEmpty)
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
