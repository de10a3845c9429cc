import Foundation
import Testing

@testable import MiDiccioCLI
@testable import MiDiccioCLICore

@Suite("Global options and '--' on the whole command line")
final class CommandLineTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("'midiccio add -- -ismo' adds the term -ismo")
    func termAfterDoubleDash() throws {
        let result = sandbox.run("add", "--", "-ismo")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try sandbox.listedTerms() == ["-ismo"])
    }

    @Test(
        "--library before the command still counts when the command's arguments contain '--'",
        arguments: [["--library", "other.sqlite"], ["--library=other.sqlite"]])
    func globalOptionBeforeDoubleDash(global: [String]) throws {
        let global = global.map { $0.replacingOccurrences(of: "other.sqlite", with: sandbox.path("other.sqlite")) }
        let result = sandbox.run(global + ["add", "--", "-ismo"])
        #expect(result.status == 0, "\(result.errorOutput)")
        let listed = sandbox.run(global + ["list", "--json"])
        #expect(try listed.jsonArray().compactMap { $0["term"] as? String } == ["-ismo"])
        #expect(!sandbox.exists(sandbox.libraryPath))
    }

    @Test("--offline may come before a command that syncs first; before one that does not, it is unknown")
    func offlineBeforeCommand() {
        #expect(sandbox.run("--offline", "list").status == 0)
        let add = sandbox.run("--offline", "add", "palabra")
        #expect(add.status == 64)
        #expect(add.errorOutput.hasPrefix("Error: unknown option '--offline'\nUsage: midiccio add <term>"), "\(add.errorOutput)")
    }

    @Test("--library without its path before the command is bad usage, not the overview")
    func globalOptionWithoutValue() {
        let result = sandbox.run("--library")
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        #expect(
            result.errorOutput == "Error: --library needs a value (path)\nUsage: midiccio <command> [options]\n  See 'midiccio --help'.\n")
    }

    @Test("-h after '--' is a term, not a request for help")
    func helpAfterDoubleDash() throws {
        let result = sandbox.run("add", "--", "-h")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try sandbox.listedTerms() == ["-h"])
    }
}

// MARK: - The parser, on commands made for it

/// A colour, to test options typed with an enum.
private enum Colour: String, CaseIterable, ExpressibleByArgument {
    case red, green, blue
}

/// One declaration of every kind, so the parser is tested apart from the real commands.
private struct ProbeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["probe"], abstract: "Try the parser.", discussion: "Nothing happens.", examples: ["midiccio probe palabra -m word"])

    @Argument(name: "word", help: "A word.") var word: String
    @Option(name: "meaning", short: "m", valueName: "text", help: "What it means.") var meaning: String?
    @Option(name: "example", short: "e", valueName: "sentence", help: "An example.") var examples: [String]
    @Option(name: "count", help: "How many.", range: 1...10) var count: Int = 5
    @Option(name: "colour", help: "A colour.") var colour: Colour = .red
    @Flag(name: "quiet", short: "q", help: "Say less.") var quiet = false
    @Flag(name: "no-duplicates", help: "Refuse duplicates.") var noDuplicates = false
    @OptionGroup var output = OutputOptions(help: "Print it as JSON.")

    func validate() throws(UsageError) {
        if quiet && output.json { throw UsageError("--quiet and --json cannot be used together") }
    }

    func run(_ context: ToolContext) throws {}
}

/// A command that takes one or more words.
private struct IDsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(path: ["ids"], abstract: "Take ids.")

    @Argument(name: "id", help: "Ids.") var ids: [String]
    @Flag(name: "json", help: "Print it as JSON.") var json = false

    func run(_ context: ToolContext) throws {}
}

/// A command whose second argument may be left out (`remote set gdrive`).
private struct KindCommand: ParsableCommand {
    static let configuration = CommandConfiguration(path: ["kind"], abstract: "Take a kind and maybe a place.")

    @Argument(name: "kind", help: "A kind.") var kind: String
    @Argument(name: "place", help: "A place.") var place: String?

    func run(_ context: ToolContext) throws {}
}

@Suite("Parsing a command's options and arguments")
struct ArgumentParsingTests {
    private func probe(_ arguments: [String]) throws -> ProbeCommand {
        try #require(try ProbeCommand.parse(arguments), "help was shown instead").command
    }

    private func refusal<Command: ParsableCommand>(_ arguments: [String], of command: Command.Type = ProbeCommand.self) -> String? {
        do {
            _ = try Command.parse(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test("options and arguments come out typed, and what is not given keeps its default")
    func typedValuesAndDefaults() throws {
        let bare = try probe(["palabra"])
        #expect(bare.word == "palabra")
        #expect(bare.meaning == nil)
        #expect(bare.examples == [])
        #expect(bare.count == 5)
        #expect(bare.colour == .red)
        #expect(!bare.quiet && !bare.noDuplicates && !bare.output.json)

        let full = try probe(["palabra", "-m", "word", "-e", "Una.", "--count", "7", "--colour", "blue", "-q", "--no-duplicates"])
        #expect(full.meaning == "word")
        #expect(full.examples == ["Una."])
        #expect(full.count == 7)
        #expect(full.colour == .blue)
        #expect(full.quiet && full.noDuplicates)
    }

    @Test(
        "an option may be written --name value, --name=value or -x value, before or after the arguments",
        arguments: [
            ["palabra", "--meaning", "word"], ["palabra", "--meaning=word"], ["palabra", "-m", "word"],
            ["--meaning", "word", "palabra"], ["-m", "word", "palabra"],
        ])
    func waysOfWritingAnOption(arguments: [String]) throws {
        let command = try probe(arguments)
        #expect(command.word == "palabra")
        #expect(command.meaning == "word")
    }

    @Test("the word after an option is its value, even when it starts with a dash; after '=' everything is the value")
    func valuesThatLookLikeOptions() throws {
        #expect(try probe(["palabra", "--meaning", "-ish"]).meaning == "-ish")
        #expect(try probe(["palabra", "--meaning", "--json"]).meaning == "--json")
        #expect(try probe(["palabra", "--meaning=a=b"]).meaning == "a=b")
        #expect(try probe(["palabra", "--meaning="]).meaning == "")
    }

    @Test("'--' ends the options: every word after it is positional, even -h")
    func doubleDashEndsOptions() throws {
        #expect(try probe(["--", "-ismo"]).word == "-ismo")
        #expect(try probe(["--", "-h"]).word == "-h")
        let command = try probe(["-m", "word", "--", "--quiet"])
        #expect(command.word == "--quiet")
        #expect(!command.quiet)
        #expect(command.meaning == "word")
        let ids = try #require(try IDsCommand.parse(["--json", "--", "--json", "-x", "--"])).command
        #expect(ids.ids == ["--json", "-x", "--"])
        #expect(ids.json)
    }

    @Test("'-' and negative numbers are positional words, not options")
    func dashAndNegativeNumbers() throws {
        #expect(try probe(["-"]).word == "-")
        #expect(try probe(["-5"]).word == "-5")
        #expect(refusal(["palabra", "--5"]) == "unknown option '--5'")
    }

    @Test("a repeatable option collects every value, in order")
    func repeatableOptionCollects() throws {
        #expect(try probe(["palabra", "-e", "a", "--example", "b", "--example=c"]).examples == ["a", "b", "c"])
    }

    @Test(
        "an option that is not repeatable is refused the second time",
        arguments: [
            ["palabra", "--meaning", "a", "--meaning", "b"], ["palabra", "-m", "a", "--meaning=a"],
        ])
    func optionGivenTwice(arguments: [String]) {
        #expect(refusal(arguments) == "--meaning was given more than once")
    }

    @Test("a flag given twice is simply on")
    func flagGivenTwice() throws {
        #expect(try probe(["palabra", "-q", "--quiet"]).quiet)
    }

    @Test("a later --library replaces an earlier one instead of being refused")
    func libraryLastWins() throws {
        let global = try #require(try ProbeCommand.parse(["--library", "a.sqlite", "palabra", "--library=b.sqlite"])).global
        #expect(global.library == "b.sqlite")
    }

    @Test(
        "a flag refuses a value written after '='", arguments: [("--quiet=yes", "--quiet"), ("--json=1", "--json"), ("--help=1", "--help")])
    func flagWithValue(argument: String, name: String) {
        #expect(refusal(["palabra", argument]) == "\(name) takes no value")
    }

    @Test(
        "an option without its value is refused, naming the value it needs",
        arguments: [
            (["palabra", "--meaning"], "--meaning needs a value (text)"), (["palabra", "-m"], "--meaning needs a value (text)"),
            (["palabra", "--count"], "--count needs a value (n)"), (["palabra", "--library"], "--library needs a value (path)"),
        ])
    func missingValue(arguments: [String], message: String) {
        #expect(refusal(arguments) == message)
    }

    @Test(
        "an unknown option is refused, long or short",
        arguments: [
            ("--flavour", "unknown option '--flavour'"), ("--flavour=mint", "unknown option '--flavour'"),
            ("-x", "unknown option '-x' (an argument that starts with '-' goes after '--', as in: -- -x)"),
            ("-mword", "unknown option '-mword' (an argument that starts with '-' goes after '--', as in: -- -mword)"),
            ("---", "unknown option '---'"),
        ])
    func unknownOption(argument: String, message: String) {
        #expect(refusal(["palabra", argument]) == message)
    }

    @Test(
        "a word of one dash and a colon or a space is an argument (a search leaving a tag out), and a command without arguments gives no hint"
    )
    func dashWordsWithAColonAreArguments() throws {
        #expect(try probe(["-tag:done"]).word == "-tag:done")
        #expect(try probe(["-tag:done perro"]).word == "-tag:done perro")
        #expect(refusal(["-x"], of: ListCommand.self) == "unknown option '-x'")
    }

    @Test(
        "-h and --help ask for help wherever they stand, even with arguments missing or extra",
        arguments: [["-h"], ["--help"], ["palabra", "--meaning", "word", "--help"], ["-h", "one", "two"], ["-q", "--json", "-h"]])
    func helpWins(arguments: [String]) throws {
        #expect(try ProbeCommand.parse(arguments) == nil)
    }

    @Test("an optional argument is nil when left out, and shows in brackets in the usage line")
    func optionalArgument() throws {
        #expect(try #require(try KindCommand.parse(["gdrive"])).command.place == nil)
        #expect(try #require(try KindCommand.parse(["folder", "/tmp/x"])).command.place == "/tmp/x")
        #expect(refusal([], of: KindCommand.self) == "missing argument <kind>")
        #expect(refusal(["a", "b", "c"], of: KindCommand.self) == "unexpected argument 'c'")
        #expect(KindCommand.definition.usage == "midiccio kind <kind> [<place>]")
    }

    @Test("a missing or an extra argument is refused, by name")
    func argumentCount() {
        #expect(refusal([]) == "missing argument <word>")
        #expect(refusal(["-m", "word"]) == "missing argument <word>")
        #expect(refusal(["one", "two"]) == "unexpected argument 'two'")
        #expect(refusal([], of: IDsCommand.self) == "missing argument <id>")
    }

    @Test(
        "a value of the wrong type is refused with the option's name and the value",
        arguments: [
            (["--count", "0"], "--count must be a whole number from 1 to 10, not '0'"),
            (["--count=-3"], "--count must be a whole number from 1 to 10, not '-3'"),
            (["--count", "many"], "--count must be a whole number from 1 to 10, not 'many'"),
            (["--colour", "pink"], "--colour must be red, green or blue, not 'pink'"),
            (["--colour", "RED"], "--colour must be red, green or blue, not 'RED'"),
        ])
    func wrongType(arguments: [String], message: String) {
        #expect(refusal(["palabra"] + arguments) == message)
    }

    @Test("validate() runs after parsing and its mistake is a usage error")
    func validation() {
        #expect(refusal(["palabra", "-q", "--json"]) == "--quiet and --json cannot be used together")
    }

    @Test("global options given before the command's words are read before a '--' in its arguments")
    func globalOptionsBeforeDoubleDash() throws {
        let parsed = try #require(try ProbeCommand.parse(["--library", "other.sqlite", "--", "-ismo"]))
        #expect(parsed.global.library == "other.sqlite")
        #expect(parsed.command.word == "-ismo")
    }

    @Test("help and the usage line come from the declarations")
    func helpFromDeclarations() {
        let definition = ProbeCommand.definition
        let usage =
            "midiccio probe <word> [--meaning <text>] [--example <sentence>] ... [--count <n>] [--colour <red|green|blue>] [--quiet] [--no-duplicates] [--json]"
        #expect(definition.usage == usage)
        #expect(
            definition.helpText() == """
                OVERVIEW: Try the parser.

                Nothing happens.

                USAGE: \(usage)

                ARGUMENTS:
                  <word>                    A word.

                OPTIONS:
                  -m, --meaning <text>      What it means.
                  -e, --example <sentence>  An example. (repeatable)
                  --count <n>               How many.
                  --colour <red|green|blue> A colour.
                  -q, --quiet               Say less.
                  --no-duplicates           Refuse duplicates.
                  --json                    Print it as JSON.
                  --library <path>          The library file (default: $MIDICCIO_LIBRARY, else $XDG_DATA_HOME/midiccio/library.sqlite).
                  -h, --help                Show help information.

                EXAMPLES:
                  midiccio probe palabra -m word

                """)
        #expect(IDsCommand.definition.usage == "midiccio ids <id> ... [--json]")
    }

    @Test("commands parsed on several threads at once each get their own options")
    func parsingOnSeveralThreads() async throws {
        // Declarations are gathered while a command is made (DeclarationCollector): one
        // thread's must never land in another's command.
        let results = try await withThrowingTaskGroup(of: (Int, String?, Int, Bool).self) { group in
            for index in 0..<64 {
                group.addTask {
                    let arguments =
                        ["word\(index)", "-m", "meaning \(index)", "--count", "\(index % 10 + 1)"]
                        + (index.isMultiple(of: 2) ? ["--json"] : [])
                    let command = try #require(try ProbeCommand.parse(arguments)).command
                    return (index, command.meaning, command.count, command.output.json)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 64)
        for (index, meaning, count, json) in results {
            #expect(meaning == "meaning \(index)")
            #expect(count == index % 10 + 1)
            #expect(json == index.isMultiple(of: 2))
        }
    }
}
