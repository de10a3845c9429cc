import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioLibrary
import MiDiccioSync

/// The `midiccio` command-line tool, as a library so tests run it in-process.
public enum Tool {
    /// The version printed by `--version`.
    public static let version = "0.1.0"

    /// The everyday commands on words, in the order help lists them: none goes online
    /// itself, so the `midiccio` binary runs them (`runEveryday`).
    package static let wordCommands: [CommandEntry] = [
        CommandEntry(AddCommand.self), CommandEntry(EditCommand.self), CommandEntry(ShowCommand.self),
        CommandEntry(ListCommand.self), CommandEntry(SearchCommand.self), CommandEntry(TagsCommand.self),
        CommandEntry(DeleteCommand.self), CommandEntry(TrashCommand.self), CommandEntry(RestoreCommand.self),
        CommandEntry(BackupExportCommand.self), CommandEntry(BackupRestoreCommand.self), CommandEntry(BackupUndoCommand.self),
        CommandEntry(ImportCommand.self), CommandEntry(ImportUndoCommand.self), CommandEntry(ExportCommand.self),
    ]

    /// The everyday commands on the Trash and settings, in the order help lists them.
    package static let settingCommands: [CommandEntry] = [
        CommandEntry(PurgeCommand.self), CommandEntry(TrashEmptyCommand.self),
        CommandEntry(ConfigGetCommand.self), CommandEntry(ConfigSetCommand.self), CommandEntry(ConfigListCommand.self),
    ]

    /// The study commands (issue 15), in the order help lists them.
    package static let studyCommands: [CommandEntry] = [
        CommandEntry(StudyCommand.self), CommandEntry(ReviewCommand.self), CommandEntry(DueCommand.self),
        CommandEntry(StatsCommand.self),
    ]

    /// What help says about the tool itself.
    package static let configuration = CommandConfiguration(
        path: [], abstract: "Keep your own word list: words, meanings, readings, examples, notes and tags.",
        discussion: "Your library is one file on this device (see --library). Run 'midiccio help <command>' for details.")

    /// The tool as its help shows it: its own options, then every command.
    package static var definition: CommandDefinition { root().definition }

    /// New root options and the definition that fills them.
    private static func root() -> (options: RootOptions, definition: CommandDefinition) {
        let (root, declared) = DeclarationCollector.declarations { RootOptions() }
        return (root, CommandDefinition(configuration, declared: declared, standard: [.helpRequest], usage: "midiccio <command> [options]"))
    }

    /// Runs the everyday commands and `--version` in this process, and hands anything
    /// else to `midiccio-online` beside this binary (`OnlineSibling`): help, the commands
    /// that go online, and an everyday command whose library syncs with a cloud reached
    /// over the network. Returns the exit code as `run` does.
    public static func runEveryday(
        _ arguments: [String], environment: [String: String] = ProcessEnvironment.current(),
        io: TerminalIO = StandardIO()
    ) -> Int32 {
        run(
            arguments, commands: wordCommands + studyCommands + settingCommands, remotes: .folderOnly, environment: environment, io: io,
            handOff: { OnlineSibling.run($0, io: io) })
    }

    /// Runs the tool with `arguments` (without the program name) and `commands`, and
    /// returns the exit code: 0 success, 1 failure, 64 bad usage.
    ///
    /// With `handOff`, only `--version` and a command of `commands` run here; anything
    /// else (help, another command, a command that needs a remote `remotes` cannot
    /// reach) goes to `handOff` with the arguments unchanged, before any output.
    package static func run(
        _ arguments: [String], commands: [CommandEntry], remotes: RemoteReach, environment: [String: String],
        io: TerminalIO, handOff: (([String]) -> Int32)? = nil
    ) -> Int32 {
        let original = arguments
        let (root, rootDefinition) = root()
        let leading: [String]
        var arguments = arguments
        do {
            guard let count = try readOptionsBeforeCommand(arguments, into: rootDefinition) else {
                if let handOff { return handOff(original) }
                io.write(rootHelp(commands))
                return 0
            }
            leading = Array(arguments.prefix(count))
            arguments.removeFirst(count)
        } catch {
            if let handOff { return handOff(original) }
            return usageFailure(error, definition, io: io)
        }
        if root.version {
            // The formats say more than the number, which every build of this line shares:
            // a person told to update sees whether a build is new enough (round 12A).
            io.write(
                "midiccio \(version) (cloud format \(CloudManifest.currentVersion), library schema \(WordLibrary.schemaVersion), "
                    + "backup format \(BackupFile.version))\n")
            return 0
        }
        var helpRequested = false
        if arguments.first == "help" {
            helpRequested = true
            arguments.removeFirst()
        }
        if let handOff, helpRequested || match(arguments, in: commands) == nil {
            return handOff(original)
        }
        if arguments.isEmpty || arguments == ["-h"] || arguments == ["--help"] {
            io.write(rootHelp(commands))
            return 0
        }
        guard let command = match(arguments, in: commands) else {
            let groups = commands.filter { $0.path.count > 1 && $0.path[0] == arguments[0] }
            if !groups.isEmpty {
                let group = CommandDefinition(
                    CommandConfiguration(path: [arguments[0]], abstract: "Commands for \(arguments[0])."),
                    declared: [
                        ArgumentDefinition(kind: .positional, name: "subcommand", help: "One of the subcommands below.") { _, _ in }
                    ],
                    standard: ArgumentDefinition.standard().definitions)
                if helpRequested || arguments.contains("--help") || arguments.contains("-h") {
                    io.write(group.helpText(subcommands: groups.map(\.configuration)))
                    return 0
                }
                if arguments.count == 1 {
                    let names = groups.map { $0.path.dropFirst().joined(separator: " ") }.joined(separator: ", ")
                    return usageFailure(UsageError("'\(arguments[0])' needs a subcommand: \(names)"), group, io: io)
                }
                return usageFailure(UsageError("unknown command '\(arguments.prefix(2).joined(separator: " "))'"), group, io: io)
            }
            return usageFailure(UsageError("unknown command '\(arguments[0])'"), definition, io: io)
        }
        if helpRequested {
            io.write(command.definition().helpText())
            return 0
        }
        do {
            // Global options given before the command go in front of its own arguments, so
            // a "--" among those cannot make them positional.
            try command.execute(leading + arguments.dropFirst(command.path.count), environment, io, remotes)
            return 0
        } catch is OnlineNeeded {
            guard let handOff else {
                io.writeError("Error: this command needs midiccio-online\n")
                return 1
            }
            return handOff(original)
        } catch let error as UsageError {
            return usageFailure(error, command.definition(), io: io)
        } catch {
            // An error may quote a word (its term): its escape sequences are not run.
            io.writeError("Error: \(String(describing: error).shownSafely)\n")
            return 1
        }
    }

    /// Reads the options given before the command's name (`midiccio --library L add x`) into
    /// the root options `root` defines and returns how many words they took; nil when they
    /// ask for help.
    ///
    /// `--offline` may come first too, as it always could (`midiccio --offline list`), but
    /// only the commands that sync first accept it: the command reads those words again.
    private static func readOptionsBeforeCommand(_ arguments: [String], into root: CommandDefinition) throws(UsageError) -> Int? {
        let options = root.options + DeclarationCollector.declarations { SyncOnOpen() }.1
        var reader = ArgumentReader(options: options)
        let count = try reader.read(arguments, untilPositional: true)
        if reader.helpRequested { return nil }
        for (option, texts) in zip(options, reader.values) { try option.store(texts, option.shownName) }
        return count
    }

    private static func match(_ arguments: [String], in commands: [CommandEntry]) -> CommandEntry? {
        commands.filter { Array(arguments.prefix($0.path.count)) == $0.path }
            .max { $0.path.count < $1.path.count }
    }

    /// Bad usage: the error and the usage line of `definition` on stderr, exit 64.
    private static func usageFailure(_ error: UsageError, _ definition: CommandDefinition, io: TerminalIO) -> Int32 {
        io.writeError("Error: \(error.message)\n" + definition.usageReminder)
        return 64
    }

    /// The tool's help, listing `commands`.
    package static func rootHelp(_ commands: [CommandEntry]) -> String {
        definition.helpText(subcommands: commands.map(\.configuration))
    }
}

/// What `midiccio` itself accepts before a command's name.
struct RootOptions: ParsableArguments {
    @OptionGroup package var global: GlobalOptions
    /// True when --version was given.
    @Flag(name: "version", help: "Show the version.") package var version = false
}

/// One command as the tool lists, explains and runs it. (A struct of closures rather
/// than an array of `any ParsableCommand.Type`: calling an initialiser through that
/// existential crashes the Swift 6.3 compiler.)
package struct CommandEntry: Sendable {
    /// Its words and help text.
    package let configuration: CommandConfiguration
    /// Its declarations, for help and the usage line.
    package let definition: @Sendable () -> CommandDefinition
    /// Parses what follows the command's words (global options first), then prints help,
    /// or validates and runs the command.
    package let execute:
        @Sendable (_ arguments: [String], _ environment: [String: String], _ io: TerminalIO, _ remotes: RemoteReach) throws ->
            Void

    /// The words that select it.
    package var path: [String] { configuration.path }

    package init<Command: ParsableCommand>(_ type: Command.Type) {
        configuration = Command.configuration
        definition = { Command.definition }
        execute = { arguments, environment, io, remotes in
            guard let (command, global) = try Command.parse(arguments) else {
                io.write(Command.definition.helpText())
                return
            }
            // The parser has checked the arguments; `--json` among them asks for output for
            // scripts, so no progress line even before the command reads its own options.
            let context = ToolContext(
                global: global, environment: environment, io: io, remotes: remotes, json: arguments.contains("--json"))
            try command.run(context)
            context.noteIfFileReplaced()
        }
    }
}

/// A failure a command explains in its own words: printed as "Error: ..." with exit 1.
package struct ToolFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// What a running command may use: the global options, the environment, output, the library.
package final class ToolContext {
    /// The options every command accepts (`--library`).
    package let global: GlobalOptions
    /// The process environment (or the one a test gives).
    package let environment: [String: String]
    /// Where output goes.
    package let io: TerminalIO
    /// The remotes this binary can sync with itself.
    package let remotes: RemoteReach
    /// True when the command line asked for `--json`: no progress line then.
    package let json: Bool
    private var openLibrary: WordLibrary?
    /// How many words the Trash's clean-up deleted as the library was opened (a library
    /// that does not sync): `serve` hands them to the web app, whose page says so.
    package private(set) var purgedAtOpen = 0
    /// Why `library()` could not open it, once it failed.
    private var openFailure: Error?
    /// True once the warning about a library inside a synced folder was given.
    private var warnedOfSyncedFolder = false

    package init(global: GlobalOptions, environment: [String: String], io: TerminalIO, remotes: RemoteReach, json: Bool = false) {
        self.global = global
        self.json = json
        self.environment = environment
        self.io = io
        self.remotes = remotes
    }

    /// The library path: --library, else MIDICCIO_LIBRARY, else the XDG data folder.
    package var libraryPath: String {
        if let path = global.library { return path }
        if let path = environment["MIDICCIO_LIBRARY"], !path.isEmpty { return path }
        let dataHome =
            environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/share"
        return dataHome + "/midiccio/library.sqlite"
    }

    /// Closes the library `library()` opened, if no one else holds it: `serve` checks the
    /// library at start, then leaves the file to the web app's own connections, which
    /// close while the app sits idle.
    package func closeLibrary() {
        openLibrary = nil
        openFailure = nil
    }

    /// Says so when the library file this command opened is no longer the one at its path
    /// (another file moved into its place, or the file moved away or deleted, after the
    /// command's last write): what it did and showed was the file that was there. An import
    /// said "Imported 60000 words" and the words were in a file replaced a moment later
    /// (round 21B #5).
    package func noteIfFileReplaced() {
        guard let openLibrary, openLibrary.database.fileMovedAway else { return }
        let gone = FileSystem.identity(libraryPath) == nil
        let what = gone ? "moved away or deleted" : "replaced (another file was moved into its place)"
        let now = gone ? "any file there now" : "the one there now"
        io.writeError(
            "Note: the library file \(libraryPath) was \(what) while this command ran: what it did went into the file "
                + "that was there before, not into \(now).\n")
    }

    /// The library, opened (and created) on first use.
    package func library() throws -> WordLibrary {
        if let openLibrary { return openLibrary }
        // The first failure again: a second open of a library whose update stopped halfway
        // found it up to date and told only the last step's error, "nothing was changed"
        // (round 15A).
        if let openFailure { throw openFailure }
        do {
            return try openingLibrary()
        } catch {
            openFailure = error
            throw error
        }
    }

    /// Opens the library for `library()`.
    private func openingLibrary() throws -> WordLibrary {
        warnIfInSyncedFolder()
        // Opening a library keyed by another ICU computes every term's keys again, once:
        // about a second per 100,000 words, shown like an import's progress. A library of
        // an earlier MiDiccio is brought up to date once, which can build a whole index.
        let progress = progressLine(json: json)
        defer { progress.finish() }
        let started = MonotonicClock().now().milliseconds
        let library = try WordLibrary(
            path: libraryPath, environment: environment,
            keyProgress: { done, total in
                progress.show("Updating the sort order of terms for this system: \(ProgressLine.count(done, of: total))")
            },
            upgradeProgress: {
                progress.show(ProgressLine.upgrading(seconds: (MonotonicClock().now().milliseconds - started) / 1_000))
            })
        progress.finish()
        openLibrary = library
        if library.isNew { noteNewLibrary() }
        if let from = library.upgradedFrom { noteUpgrade(from: from) }
        warnOfConflictCopies(library)
        // trash.autoPurgeDays applies to libraries that never sync too; one that syncs
        // purges inside its sync, after the pull. With the setting off (the default) this
        // is one small query.
        let purged = try library.autoPurgeUnlessSyncing()
        purgedAtOpen += purged
        if purged > 0 && !json { note(Self.autoPurgedNote(purged, byCloudsClock: false)) }
        return library
    }

    /// What a sync says to a person beside its counts, a note each, in order: words purged
    /// elsewhere or changed later elsewhere, a cloud started or found started again, clocks
    /// ahead, a device put back, a new device id. `midiccio sync` says them, and so does
    /// every command that syncs first (`SyncOnOpen`): a `list` run first after a mistyped
    /// `remote set folder` started an empty cloud there and said nothing of it, and no
    /// later sync did either (found by the exploratory helper, round 11).
    package static func syncNotes(_ report: SyncReport, cloud: String) -> [String] {
        var notes: [String] = []
        if let note = report.purgeNote { notes.append(note.shownSafely) }
        if let note = report.overriddenNote { notes.append(note.shownSafely) }
        if report.startedCloud {
            notes.append(
                "There was no MiDiccio data in \(cloud), so this sync started it there. If your other devices sync elsewhere, check the path (midiccio remote show)."
            )
        }
        notes += report.cloudNotes(cloud: cloud)
        if report.autoPurged > 0 { notes.append(autoPurgedNote(report.autoPurged, byCloudsClock: report.aheadOfCloud != nil)) }
        if let note = report.autoPurgeWaitsNote { notes.append("Note: \(note.shownSafely).") }
        if let note = report.autoPurgeWaitsElsewhereNote { notes.append("Note: \(note.shownSafely).") }
        if let note = report.autoPurgeDaysRestartedNote { notes.append("Note: \(note).") }
        if let clock = report.clockAhead { notes.append("warning: \(clock.message.shownSafely.oneLine)") }
        if let note = report.aheadOfCloudNote { notes.append("warning: \(note)") }
        if let note = report.putBackNote { notes.append("Note: \(note).") }
        if let identity = report.newIdentity {
            notes.append(identity.message + " Give it a name of its own with 'midiccio remote set ... --device-name NAME'.")
        }
        return notes
    }

    /// What a purge by `trash.autoPurgeDays` did, said where it happens: it cannot be
    /// undone, and a clock set far ahead can set it off.
    package static func autoPurgedNote(_ count: Int, byCloudsClock: Bool) -> String {
        WordLibrary.autoPurgedNote(
            count, byCloudsClock: byCloudsClock, howToStop: "'midiccio config set trash.autoPurgeDays off' stops it")
    }

    /// Says where a library was just made, to a person at a terminal: a mistyped
    /// `--library` otherwise starts a second, empty word list without a word said, and
    /// the words added to it seem lost from the first. Not with `--json`, as a progress
    /// line is not.
    private func noteNewLibrary() {
        guard io.errorIsTerminal, !json else { return }
        note(
            "Started a new, empty library at \(libraryPath) (there was none). "
                + "If your words are in another file, give it with --library or MIDICCIO_LIBRARY.")
    }

    /// Says, on a terminal, that this open brought a library made by an earlier MiDiccio up
    /// to date (from schema `from`): a one-way step that was silent, so a person learnt of it
    /// only when an older build on another computer or a `serve` left running refused the
    /// file (found by the exploratory helper, round 15A).
    private func noteUpgrade(from: Int) {
        guard io.errorIsTerminal, !json else { return }
        note(
            "Brought this library, made by an earlier MiDiccio (library schema \(from)), up to date for this one "
                + "(schema \(WordLibrary.schemaVersion)). Older MiDiccio builds cannot open it any more; "
                + "'midiccio backup export FILE' makes a backup (format 2) that older builds reading that format can restore.")
    }

    /// Warns, once, when the library file is inside a folder a sync program copies
    /// (`SyncedFolder`): it can damage the library or set one computer's words aside as a
    /// conflict. MIDICCIO_SYNCED_FOLDER_OK=1 silences it.
    private func warnIfInSyncedFolder() {
        guard !warnedOfSyncedFolder else { return }
        warnedOfSyncedFolder = true
        guard environment["MIDICCIO_SYNCED_FOLDER_OK"] != "1", let folder = SyncedFolder.holding(libraryPath, environment: environment)
        else { return }
        note(
            """
            Warning: the library \(libraryPath) is inside a folder that \(folder.program) syncs (\(folder.root)). \
            \(folder.program) copies the file while MiDiccio writes it, which can damage the library on another \
            computer, and words written on two computers end up in two files, one of them overwritten or set aside as a conflict. \
            Keep the library outside that folder and sync through it instead: \
            midiccio remote set folder '\(folder.root)/MiDiccio' (README, "A library inside a synced folder"; \
            MIDICCIO_SYNCED_FOLDER_OK=1 hides this warning).
            """)
    }

    /// Warns, on every command, of each conflict copy a sync program set aside beside the
    /// library (`ConflictCopies`): the words written in it are in no library MiDiccio
    /// opens, and nothing else tells the person. The warning names the command that takes
    /// them in, and lasts until they are taken in (`WordLibrary.conflictCopiesNotTakenIn`)
    /// or the file is moved away.
    private func warnOfConflictCopies(_ library: WordLibrary) {
        // The command names the library when --library chose it (MIDICCIO_LIBRARY, set in
        // the shell, chooses it for the next command too).
        let option = global.library.map { "--library \(Self.shellQuoted($0)) " } ?? ""
        for copy in library.conflictCopiesNotTakenIn() {
            note(
                "Warning: beside the library is a conflict copy of it that a sync program set aside: \(copy). "
                    + "Words written in it are not in this library. Take them in with: midiccio \(option)backup restore "
                    + "\(Self.shellQuoted(copy)) (the newer of each field wins; this warning then ends, and the file can be "
                    + "moved away) (README, \"A library inside a synced folder\").")
        }
    }

    /// `text` as one word for a POSIX shell, to paste into a command: in single quotes,
    /// each of its own as '\'' (Dropbox names a conflict copy "… (Ana's conflicted copy …)").
    package static func shellQuoted(_ text: String) -> String { FileSystem.shellQuoted(text) }

    /// Prints words for people or as JSON.
    package var printer: WordPrinter {
        // no-color.org: NO_COLOR counts when present and not empty.
        WordPrinter(colour: io.outputIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb")
    }

    /// Prints a note for people on stderr (never mixed into --json output).
    package func note(_ text: String) { io.writeError(text.shownSafely + "\n") }
}
