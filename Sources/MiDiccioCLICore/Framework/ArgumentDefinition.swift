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
    /// The long name without dashes, or the positional's name; empty until the property's
    /// label names it.
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

    /// The definition, named after the property `label` unless it has a name already.
    package func named(_ label: String) -> ArgumentDefinition {
        guard name.isEmpty else { return self }
        var named = self
        // Swift's property names are camelCase, options are kebab-case: noDuplicates, --no-duplicates.
        named.name = label.reduce(into: "") { name, character in
            if character.isUppercase { name += "-" + character.lowercased() } else { name.append(character) }
        }
        return named
    }

    /// `-h`, `--help`, which every command accepts.
    package static var helpRequest: ArgumentDefinition {
        ArgumentDefinition(kind: .help, name: "help", short: "h", help: "Show help information.") { _, _ in }
    }

    /// What every command accepts besides its own declarations: `global`'s options and help.
    package static func standard(_ global: GlobalOptions) -> [ArgumentDefinition] {
        declared(by: global) + [helpRequest]
    }

    /// Every declaration of `arguments`, in the order its properties are written.
    package static func declared(by arguments: some ParsableArguments) -> [ArgumentDefinition] {
        Mirror(reflecting: arguments).children.flatMap { child -> [ArgumentDefinition] in
            guard let declaration = child.value as? any Declaration, let label = child.label else { return [] }
            // The storage of a wrapped property `noDuplicates` is `_noDuplicates`.
            return declaration.definitions(label: label.hasPrefix("_") ? String(label.dropFirst()) : label)
        }
    }
}
