/// A command as help and the parser see it: its configuration, its own declarations in
/// the order they are written, then what every command accepts (`--library`, `-h`).
package struct CommandDefinition {
    /// Its words and help text.
    package let configuration: CommandConfiguration
    /// Its own options and arguments.
    package let declared: [ArgumentDefinition]
    /// Options every command accepts; help lists them after the command's own, and the
    /// usage line leaves them out.
    package let standard: [ArgumentDefinition]
    private let fixedUsage: String?

    /// `usage` replaces the usage line made from the declarations (the tool's own
    /// `midiccio <command> [options]`).
    package init(
        _ configuration: CommandConfiguration, declared: [ArgumentDefinition], standard: [ArgumentDefinition],
        usage: String? = nil
    ) {
        let names = (declared + standard).map(\.name)
        precondition(Set(names).count == names.count, "\(configuration.path): two declarations share a name in \(names)")
        let arguments = declared.filter { $0.kind == .positional }
        precondition(
            !arguments.dropLast().contains(where: \.repeating), "\(configuration.path): only the last argument may take the remaining words"
        )
        precondition(
            !zip(arguments, arguments.dropFirst()).contains { $0.optional && !$1.optional },
            "\(configuration.path): only optional arguments may follow an optional one")
        self.configuration = configuration
        self.declared = declared
        self.standard = standard
        fixedUsage = usage
    }

    private var positionals: [ArgumentDefinition] { declared.filter { $0.kind == .positional } }
    /// Its options, flags and help, the command's own first.
    package var options: [ArgumentDefinition] { (declared + standard).filter { $0.kind != .positional } }

    // MARK: - Help

    /// The usage line: `midiccio add <term> [--meaning <text>] ...`.
    package var usage: String {
        if let fixedUsage { return fixedUsage }
        let arguments = positionals.map { $0.optional ? "[<\($0.name)>]" : "<\($0.name)>" + ($0.repeating ? " ..." : "") }
        let options = declared.filter { $0.kind != .positional }.map { "[\($0.written)]" + ($0.repeating ? " ..." : "") }
        return (["midiccio"] + configuration.path + arguments + options).joined(separator: " ")
    }

    /// What bad usage prints after its "Error: ..." line.
    package var usageReminder: String {
        let help = configuration.path.isEmpty ? "midiccio --help" : "midiccio help \(configuration.path.joined(separator: " "))"
        return "Usage: \(usage)\n  See '\(help)'.\n"
    }

    /// The full help: OVERVIEW, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS, EXAMPLES.
    package func helpText(subcommands: [CommandConfiguration] = []) -> String {
        var text = "OVERVIEW: \(configuration.abstract)\n"
        if !configuration.discussion.isEmpty { text += "\n\(configuration.discussion)\n" }
        text += "\nUSAGE: \(usage)\n"
        if !positionals.isEmpty {
            text += "\nARGUMENTS:\n" + positionals.map { helpRow("<\($0.name)>", $0.help) }.joined()
        }
        text +=
            "\nOPTIONS:\n"
            + options.map { option in
                helpRow((option.short.map { "-\($0), " } ?? "") + option.written, option.help + (option.repeating ? " (repeatable)" : ""))
            }.joined()
        if !subcommands.isEmpty {
            let depth = configuration.path.count
            text += "\nSUBCOMMANDS:\n" + subcommands.map { helpRow($0.path.dropFirst(depth).joined(separator: " "), $0.abstract) }.joined()
        }
        if !configuration.examples.isEmpty {
            text += "\nEXAMPLES:\n" + configuration.examples.map { "  \($0)\n" }.joined()
        }
        return text
    }

    // MARK: - Parsing

    /// Reads `arguments` into the declared properties: names, counts, then each value in
    /// the order declared. Returns false, storing nothing, when help was asked for.
    package func parse(_ arguments: [String]) throws(UsageError) -> Bool {
        var reader = ArgumentReader(options: options, takesArguments: !positionals.isEmpty)
        try reader.read(arguments)
        if reader.helpRequested { return false }
        let given = reader.positionals
        let expected = positionals
        let required = expected.filter { !$0.optional }
        if given.count < required.count {
            throw UsageError("missing argument <\(required[given.count].name)>")
        }
        if !(expected.last?.repeating ?? false), given.count > expected.count {
            throw UsageError("unexpected argument '\(given[expected.count])'")
        }
        var nextPositional = 0
        var nextOption = 0
        for definition in declared + standard {
            if definition.kind == .positional {
                // An optional argument left out keeps its "not given".
                guard nextPositional < given.count else { continue }
                let texts = definition.repeating ? Array(given[nextPositional...]) : [given[nextPositional]]
                nextPositional += 1
                try definition.store(texts, definition.shownName)
            } else {
                try definition.store(reader.values[nextOption], definition.shownName)
                nextOption += 1
            }
        }
        return true
    }
}

private extension ArgumentDefinition {
    /// `--name <value>` or `--name`, as help and usage write it.
    var written: String {
        "--\(name)" + (kind == .option ? " <\(valueName ?? name)>" : "")
    }
}

/// One aligned line of help: the name in a 26-column margin (or alone on its line when it
/// is wider), then the text.
private func helpRow(_ name: String, _ help: String) -> String {
    let padded = name.count < 26 ? name + String(repeating: " ", count: 26 - name.count) : name + "\n" + String(repeating: " ", count: 28)
    return "  \(padded)\(help)\n"
}
