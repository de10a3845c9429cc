/// Options every command accepts, also before its name: `midiccio --library L add x`.
struct GlobalOptions: ParsableArguments {
    /// The library file given on the command line; `ToolContext.libraryPath` falls back
    /// to the environment. A later --library replaces an earlier one (a wrapper script's)
    /// rather than being refused.
    @Option(
        valueName: "path", help: "The library file (default: $MIDICCIO_LIBRARY, else $XDG_DATA_HOME/midiccio/library.sqlite).",
        lastWins: true)
    var library: String?
}

/// `--json`: output for scripts instead of people, declared once for every command that
/// prints something a script may want to read.
struct OutputOptions: ParsableArguments {
    /// True when --json was given.
    @Flag var json: Bool

    /// `--json` with the usual help.
    init() { self.init(help: "Print the result as JSON.") }

    /// `--json` with help saying what the JSON holds ("Print the counts as JSON.").
    init(help: String) { _json = Flag(wrappedValue: false, help: help) }
}

extension OutputOptions {
    /// `--json` for commands that print words.
    static var words: OutputOptions { OutputOptions(help: "Print the words as a JSON array.") }
    /// `--json` for commands that report how many words they changed.
    static var counts: OutputOptions { OutputOptions(help: "Print the counts as JSON.") }
}
