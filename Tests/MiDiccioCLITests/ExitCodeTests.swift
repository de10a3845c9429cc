import Foundation
import Testing

@Suite("Exit codes and error messages")
final class ExitCodeTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    // MARK: - Success

    @Test("commands that work exit 0 and print nothing on stderr")
    func successExitsZero() throws {
        let id = try sandbox.add("palabra", "--meaning", "word", "--tag", "es")
        for arguments in [
            ["show", id], ["list"], ["search", "pal"], ["tags"], ["edit", id, "--notes", "n"],
            ["delete", id], ["trash"], ["restore", id], ["export", sandbox.path("words.csv")],
            ["backup", "export", sandbox.path("backup.json")],
        ] {
            let result = sandbox.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.errorOutput)")
            #expect(result.errorOutput.isEmpty, "\(arguments) wrote \(result.errorOutput)")
        }
    }

    // MARK: - Bad usage: 64

    static let usageMistakes: [[String]] = [
        ["add"],
        ["show"],
        ["add", "palabra", "--colour", "red"],
        ["add", "palabra", "-x"],
        ["add", "palabra", "--meaning"],
        ["add", "palabra", "--meaning", "one", "--meaning", "two"],
        ["add", "palabra", "--no-duplicates=yes"],
        ["show", "abcdef12", "abcdef34"],
        ["list", "--sort", "nonsense"],
        ["list", "--limit", "-3"],
        ["list", "--limit=-3"],
        ["list", "--limit", "many"],
        ["list", "--offset", "-1"],
        ["search", "pal", "--limit", "0"],
        ["list", "--tag", ""],
        ["list", "--tag", "  "],
        ["search", "pal", "--tag", ""],
        ["due", "--tag", ""],
        ["study", "--tag", ""],
        ["edit", "abcdef12"],
        ["edit", "abcdef12", "--example", "Una.", "--clear-examples"],
        ["export", "words.xml", "--format", "xml"],
        ["import", "words.txt", "--format", "json"],
        ["frobnicate"],
        ["backup", "frobnicate"],
    ]

    @Test(
        "bad usage exits 64 with 'Error: ...' and a Usage line on stderr and nothing on stdout",
        arguments: usageMistakes)
    func badUsage(arguments: [String]) throws {
        let result = sandbox.run(arguments)
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        #expect(result.errorOutput.hasPrefix("Error: "), "stderr: \(result.errorOutput)")
        #expect(result.errorOutput.contains("\nUsage: midiccio"), "no usage line in: \(result.errorOutput)")
    }

    @Test(
        "bad usage is caught before the library is opened, so no library is created",
        arguments: usageMistakes)
    func badUsageCreatesNothing(arguments: [String]) {
        sandbox.run(arguments)
        #expect(!sandbox.exists(sandbox.libraryPath))
    }

    @Test("the usage line on stderr is the failing command's own usage")
    func usageLineNamesTheCommand() {
        let result = sandbox.run("list", "--sort", "nonsense")
        #expect(result.errorOutput.contains("--sort must be updated, created or term"))
        #expect(result.errorOutput.contains("Usage: midiccio list "))
    }

    @Test("'midiccio backup' without a subcommand is bad usage: exit 64, Error and Usage on stderr only")
    func backupWithoutSubcommand() {
        let result = sandbox.run("backup")
        #expect(result.status == 64)
        #expect(result.output.isEmpty, "help went to stdout although the exit code says bad usage")
        #expect(result.errorOutput.hasPrefix("Error: "))
        #expect(result.errorOutput.contains("Usage: midiccio backup"))
    }

    // MARK: - Failures: 1

    static let failures: [(name: String, arguments: [String])] = [
        ("an unknown full id", ["show", "00000000-0000-4000-8000-000000000000"]),
        ("an unknown id prefix", ["show", "abcdef12"]),
        ("an empty term", ["add", ""]),
        ("a term of only spaces", ["add", "   "]),
        ("a 501-character term", ["add", String(repeating: "a", count: 501)]),
        ("a tag with a space", ["add", "palabra", "--tag", "two words"]),
        ("a missing backup file", ["backup", "restore", "/nonexistent/backup.json"]),
        ("a missing import file", ["import", "/nonexistent/words.csv"]),
        ("deleting an unknown id", ["delete", "00000000-0000-4000-8000-000000000000"]),
        ("restoring an unknown id", ["restore", "00000000-0000-4000-8000-000000000000"]),
        ("undo with no restore", ["backup", "undo"]),
    ]

    @Test(
        "a failure exits 1 with 'Error: ...' on stderr, no usage line and nothing on stdout",
        arguments: failures)
    func failureExitsOne(name: String, arguments: [String]) {
        let result = sandbox.run(arguments)
        #expect(result.status == 1, "\(name)")
        #expect(result.output.isEmpty, "\(name)")
        #expect(result.errorOutput.hasPrefix("Error: "), "\(name): \(result.errorOutput)")
        #expect(!result.errorOutput.contains("Usage:"), "\(name)")
    }

    @Test("a failure with --json prints no JSON, so a script never parses half a result")
    func failureWithJSONPrintsNothing() {
        let result = sandbox.run("show", "00000000-0000-4000-8000-000000000000", "--json")
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
    }

    @Test(
        "an invalid word names the field at fault and adds nothing",
        arguments: [
            ("", "term"), (String(repeating: "ñ", count: 501), "term"),
        ])
    func invalidWordNamesField(term: String, field: String) throws {
        try sandbox.add("existing")
        let result = sandbox.run("add", term, "--meaning", "m")
        #expect(result.status == 1)
        #expect(result.errorOutput.hasPrefix("Error: \(field)"), "\(result.errorOutput)")
        #expect(try sandbox.listedTerms() == ["existing"])
    }

    @Test("a term of exactly 500 characters is accepted")
    func longestTermAccepted() throws {
        let term = String(repeating: "ü", count: 500)
        #expect(sandbox.run("add", term).status == 0)
        #expect(try sandbox.listedTerms() == [term])
    }

    @Test("restoring a corrupt backup exits 1, says nothing was changed and changes nothing")
    func corruptBackup() throws {
        try sandbox.add("palabra")
        sandbox.run("backup", "export", sandbox.path("backup.json"))
        let whole = try #require(sandbox.contents(of: sandbox.path("backup.json")))
        let truncated = try sandbox.write(String(decoding: whole.prefix(whole.count / 2), as: UTF8.self), to: "truncated.json")
        try sandbox.add("otra")
        let before = sandbox.run("list", "--json").output

        let result = sandbox.run("backup", "restore", truncated, "--replace")
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errorOutput.hasPrefix("Error: backup "))
        #expect(result.errorOutput.contains("nothing was changed"))
        #expect(sandbox.run("list", "--json").output == before)
        #expect(sandbox.run("backup", "undo").status == 1)
    }
}
