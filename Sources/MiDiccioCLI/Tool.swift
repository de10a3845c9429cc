import Foundation
@_exported import MiDiccioCLICore
import MiDiccioKit

extension Tool {
    /// Every command, in the order help lists them: the everyday ones and those that go
    /// online (`midiccio-online` runs them all).
    static let commands: [CommandEntry] =
        wordCommands + studyCommands + [
            CommandEntry(RemoteSetCommand.self), CommandEntry(RemoteShowCommand.self), CommandEntry(RemoteRemoveCommand.self),
            CommandEntry(SyncCommand.self), CommandEntry(StatusCommand.self),
        ] + settingCommands + [CommandEntry(ServeCommand.self)]

    /// Runs the tool with `arguments` (without the program name), every command in this
    /// process, and returns the exit code: 0 success, 1 failure, 64 bad usage.
    public static func run(
        _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        io: TerminalIO = StandardIO()
    ) -> Int32 {
        run(
            arguments, commands: commands,
            remotes: .every { remote, libraryPath, environment, timeout in
                remote.makeStorage(libraryPath: libraryPath, environment: environment, timeout: timeout)
            },
            environment: environment, io: io)
    }

    /// The tool's help, listing every command.
    static func rootHelp() -> String { rootHelp(commands) }
}
