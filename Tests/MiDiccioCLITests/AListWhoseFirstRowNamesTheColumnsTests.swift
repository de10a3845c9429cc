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
}
