/// Options every command accepts, also before its name: `midiccio --library L add x`.
package struct GlobalOptions: ParsableArguments {
    /// The library file given on the command line; `ToolContext.libraryPath` falls back
    /// to the environment. A later --library replaces an earlier one (a wrapper script's)
    /// rather than being refused.
    @Option(
        name: "library", valueName: "path",
        help: "The library file (default: $MIDICCIO_LIBRARY, else $XDG_DATA_HOME/midiccio/library.sqlite).",
        lastWins: true)
    package var library: String?

    /// No library given.
    package init() {}
}

/// `--json`: output for scripts instead of people, declared once for every command that
/// prints something a script may want to read.
package struct OutputOptions: ParsableArguments {
    /// True when --json was given.
    @Flag package var json: Bool

    /// `--json` with the usual help.
    package init() { self.init(help: "Print the result as JSON.") }

    /// `--json` with help saying what the JSON holds ("Print the counts as JSON.").
    package init(help: String) { _json = Flag(wrappedValue: false, name: "json", help: help) }
}

extension OutputOptions {
    /// `--json` for commands that print words.
    package static var words: OutputOptions { OutputOptions(help: "Print the words as a JSON array.") }
    /// `--json` for commands that report how many words they changed.
    package static var counts: OutputOptions { OutputOptions(help: "Print the counts as JSON.") }
}
