/// One option, flag or positional argument as a property wrapper declares it: what help
/// shows, how the parser finds it, and where its value goes.
package struct ArgumentDefinition {
    /// How it is written on the command line.
    package enum Kind {
        /// `--name <value>`.
        case option
        /// `--name`.
        case flag
        /// `<name>`, by position.
        case positional
        /// `-h`, `--help`: the framework's own flag, answered with help instead of a run.
        case help
    }

    /// How it is written.
    package var kind: Kind
    /// The long name without dashes (kebab-case: `no-duplicates`), or the positional's name.
    package var name: String
    /// An optional one-letter alias (`-m`).
    package var short: Character? = nil
    /// The placeholder for an option's value (`<text>`); nil: the name.
    package var valueName: String? = nil
    /// One line of help.
    package var help: String
    /// True when it may be given several times (an option) or take the remaining words (an argument).
    package var repeating = false
    /// True when giving the option again replaces the earlier value instead of being refused.
    package var lastWins = false
    /// True for an argument that may be left out (only the last arguments may be).
    package var optional = false
    /// Converts the texts given for it (one empty text per time a flag is given) and stores
    /// the value in its property; `shownName` names it in errors.
    package var store: (_ texts: [String], _ shownName: String) throws(UsageError) -> Void

    /// How errors and help name it: `--name` or `<name>`.
    package var shownName: String { kind == .positional ? "<\(name)>" : "--\(name)" }

    /// `-h`, `--help`, which every command accepts.
    package static var helpRequest: ArgumentDefinition {
        ArgumentDefinition(kind: .help, name: "help", short: "h", help: "Show help information.") { _, _ in }
    }

    /// What every command accepts besides its own declarations: new global options, with
    /// their definitions followed by help's.
    package static func standard() -> (global: GlobalOptions, definitions: [ArgumentDefinition]) {
        let (global, definitions) = DeclarationCollector.declarations { GlobalOptions() }
        return (global, definitions + [helpRequest])
    }
}
