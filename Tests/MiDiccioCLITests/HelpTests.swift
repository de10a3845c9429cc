import Foundation
import Testing

@testable import MiDiccioCLI
@testable import MiDiccioCLICore

@Suite("Help and version")
final class HelpTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    /// Every command the tool has, so a new command is covered without editing this list.
    static let commands: [[String]] = Tool.commands.map(\.path)

    @Test("-h, --help and 'midiccio help <command>' print the same help for every command", arguments: commands)
    func threeWaysToAskForHelp(command: [String]) {
        let short = sandbox.run(command + ["-h"])
        let long = sandbox.run(command + ["--help"])
        let viaHelp = sandbox.run(["help"] + command)

        for result in [short, long, viaHelp] {
            #expect(result.status == 0)
            #expect(result.errorOutput.isEmpty)
        }
        #expect(!short.output.isEmpty)
        #expect(short.output == long.output)
        #expect(short.output == viaHelp.output)
    }

    @Test("a command's help has OVERVIEW, USAGE and OPTIONS sections, in that order", arguments: commands)
    func helpSections(command: [String]) throws {
        let help = sandbox.run(["help"] + command).output
        let overview = try #require(help.range(of: "OVERVIEW: "))
        let usage = try #require(help.range(of: "USAGE: midiccio " + command.joined(separator: " ")))
        let options = try #require(help.range(of: "\nOPTIONS:\n"))
        #expect(overview.lowerBound == help.startIndex)
        #expect(overview.upperBound <= usage.lowerBound)
        #expect(usage.upperBound <= options.lowerBound)
        #expect(help.contains("-h, --help"))
        #expect(help.contains("--library <path>"))
    }

    @Test(
        "a command that takes arguments describes them under ARGUMENTS",
        arguments: [
            (["add"], "<term>"), (["show"], "<id>"), (["delete"], "<id>"), (["search"], "<query>"),
            (["backup", "restore"], "<file>"), (["import"], "<file>"),
        ])
    func argumentsSection(command: [String], argument: String) throws {
        let help = sandbox.run(["help"] + command).output
        let section = try #require(help.range(of: "\nARGUMENTS:\n"))
        #expect(help[section.upperBound...].contains(argument))
    }

    @Test("help after other arguments still shows help and does not run the command")
    func helpWinsOverArguments() {
        let result = sandbox.run("add", "palabra", "--meaning", "word", "--help")
        #expect(result.status == 0)
        #expect(result.output == sandbox.run("help", "add").output)
        #expect(!sandbox.exists(sandbox.libraryPath))
    }

    @Test("asking for help never creates a library")
    func helpCreatesNoLibrary() {
        sandbox.run("help", "list")
        sandbox.run("list", "-h")
        sandbox.run("--help")
        #expect(!sandbox.exists(sandbox.libraryPath))
    }

    @Test(
        "midiccio with no arguments, -h, --help and 'help' print the same overview of every command",
        arguments: [["-h"], ["--help"], ["help"]])
    func rootHelp(arguments: [String]) {
        let bare = sandbox.run([])
        let asked = sandbox.run(arguments)
        #expect(bare.status == 0)
        #expect(asked.status == 0)
        #expect(asked.output == bare.output)
        for section in ["OVERVIEW: ", "USAGE: midiccio", "OPTIONS:", "--version", "SUBCOMMANDS:"] {
            #expect(bare.output.contains(section), "missing \(section)")
        }
        for command in Self.commands {
            #expect(bare.output.contains("  " + command.joined(separator: " ") + " "), "\(command) not listed")
        }
    }

    @Test("--version prints the tool's name, a version number, and the cloud, library and backup formats it writes")
    func version() throws {
        let result = sandbox.run("--version")
        #expect(result.status == 0)
        #expect(result.errorOutput.isEmpty)
        let pattern = try Regex(#"^midiccio \d+\.\d+\.\d+ \(cloud format \d+, library schema \d+, backup format \d+\)\n$"#)
        #expect(result.output.wholeMatch(of: pattern) != nil, "got \(result.output)")
    }

    @Test(
        "backup help lists its export, restore and undo subcommands, whichever way it is asked for",
        arguments: [["help", "backup"], ["backup", "-h"], ["backup", "--help"]])
    func backupGroupHelp(arguments: [String]) throws {
        let result = sandbox.run(arguments)
        #expect(result.status == 0)
        #expect(result.errorOutput.isEmpty)
        #expect(result.output == sandbox.run("help", "backup").output)
        #expect(result.output.hasPrefix("OVERVIEW: "))
        #expect(result.output.contains("USAGE: midiccio backup"))
        let section = try #require(result.output.range(of: "\nSUBCOMMANDS:\n"))
        let subcommands = result.output[section.upperBound...]
        for name in ["export", "restore", "undo"] {
            #expect(subcommands.contains("  \(name) "), "\(name) not listed")
        }
    }

    @Test("help for an unknown command is a usage error")
    func helpForUnknownCommand() {
        let result = sandbox.run("help", "frobnicate")
        #expect(result.status == 64)
        #expect(result.output.isEmpty)
        #expect(result.errorOutput.hasPrefix("Error: "))
    }
}
