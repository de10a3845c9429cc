import Foundation
import MiDiccioKit

/// The `midiccio` command-line tool, as a library so tests run it in-process.
public enum Tool {
    /// The version printed by `--version`.
    public static let version = "0.1.0"

    /// Every command, in the order help lists them.
    static let commands: [CommandEntry] = [
        CommandEntry(AddCommand.self), CommandEntry(EditCommand.self), CommandEntry(ShowCommand.self),
        CommandEntry(ListCommand.self), CommandEntry(SearchCommand.self), CommandEntry(TagsCommand.self),
        CommandEntry(DeleteCommand.self), CommandEntry(TrashCommand.self), CommandEntry(RestoreCommand.self),
        CommandEntry(BackupExportCommand.self), CommandEntry(BackupRestoreCommand.self), CommandEntry(BackupUndoCommand.self),
        CommandEntry(ImportCommand.self), CommandEntry(ExportCommand.self),
        CommandEntry(RemoteSetCommand.self), CommandEntry(RemoteShowCommand.self), CommandEntry(RemoteRemoveCommand.self),
        CommandEntry(SyncCommand.self), CommandEntry(StatusCommand.self),
        CommandEntry(PurgeCommand.self), CommandEntry(TrashEmptyCommand.self),
        CommandEntry(ConfigGetCommand.self), CommandEntry(ConfigSetCommand.self), CommandEntry(ConfigListCommand.self),
        CommandEntry(ServeCommand.self),
    ]

    static let rootSpec = CommandSpec(
        path: [], abstract: "Keep your own word list: words, meanings, readings, examples, notes and tags.",
        discussion: "Your library is one file on this device (see --library). Run 'midiccio help <command>' for details.",
        options: [OptionSpec(name: "version", help: "Show the version.")])

    /// Runs the tool with `arguments` (without the program name) and returns the exit
    /// code: 0 success, 1 failure, 64 bad usage.
    public static func run(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
                           io: TerminalIO = StandardIO()) -> Int32 {
        var arguments = arguments
        // Global options may come before the command. They are handed to the command in
        // front of its own arguments, so a "--" among those cannot turn them into positionals.
        var global: [String] = []
        while let first = arguments.first, first.hasPrefix("--library") || first == "--offline" {
            arguments.removeFirst()
            global.append(first)
            if first == "--library", let value = arguments.first {
                global.append(value)
                arguments.removeFirst()
            }
        }
        if arguments.first == "--version" {
            io.write("midiccio \(version)\n")
            return 0
        }
        var helpRequested = false
        if arguments.first == "help" {
            helpRequested = true
            arguments.removeFirst()
        }
        if arguments.isEmpty || arguments == ["-h"] || arguments == ["--help"] {
            io.write(rootHelp())
            return 0
        }
        guard let command = match(arguments) else {
            let groups = commands.filter { $0.spec.path.count > 1 && $0.spec.path[0] == arguments[0] }
            if !groups.isEmpty {
                let group = CommandSpec(path: [arguments[0]], abstract: "Commands for \(arguments[0]).",
                                        arguments: [ArgumentSpec(name: "subcommand", help: "One of the subcommands below.")])
                if helpRequested || arguments.contains("--help") || arguments.contains("-h") {
                    io.write(group.helpText(subcommands: groups.map(\.spec)))
                    return 0
                }
                if arguments.count == 1 {
                    let names = groups.map { $0.spec.path.dropFirst().joined(separator: " ") }.joined(separator: ", ")
                    return usageFailure(UsageError(message: "'\(arguments[0])' needs a subcommand: \(names)", spec: group), io: io)
                }
                return usageFailure(UsageError(message: "unknown command '\(arguments.prefix(2).joined(separator: " "))'", spec: group), io: io)
            }
            return usageFailure(UsageError(message: "unknown command '\(arguments[0])'", spec: rootSpec), io: io)
        }
        let spec = command.spec
        let rest = global + Array(arguments.dropFirst(spec.path.count))
        if helpRequested {
            io.write(spec.helpText())
            return 0
        }
        do {
            let parsed = try spec.parse(rest)
            if parsed.flag("help") {
                io.write(spec.helpText())
                return 0
            }
            let context = ToolContext(arguments: parsed, environment: environment, io: io)
            try command.execute(context)
            return 0
        } catch let error as UsageError {
            return usageFailure(error, io: io)
        } catch {
            io.writeError("Error: \(error)\n")
            return 1
        }
    }

    private static func match(_ arguments: [String]) -> CommandEntry? {
        commands.filter { Array(arguments.prefix($0.spec.path.count)) == $0.spec.path }
            .max { $0.spec.path.count < $1.spec.path.count }
    }

    private static func usageFailure(_ error: UsageError, io: TerminalIO) -> Int32 {
        io.writeError("Error: \(error.message)\n")
        if let spec = error.spec {
            let usage = spec.path.isEmpty ? "midiccio <command> [options]" : spec.usage
            let help = spec.path.isEmpty ? "midiccio --help" : "midiccio help \(spec.path.joined(separator: " "))"
            io.writeError("Usage: \(usage)\n  See '\(help)'.\n")
        }
        return 64
    }

    static func rootHelp() -> String {
        var text = "OVERVIEW: \(rootSpec.abstract)\n\n\(rootSpec.discussion)\n\nUSAGE: midiccio <command> [options]\n\nOPTIONS:\n"
        text += "  --library <path>          The library file (default: $MIDICCIO_LIBRARY, else $XDG_DATA_HOME/midiccio/library.sqlite).\n"
        text += "  --version                 Show the version.\n  -h, --help                Show help information.\n\nSUBCOMMANDS:\n"
        for command in commands {
            let name = command.spec.path.joined(separator: " ")
            text += "  " + name + String(repeating: " ", count: max(2, 26 - name.count)) + command.spec.abstract + "\n"
        }
        return text
    }
}

/// A command's spec and how to run it. (A struct of closures rather than an array of
/// `any ToolCommand.Type`: calling an initialiser through that existential crashes the
/// Swift 6.3 compiler.)
struct CommandEntry: Sendable {
    /// What the command accepts.
    let spec: CommandSpec
    /// Validates the arguments, then runs the command.
    let execute: @Sendable (ToolContext) throws -> Void

    init<Command: ToolCommand>(_ type: Command.Type) {
        spec = Command.spec
        execute = { context in try Command(context.arguments).run(context) }
    }
}

/// A failure a command explains in its own words: printed as "Error: ..." with exit 1.
struct ToolFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One subcommand: its spec, a validating initialiser and `run`.
protocol ToolCommand: SendableMetatype {
    /// What it accepts and its help.
    static var spec: CommandSpec { get }
    /// Checks the arguments (throwing `UsageError`) before anything is opened.
    init(_ arguments: ParsedArguments) throws
    /// Does the work.
    func run(_ context: ToolContext) throws
}

/// What a running command may use: its arguments, the environment, output, the library.
final class ToolContext {
    let arguments: ParsedArguments
    let environment: [String: String]
    let io: TerminalIO
    private var openLibrary: WordLibrary?

    init(arguments: ParsedArguments, environment: [String: String], io: TerminalIO) {
        self.arguments = arguments
        self.environment = environment
        self.io = io
    }

    /// The library path: --library, else MIDICCIO_LIBRARY, else the XDG data folder.
    var libraryPath: String {
        if let path = arguments.value("library") { return path }
        if let path = environment["MIDICCIO_LIBRARY"], !path.isEmpty { return path }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return dataHome + "/midiccio/library.sqlite"
    }

    /// The library, opened (and created) on first use.
    func library() throws -> WordLibrary {
        if let openLibrary { return openLibrary }
        let library = try WordLibrary(path: libraryPath, environment: environment)
        openLibrary = library
        // trash.autoPurgeDays applies to libraries that never sync too; with the setting
        // off (the default) this is one small query.
        try library.autoPurge()
        return library
    }

    /// True when --json was given.
    var json: Bool { arguments.flag("json") }

    /// Prints words for people or as JSON.
    var printer: WordPrinter {
        // no-color.org: NO_COLOR counts when present and not empty.
        WordPrinter(colour: io.outputIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb")
    }

    /// Prints a note for people on stderr (never mixed into --json output).
    func note(_ text: String) { io.writeError(text + "\n") }
}
