import Foundation
import Testing

@Suite("Importing a list without a header")
final class ImportAListWithoutAHeaderTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private func word(_ term: String) throws -> [String: Any] {
        try #require(try sandbox.listedWords().first { $0["term"] as? String == term }, "no word \(term)")
    }

    @Test("a two-column list imports term and meaning, and further columns go to the notes")
    func termMeaningNotes() throws {
        let file = try sandbox.write("hund\tdog\nkatze\tcat\tpet\tanimal, small\n", to: "words.txt")
        let result = sandbox.run("import", file)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == "Imported 2 words from words.txt, read as a list without a header (tabs: term, meaning, notes, notes)\n")
        #expect(try word("hund")["meaning"] as? String == "dog")
        let katze = try word("katze")
        #expect(katze["meaning"] as? String == "cat")
        #expect(katze["notes"] as? String == "pet\nanimal, small")
        #expect(katze["tags"] as? [String] == [])
        #expect(katze["examples"] as? [String] == [])
    }

    @Test(
        "the separator is found, or given as a name or as text",
        arguments: [
            ("hund;dog\nkatze;cat\n", [String]()), ("hund|dog\nkatze|cat\n", []), ("hund,dog\nkatze,cat\n", []),
            ("hund;dog\nkatze;cat\n", ["--separator", "semicolon"]), ("hund|dog\nkatze|cat\n", ["--separator", "|"]),
            ("hund = dog\nkatze = cat\n", ["--separator", " = "]),
        ])
    func separators(text: String, options: [String]) throws {
        let result = sandbox.run(["import", try sandbox.write(text, to: "words.txt")] + options)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try sandbox.listedTerms() == ["hund", "katze"])
        #expect(try word("katze")["meaning"] as? String == "cat")
    }

    @Test("Quizlet's custom separators between term and definition and between cards are honoured")
    func quizletCustomSeparators() throws {
        let text = "hund::dog|||katze::cat\nsmall feline|||maus::mouse"
        let file = try sandbox.write(text, to: "quizlet.txt")
        let result = sandbox.run("import", file, "--separator", "::", "--card-separator", "|||")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try sandbox.listedTerms() == ["hund", "katze", "maus"])
        #expect(try word("katze")["meaning"] as? String == "cat\nsmall feline")
    }

    @Test("--columns with --format tsv is refused, saying what --format tsv reads rather than calling the file a MiDiccio TSV")
    func columnsWithAFormatGiven() throws {
        let file = try sandbox.write("perro\tdog\ngato\tcat\n", to: "small.tsv")
        let result = sandbox.run("import", file, "--format", "tsv", "--columns", "term,meaning")
        #expect(result.status == 1)
        #expect(
            result.errorOutput.contains(
                "--columns is for lists without a header, and --format tsv reads the file as a MiDiccio TSV, its first row naming the fields"
            ),
            "\(result.errorOutput)")
        #expect(result.errorOutput.contains("or use --format list"), "\(result.errorOutput)")
        #expect(try sandbox.listedWords().isEmpty)
    }

    @Test("--columns says what each column holds, skip leaves one out")
    func columns() throws {
        let file = try sandbox.write("perro,x,dog,animals spanish,pe-rro,Un perro.\n", to: "words.csv")
        let result = sandbox.run("import", file, "--columns", "term,skip,meaning,tags,reading,examples")
        #expect(result.status == 0, "\(result.errorOutput)")
        let perro = try word("perro")
        #expect(perro["meaning"] as? String == "dog")
        #expect(perro["tags"] as? [String] == ["animals", "spanish"])
        #expect(perro["reading"] as? String == "pe-rro")
        #expect(perro["examples"] as? [String] == ["Un perro."])
        #expect(perro["notes"] as? String == "")
    }

    @Test("--dry-run shows the first rows as they would be read and changes nothing")
    func dryRun() throws {
        let text = (1...15).map { "word\($0)\tmeaning \($0)" }.joined(separator: "\n")
        let file = try sandbox.write(text, to: "words.tsv")
        let result = sandbox.run("import", file, "--dry-run")
        #expect(result.status == 0, "\(result.errorOutput)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == "Read words.tsv as a list without a header (tabs: term, meaning)")
        #expect(lines[1].split(separator: " ") == ["line", "term", "meaning"])
        #expect(lines[2].split(separator: " ", omittingEmptySubsequences: true) == ["1", "word1", "meaning", "1"])
        #expect(lines.contains("  … 5 more"))
        #expect(lines.last == "Would import 15 of 15 words. Nothing was changed.")
        #expect(try sandbox.listedTerms().isEmpty)

        let json = try sandbox.run("import", file, "--dry-run", "--json").jsonObject()
        #expect(json["format"] as? String == "list")
        #expect(json["columns"] as? [String] == ["term", "meaning"])
        #expect((json["sample"] as? [[String: Any]])?.count == 10)
        #expect(try sandbox.listedTerms().isEmpty)
    }

    @Test("a row without a term fails the whole import, naming the line and field")
    func badRow() throws {
        try sandbox.add("existing")
        let file = try sandbox.write("hund\tdog\nkatze\tcat\n\tnobody\n", to: "words.txt")
        let result = sandbox.run("import", file)
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("words.txt, line 3: term"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("nothing was imported"))
        #expect(try sandbox.listedTerms() == ["existing"])
    }

    @Test("--no-duplicates skips terms already in the library")
    func duplicates() throws {
        try sandbox.add("Hund")
        let file = try sandbox.write("hund\tdog\nkatze\tcat\n", to: "words.txt")
        let result = sandbox.run("import", file, "--no-duplicates")
        #expect(result.status == 0)
        #expect(result.output.hasSuffix(", skipped 1 already in the library or earlier in the file (\"hund\")\n"), "\(result.output)")
        #expect(try sandbox.listedTerms() == ["Hund", "katze"])
    }

    @Test("import undo moves the words of the last import to the Trash, once")
    func undo() throws {
        try sandbox.add("existing")
        let file = try sandbox.write("hund\tdog\nkatze\tcat\n", to: "words.txt")
        #expect(sandbox.run("import", file).status == 0)
        let undo = sandbox.run("import", "undo")
        #expect(undo.output == "Undid the last import: 2 words moved to the Trash\n")
        #expect(try sandbox.listedTerms() == ["existing"])
        #expect(try sandbox.run("trash", "--json").jsonArray().count == 2)
        let again = sandbox.run("import", "undo")
        #expect(again.status == 1)
        #expect(again.errorOutput.contains("there is no import to undo"))
    }
}
