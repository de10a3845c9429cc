import Foundation
import Testing

/// Spreadsheets in Spanish, French or German save "CSV" with semicolons. Such a file with
/// MiDiccio's own header (`term;meaning;tags`) was read as a list without a header: the
/// header became a word "term", and the tags went into the notes.
@Suite("A list whose first row names the columns")
final class AListWhoseFirstRowNamesTheColumnsTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("a semicolon sheet with a header: the header is left out and its names are the columns")
    func semicolonHeader() throws {
        let file = try sandbox.write("\u{FEFF}Term;Meaning;Tags\r\nnueve;nine;num\r\ndiez;ten;num par\r\n", to: "numeros.csv")
        let result = sandbox.run("import", file)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(
            result.output
                == "Imported 2 words from numeros.csv, read as a list whose first row names the columns (semicolons: term, meaning, tags)\n"
        )
        #expect(try sandbox.listedTerms() == ["diez", "nueve"])
        let diez = try #require(try sandbox.listedWords().first { $0["term"] as? String == "diez" })
        #expect(diez["meaning"] as? String == "ten")
        #expect(diez["tags"] as? [String] == ["num", "par"])
        #expect(diez["notes"] as? String == "")
    }

    @Test("given columns take the place of the header's names, and the header is still left out")
    func givenColumns() throws {
        let file = try sandbox.write("term|meaning|notes\nhund|dog|pet\n", to: "words.txt")
        let result = sandbox.run("import", file, "--columns", "term,meaning,tags", "--json")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("\"header\": true"), "\(result.output)")
        #expect(try sandbox.listedTerms() == ["hund"])
        let hund = try #require(try sandbox.listedWords().first)
        #expect(hund["tags"] as? [String] == ["pet"])
    }

    @Test(
        "a first row that is not only column names is a word, as before",
        arguments: [
            "term;meaning;category\nuno;one;x\n", "meaning;term\nuno;one\n".replacingOccurrences(of: "term", with: "palabra"),
            "term;term\nuno;one\n",
        ])
    func notAHeader(text: String) throws {
        let result = sandbox.run("import", try sandbox.write(text, to: "words.txt"))
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("a list without a header"), "\(result.output)")
        #expect(try sandbox.listedTerms().count == 2)
    }

    @Test("Excel's first line sep=; names the separator and is no word, with a header after it or without one")
    func excelSeparatorLine() throws {
        let sheet = try sandbox.write("sep=;\r\nterm;meaning;tags\r\nuno;one;num\r\ndos;two, 2;num\r\n", to: "excel.csv")
        let result = sandbox.run("import", sheet)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(
            result.output
                == "Imported 2 words from excel.csv, read as a list whose second row names the columns "
                + "(semicolons, as its sep= line says: term, meaning, tags)\n")
        let words = try sandbox.listedWords("--sort", "term")
        #expect(words.map { $0["term"] as? String } == ["dos", "uno"])
        #expect(words.map { $0["meaning"] as? String } == ["two, 2", "one"])
        #expect(words.map { $0["tags"] as? [String] } == [["num"], ["num"]])

        // Without a header, quoted as a spreadsheet may write it: the separator is still the
        // one it names, although commas would cut every line alike.
        let list = try sandbox.write("\"sep=|\"\ntres|three, 3\n", to: "pipes.txt")
        let plain = sandbox.run("import", list)
        #expect(plain.status == 0, "\(plain.errorOutput)")
        #expect(plain.output.contains("(pipes, as its sep= line says: term, meaning)"), "\(plain.output)")
        let tres = try #require(try sandbox.listedWords().first { $0["term"] as? String == "tres" })
        #expect(tres["meaning"] as? String == "three, 3")
        #expect(try sandbox.listedTerms() == ["dos", "tres", "uno"])
    }

    @Test("empty columns a spreadsheet saved past the last one are left out; an empty name among the others is named")
    func emptyColumnsAtTheEnd() throws {
        let commas = try sandbox.write("term,meaning,tags,,,\nuno,one,num,,,\ndos,two,,,,\n", to: "commas.csv")
        let first = sandbox.run("import", commas)
        #expect(first.status == 0, "\(first.errorOutput)")
        #expect(first.output == "Imported 2 words from commas.csv, read as MiDiccio CSV\n")
        let semicolons = try sandbox.write("term;meaning;;\ntres;three;;\ncuatro;four\n", to: "semicolons.csv")
        let second = sandbox.run("import", semicolons)
        #expect(second.status == 0, "\(second.errorOutput)")
        #expect(try sandbox.listedTerms() == ["cuatro", "dos", "tres", "uno"])
        let uno = try #require(try sandbox.listedWords().first { $0["term"] as? String == "uno" })
        #expect(uno["tags"] as? [String] == ["num"])

        // Data past the named columns is still refused, naming the header, not a --columns
        // that was never given; and a column without a name among named ones is said so.
        let longer = try sandbox.write("term;meaning\ncinco;five;extra\n", to: "longer.csv")
        let refused = sandbox.run("import", longer)
        #expect(refused.status == 1)
        #expect(refused.errorOutput.contains("line 2: the row has 3 fields but the header names 2"), "\(refused.errorOutput)")
        let unnamed = try sandbox.write("term,,meaning\nseis,x,six\n", to: "unnamed.csv")
        let noName = sandbox.run("import", unnamed)
        #expect(noName.status == 1)
        #expect(noName.errorOutput.contains("line 1: column 2 has no name"), "\(noName.errorOutput)")
        #expect(try sandbox.listedTerms() == ["cuatro", "dos", "tres", "uno"])
    }

    @Test(
        "an export saved again by a spreadsheet that separates with semicolons reads back as exported",
        arguments: [false, true])
    func exportSavedWithSemicolons(studyColumns: Bool) throws {
        // Terms that start with `-` come after `--`, as options would.
        #expect(sandbox.run("add", "--meaning", "=SUMA", "--tag", "gram", "--", "-ción").status == 0)
        #expect(sandbox.run("add", "--meaning", "more", "--notes", "@home", "--", "+más").status == 0)
        let exported = sandbox.path("words.csv")
        #expect(sandbox.run(["export", exported] + (studyColumns ? ["--study-columns"] : [])).status == 0)
        let text = String(decoding: try #require(sandbox.contents(of: exported)), as: UTF8.self)
        #expect(text.contains("'-ción"), "the export guards formulas: \(text)")
        // A spreadsheet with ; as its list separator saves the same cells (none holds a comma).
        let resaved = try sandbox.write(text.replacingOccurrences(of: ",", with: ";"), to: "resaved.csv")
        var other = sandbox.environment
        other["MIDICCIO_LIBRARY"] = sandbox.path("other.sqlite")
        let result = sandbox.run(["import", resaved], environment: other)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("first row names the columns (semicolons"), "\(result.output)")
        let words = try sandbox.run(["list", "--json"], environment: other).jsonArray()
        let fields = Set(words.map { "\($0["term"] ?? "") \($0["meaning"] ?? "") \($0["notes"] ?? "")" })
        #expect(fields == ["-ción =SUMA ", "+más more @home"])
    }
}
