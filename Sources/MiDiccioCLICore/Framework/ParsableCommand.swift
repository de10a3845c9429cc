/// Options and arguments declared as properties with `@Option`, `@Flag`, `@Argument` and
/// `@OptionGroup`: a command, or a group of options several commands share.
///
/// The framework gathers the declarations as a fresh instance is made (hence `init()`,
/// which Swift writes when every property has its declaration; `DeclarationCollector`),
/// derives help, the usage line and parsing from them, and fills that same instance's
/// properties.
package protocol ParsableArguments {
    /// An instance with every property at its declared default.
    init()
}

/// One subcommand: what it is (`configuration`), what it accepts (its properties), the
/// rules between its options (`validate()`), then the work (`run(_:)`).
package protocol ParsableCommand: ParsableArguments, SendableMetatype {
    /// The words that select it and the text of its help.
    static var configuration: CommandConfiguration { get }
    /// Checks rules that involve several options or arguments, after parsing and before
    /// anything is opened.
    func validate() throws(UsageError)
    /// Does the work.
    func run(_ context: ToolContext) throws
}

extension ParsableCommand {
    package func validate() throws(UsageError) {}

    /// The command as help and the parser see it.
    package static var definition: CommandDefinition { made().definition }

    /// Parses what follows the command's words (global options given before them come
    /// first) into a validated command; nil when help was asked for.
    package static func parse(_ arguments: [String]) throws(UsageError) -> (command: Self, global: GlobalOptions)? {
        let (command, global, definition) = made()
        guard try definition.parse(arguments) else { return nil }
        try command.validate()
        return (command, global)
    }

    /// A new command and new global options at their defaults, and the definition that fills them.
    private static func made() -> (command: Self, global: GlobalOptions, definition: CommandDefinition) {
        let (command, declared) = DeclarationCollector.declarations { Self() }
        let (global, standard) = ArgumentDefinition.standard()
        return (command, global, CommandDefinition(configuration, declared: declared, standard: standard))
    }
}

/// What a command is, beyond what it accepts: the words that select it and its help.
package struct CommandConfiguration: Sendable {
    /// The words that select it, e.g. `["backup", "restore"]`; empty for the tool itself.
    package var path: [String]
    /// One-line summary: the OVERVIEW of its help and its line among the subcommands.
    package var abstract: String
    /// More detail, shown after the overview.
    package var discussion = ""
    /// Example invocations shown under EXAMPLES.
    package var examples: [String] = []

    /// A command's words and help text.
    package init(path: [String], abstract: String, discussion: String = "", examples: [String] = []) {
        self.path = path
        self.abstract = abstract
        self.discussion = discussion
        self.examples = examples
    }
}

/// A mistake in how the tool was called: "Error: ..." then the usage line of the command
/// at fault on stderr, exit 64. The message names the option or argument and what was
/// given.
package struct UsageError: Error, CustomStringConvertible {
    /// What was wrong.
    package var message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
