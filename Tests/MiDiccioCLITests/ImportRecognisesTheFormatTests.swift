import Foundation
import Testing

@Suite("Import recognises a file's format by its content")
final class ImportRecognisesTheFormatTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test(
        "whatever its name, a file is read as what it contains, and the result says which",
        arguments: [
            ("term,meaning\nuno,one\n", "MiDiccio CSV"), ("term\tmeaning\nuno\tone\n", "MiDiccio TSV"),
            ("#separator:tab\nuno\tone\n", "Anki plain-text export"),
            ("uno\tone\n", "a list without a header (tabs: term, meaning)"),
        ])
    func textFormats(text: String, readAs: String) throws {
        let result = sandbox.run("import", try sandbox.write(text, to: "vocab.db"))
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output == "Imported 1 word from vocab.db, read as \(readAs)\n")
    }

    @Test("a Kindle database named like a text file is still read as one")
    func kindleByContent() throws {
        let file = try ImportFixtures.copy("vocab.db", into: sandbox, as: "words.txt")
        #expect(sandbox.run("import", file).output.hasSuffix("read as Kindle Vocabulary Builder\n"))
    }

    @Test("--format overrides what the content suggests")
    func formatOverrides() throws {
        let file = try sandbox.write("term,meaning\nuno,one\n", to: "words.csv")
        let result = sandbox.run("import", file, "--format", "list")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try sandbox.listedTerms() == ["term", "uno"])
    }

    @Test(
        "a file it cannot read is refused, naming the formats it knows, and nothing changes",
        arguments: [
            (Data([0x50, 0x4B, 0x03, 0x04, 0x00, 0x00]), "zip archive"),
            (Data("uno\0one".utf8), "a binary file"),
        ])
    func unreadable(bytes: Data, says: String) throws {
        let file = sandbox.path("strange.bin")
        try bytes.write(to: URL(fileURLWithPath: file))
        let result = sandbox.run("import", file)
        #expect(result.status == 1)
        #expect(result.errorOutput.contains(says), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("kindle (Kindle Vocabulary Builder)"), "\(result.errorOutput)")
        #expect(try sandbox.listedTerms().isEmpty)
    }

    @Test("a text file that is not UTF-8 is refused with the likely cause and how to save it again, and nothing changes")
    func notUTF8() throws {
        // "café" in Latin-1, as a spreadsheet's plain CSV saves it on Windows.
        let latin1 = sandbox.path("latin1.csv")
        try (Data("term,meaning\n".utf8) + Data([0x63, 0x61, 0x66, 0xE9]) + Data(",coffee\n".utf8)).write(to: URL(fileURLWithPath: latin1))
        let refused = sandbox.run("import", latin1)
        #expect(refused.status == 1)
        #expect(refused.errorOutput.contains("line 2: not UTF-8 text from byte 17"), "\(refused.errorOutput)")
        #expect(refused.errorOutput.contains("Latin-1 or Windows-1252"))
        #expect(refused.errorOutput.contains("save it again as UTF-8"))

        // Excel's "Unicode Text" is UTF-16 with a byte order mark.
        let utf16 = sandbox.path("unicode.txt")
        try (Data([0xFF, 0xFE]) + "uno\tone\n".data(using: .utf16LittleEndian)!).write(to: URL(fileURLWithPath: utf16))
        let refusedUTF16 = sandbox.run("import", utf16)
        #expect(refusedUTF16.status == 1)
        #expect(refusedUTF16.errorOutput.contains("UTF-16 text"), "\(refusedUTF16.errorOutput)")
        #expect(try sandbox.listedTerms().isEmpty)

        // Without the mark it was "a binary file" (round 23A #7).
        let noMark = sandbox.path("no-mark.txt")
        try "uno\tone\ndos\ttwo\n".data(using: .utf16LittleEndian)!.write(to: URL(fileURLWithPath: noMark))
        let refusedNoMark = sandbox.run("import", noMark)
        #expect(refusedNoMark.status == 1)
        #expect(refusedNoMark.errorOutput.contains("UTF-16 text without a byte order mark"), "\(refusedNoMark.errorOutput)")
        #expect(try sandbox.listedTerms().isEmpty)
    }

    /// A backup saved again as UTF-16 was "not a MiDiccio backup ... use import" (round 23A #7).
    @Test("a backup saved again as UTF-16 is named as such, and nothing changes")
    func backupInUTF16() throws {
        try sandbox.add("casa", "--meaning", "house")
        let backup = sandbox.path("backup.json")
        #expect(sandbox.run("backup", "export", backup).status == 0)
        let text = try String(contentsOfFile: backup, encoding: .utf8)
        try (Data([0xFF, 0xFE]) + text.data(using: .utf16LittleEndian)!).write(to: URL(fileURLWithPath: backup))
        let refused = sandbox.run("backup", "restore", backup, "--offline")
        #expect(refused.status == 1)
        #expect(refused.errorOutput.contains("this is UTF-16 text, not UTF-8"), "\(refused.errorOutput)")
        #expect(refused.errorOutput.contains("save it again as UTF-8"))
    }

    @Test("an SQLite database of another kind is refused")
    func otherSQLite() throws {
        let file = sandbox.path("other.sqlite")
        // Another application's database (a MiDiccio library is named as one: see
        // ImportExportCLITests.libraryFileNamesBackupRestore).
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: try BuiltTool.sqliteShell())
        sqlite.arguments = [file, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('x');"]
        try sqlite.run()
        sqlite.waitUntilExit()
        let result = sandbox.run("import", file)
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("neither Kindle's vocab.db"), "\(result.errorOutput)")
    }

    @Test("options for another format are refused instead of ignored")
    func mismatchedOptions() throws {
        let csv = try sandbox.write("term,meaning\nuno,one\n", to: "words.csv")
        #expect(sandbox.run("import", csv, "--since", "2024-01-01").errorOutput.contains("--since is for Kindle and KOReader"))
        #expect(sandbox.run("import", csv, "--columns", "term,meaning").errorOutput.contains("add --format list"))
        #expect(try sandbox.listedTerms().isEmpty)
    }
}
