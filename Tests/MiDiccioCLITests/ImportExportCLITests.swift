import Foundation
import Testing

@Suite("Import and export of CSV, TSV and Anki text from the command line")
final class ImportExportCLITests {
    let sandbox: Sandbox
    /// A second library that imports what the first exported.
    let other: [String]

    init() throws {
        sandbox = try Sandbox()
        other = ["--library", sandbox.path("other.sqlite")]
    }

    /// Words chosen to break naive CSV and TSV handling.
    static let awkwardWords: [[String]] = [
        [
            "say \"hi\", friend", "--meaning", "a, b; and \"c\"", "--reading", "tab\there",
            "--example", "He said \"no\", twice.", "--example", "Tab\tinside", "--notes", "line one\nline two\r\nline three",
            "--tag", "quotes", "--tag", "commas",
        ],
        ["👩‍👩‍👧 familia", "--meaning", "family 🎉", "--notes", "first\n\nthird, \"quoted\"\tand tabbed"],
        ["=SUM(A1:A2)", "--meaning", "not a formula"],
        ["\"quoted start", "--meaning", "ends with a quote\"", "--notes", "\"\""],
        ["日本語", "--reading", "にほんご", "--meaning", "Japanese", "--tag", "日本"],
        ["cafe\u{301}", "--meaning", "caf\u{E9}"],
        ["a\tb,c", "--notes", "trailing comma,"],
    ]

    /// The content of every listed word, as exact Unicode scalars, ordered by term.
    private func contents(_ library: [String]) throws -> [[String]] {
        let words = try sandbox.run(["list", "--json", "--sort", "term"] + library).jsonArray()
        return words.map { word in
            ["term", "meaning", "reading", "notes"].map { (word[$0] as? String ?? "<missing>") }
                + ["examples:"] + (word["examples"] as? [String] ?? ["<missing>"])
                + ["tags:"] + (word["tags"] as? [String] ?? ["<missing>"])
        }
        .map { fields in fields.map { $0.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") } }
    }

    @Test(
        "exported words import into another library unchanged: quotes, commas, tabs, newlines, emoji",
        arguments: ["words.csv", "words.tsv"])
    func roundTrip(fileName: String) throws {
        for word in Self.awkwardWords {
            let result = sandbox.run(["add"] + word)
            try #require(result.status == 0, "add \(word[0]): \(result.errorOutput)")
        }
        let file = sandbox.path(fileName)
        let export = sandbox.run("export", file)
        #expect(export.status == 0)
        #expect(export.output == "Exported \(Self.awkwardWords.count) words to \(file)\n")

        let imported = sandbox.run(["import", file] + other)
        #expect(imported.status == 0, "\(imported.errorOutput)")
        #expect(imported.output.hasPrefix("Imported \(Self.awkwardWords.count) words from "), "\(imported.output)")
        #expect(imported.errorOutput.isEmpty)
        #expect(try contents(other) == contents([]))
        #expect(try contents(other).count == Self.awkwardWords.count)
    }

    @Test(
        "export picks CSV or TSV from the file name, and --format overrides it",
        arguments: [
            ("words.csv", [String](), "term,meaning"), ("words.tsv", [], "term\tmeaning"), ("words.txt", [], "term,meaning"),
            ("words.txt", ["--format", "tsv"], "term\tmeaning"), ("words.tsv", ["--format", "CSV"], "term,meaning"),
        ])
    func exportFormat(fileName: String, options: [String], header: String) throws {
        try sandbox.add("uno", "--meaning", "one")
        let file = sandbox.path(fileName)
        #expect(sandbox.run(["export", file] + options).status == 0)
        let text = String(decoding: try #require(sandbox.contents(of: file)), as: UTF8.self)
        #expect(text.hasPrefix(header), "\(text)")
    }

    @Test("export leaves out words in the Trash")
    func exportSkipsTrash() throws {
        try sandbox.add("uno")
        let gone = try sandbox.add("dos")
        sandbox.run("delete", gone)
        let file = sandbox.path("words.csv")
        #expect(sandbox.run("export", file).output == "Exported 1 word to \(file)\n")
        let text = String(decoding: try #require(sandbox.contents(of: file)), as: UTF8.self)
        #expect(text.contains("uno"))
        #expect(!text.contains("dos"))
    }

    /// Files whose fourth line is bad, by what is wrong with it.
    static let filesWithABadFourthLine: [String: String] = [
        "a 501-character term": "term,meaning\nuno,one\ndos,two\n\(String(repeating: "x", count: 501)),long\ncinco,five\n",
        "an empty term": "term,meaning\nuno,one\ndos,two\n ,nothing\ncinco,five\n",
        "too many fields": "term,meaning\nuno,one\ndos,two\ntres,three,extra\ncinco,five\n",
        "a row after a two-line cell": "term,meaning\nuno,\"one\nstill one\"\n\(String(repeating: "x", count: 501)),long\n",
        "1,001 tags in TSV": "term\ttags\nuno\tok\ndos\tok\ntres\t\((1...1_001).map { "t\($0)" }.joined(separator: " "))\n",
    ]

    @Test(
        "a bad row fails the whole import with its line number and imports nothing",
        arguments: filesWithABadFourthLine.keys.sorted())
    func badRowImportsNothing(name: String) throws {
        let text = try #require(Self.filesWithABadFourthLine[name])
        try sandbox.add("existing")
        let before = sandbox.run("list", "--json").output
        let file = try sandbox.write(text, to: "words.csv")

        let result = sandbox.run("import", file)
        #expect(result.status == 1, "\(name)")
        #expect(result.output.isEmpty)
        #expect(result.errorOutput.hasPrefix("Error: "))
        #expect(result.errorOutput.contains("line 4"), "\(name): \(result.errorOutput)")
        #expect(result.errorOutput.contains("nothing was imported"))
        #expect(sandbox.run("list", "--json").output == before)
    }

    @Test("a symbolic link to a file imports as the file does; a folder and a pipe are refused as what they are")
    func linksFoldersAndPipes() throws {
        _ = try sandbox.write("term,meaning\nuno,one\n", to: "words.csv")
        try FileManager.default.createSymbolicLink(atPath: sandbox.path("link.csv"), withDestinationPath: "words.csv")
        let linked = sandbox.run("import", sandbox.path("link.csv"))
        #expect(linked.status == 0, "\(linked.errorOutput)")
        #expect(try sandbox.listedTerms() == ["uno"])

        try FileManager.default.createDirectory(atPath: sandbox.path("folder.csv"), withIntermediateDirectories: true)
        let folder = sandbox.run("import", sandbox.path("folder.csv"))
        #expect(folder.status == 1)
        #expect(folder.errorOutput.contains("folder.csv: a folder"), "\(folder.errorOutput)")
        #expect(mkfifo(sandbox.path("pipe.csv"), 0o600) == 0)
        let pipe = sandbox.run("import", sandbox.path("pipe.csv"))
        #expect(pipe.status == 1)
        #expect(pipe.errorOutput.contains("pipe.csv: not a regular file"), "\(pipe.errorOutput)")
        #expect(try sandbox.listedTerms() == ["uno"], "nothing changed")
    }

    @Test("importing another MiDiccio library file says how to take its words in, and changes nothing")
    func libraryFileNamesBackupRestore() throws {
        let old = sandbox.path("old laptop.sqlite")
        #expect(sandbox.run(["--library", old, "add", "palabra"]).status == 0)
        let refused = sandbox.run("import", old)
        #expect(refused.status == 1)
        #expect(refused.errorOutput.contains("a MiDiccio library file"), "\(refused.errorOutput)")
        #expect(refused.errorOutput.contains("midiccio backup restore '\(old)'"), "\(refused.errorOutput)")
        #expect(try sandbox.listedTerms().isEmpty)
    }

    @Test("a CSV without a header row is read as a list, and --format csv still asks for the header")
    func missingHeader() throws {
        let file = try sandbox.write("uno,one\n", to: "words.csv")
        let strict = sandbox.run("import", file, "--format", "csv")
        #expect(strict.status == 1)
        #expect(strict.errorOutput.contains("line 1"))
        #expect(strict.errorOutput.contains("header row"))

        let result = sandbox.run("import", file)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("read as a list without a header (commas: term, meaning)"), "\(result.output)")
    }

    @Test("an Anki plain-text export with #separator:tab, #html:true and #tags column:3 imports")
    func ankiExport() throws {
        let text = """
            #separator:tab
            #html:true
            #tags column:3
            <b>perro</b>\tdog<br>hound\tanimals spanish
            gato\tcat&nbsp;&amp;&nbsp;kitten\tanimals
            caf&#233;\tcoffee\t

            """
        let file = try sandbox.write(text, to: "Spanish.txt")
        let result = sandbox.run("import", file)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == "Imported 3 words from Spanish.txt, read as Anki plain-text export\n")

        let words = try sandbox.listedWords("--sort", "term")
        #expect(words.compactMap { $0["term"] as? String } == ["café", "gato", "perro"])
        let perro = try #require(words.last)
        #expect(perro["meaning"] as? String == "dog\nhound")
        #expect(perro["tags"] as? [String] == ["animals", "spanish"])
        #expect(words[1]["meaning"] as? String == "cat & kitten")
        #expect(words[0]["tags"] as? [String] == [])

        let tags = sandbox.run("tags")
        #expect(tags.output == "2  animals\n1  spanish\n")
    }

    @Test("a quick import prints no progress, on a terminal or not, and --json output stays clean")
    func noProgressForAQuickImport() throws {
        let text = "term\n" + (1...200).map { "word\($0)" }.joined(separator: "\n") + "\n"
        let file = try sandbox.write(text, to: "words.csv")

        let quiet = sandbox.run(["import", file, "--library", sandbox.path("quiet.sqlite")])
        #expect(quiet.status == 0)
        #expect(quiet.errorOutput.isEmpty)

        // The library is made first: its first command at a terminal says where it is.
        #expect(sandbox.run(["list", "--library", sandbox.path("terminal.sqlite")]).status == 0)
        let onATerminal = sandbox.run(["import", file, "--library", sandbox.path("terminal.sqlite")], errorTerminal: true)
        #expect(onATerminal.output == "Imported 200 words from words.csv, read as MiDiccio CSV\n")
        #expect(onATerminal.errorOutput.isEmpty, "within a second no progress line shows")

        let shown = sandbox.run(["import", file, "--json"], errorTerminal: true)
        #expect(shown.status == 0)
        #expect(shown.errorOutput.isEmpty)
        #expect(try shown.jsonObject()["added"] as? Int == 200)
    }

    @Test("an import into an empty library says how many words it added", arguments: [nil, "csv", "tsv"] as [String?])
    func importCounts(format: String?) throws {
        let separator = format == "tsv" ? "\t" : ","
        let text =
            ["term", "meaning", "tags"].joined(separator: separator) + "\n"
            + ["uno", "one", "numbers"].joined(separator: separator) + "\n"
            + ["dos", "two", "numbers basics"].joined(separator: separator) + "\n"
        let file = try sandbox.write(text, to: "words.txt")
        let result = sandbox.run(["import", file] + (format.map { ["--format", $0] } ?? []))
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == "Imported 2 words from words.txt, read as MiDiccio \(format == "tsv" ? "TSV" : "CSV")\n")
        #expect(try sandbox.listedWords("--tag", "numbers").count == 2)
    }
}
