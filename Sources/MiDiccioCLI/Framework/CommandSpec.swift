/// A positional argument of a command.
public struct ArgumentSpec: Sendable {
    /// The name shown in usage, e.g. `term` for `<term>`.
    public var name: String
    /// One line of help.
    public var help: String
    /// True when it may be given several times (`<id>...`).
    public var repeating = false
    /// True when it may be left out.
    public var optional = false
}

/// A `--name` option of a command: a flag when `valueName` is nil.
public struct OptionSpec: Sendable {
    /// The long name without dashes.
    public var name: String
    /// An optional one-letter alias.
    public var short: Character?
    /// The placeholder for its value (`<text>`); nil for a flag.
    public var valueName: String?
    /// One line of help.
    public var help: String
    /// True when it may be given several times.
    public var repeating = false
}

/// Everything the tool knows about one (sub)command: what it does and what it accepts.
public struct CommandSpec: Sendable {
    /// The words that select it, e.g. `["backup", "restore"]`.
    public var path: [String]
    /// One-line summary (the OVERVIEW of its help).
    public var abstract: String
    /// More detail, shown after the overview.
    public var discussion: String = ""
    /// Positional arguments, in order.
    public var arguments: [ArgumentSpec] = []
    /// Options and flags.
    public var options: [OptionSpec] = []
    /// Example invocations shown in help.
    public var examples: [String] = []

    /// The usage line: `midiccio add <term> [--meaning <text>] ...`.
    public var usage: String {
        var parts = ["midiccio"] + path
        for argument in arguments {
            var text = "<\(argument.name)>" + (argument.repeating ? " ..." : "")
            if argument.optional { text = "[\(text)]" }
            parts.append(text)
        }
        for option in options where option.name != "help" {
            let text = "--\(option.name)" + (option.valueName.map { " <\($0)>" } ?? "")
            parts.append("[\(text)]" + (option.repeating ? " ..." : ""))
        }
        return parts.joined(separator: " ")
    }

    /// The full help text in OVERVIEW / USAGE / ARGUMENTS / OPTIONS order.
    public func helpText(subcommands: [CommandSpec] = []) -> String {
        var text = "OVERVIEW: \(abstract)\n"
        if !discussion.isEmpty { text += "\n\(discussion)\n" }
        text += "\nUSAGE: \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n" + arguments.map { row("<\($0.name)>", $0.help) }.joined()
        }
        let allOptions = options + CommandSpec.standardOptions
        text += "\nOPTIONS:\n" + allOptions.map { option in
            let names = (option.short.map { "-\($0), " } ?? "") + "--\(option.name)" + (option.valueName.map { " <\($0)>" } ?? "")
            return row(names, option.help + (option.repeating ? " (repeatable)" : ""))
        }.joined()
        if !subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n" + subcommands.map { row($0.path.dropFirst(path.count).joined(separator: " "), $0.abstract) }.joined()
        }
        if !examples.isEmpty {
            text += "\nEXAMPLES:\n" + examples.map { "  \($0)\n" }.joined()
        }
        return text
    }

    /// Options every command accepts.
    static let standardOptions: [OptionSpec] = [
        OptionSpec(name: "library", valueName: "path", help: "The library file (default: $MIDICCIO_LIBRARY, else $XDG_DATA_HOME/midiccio/library.sqlite)."),
        OptionSpec(name: "help", short: "h", help: "Show help information."),
    ]
}

private func row(_ name: String, _ help: String) -> String {
    let padded = name.count < 26 ? name + String(repeating: " ", count: 26 - name.count) : name + "\n" + String(repeating: " ", count: 28)
    return "  \(padded)\(help)\n"
}

/// A mistake in how the command was called: exit code 64 with the usage line.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public var message: String
    /// The command whose usage to print, when known.
    public var spec: CommandSpec?

    public var description: String { message }
}

extension UsageError {
    /// A mistake whose usage line the caller knows.
    init(_ message: String) { self.init(message: message) }
}

/// The arguments of one command after parsing against its spec.
public struct ParsedArguments: Sendable {
    /// Positional arguments in order.
    public var positionals: [String] = []
    /// Option values by long name, in the order given.
    public var values: [String: [String]] = [:]
    /// Flags that were given.
    public var flags: Set<String> = []

    /// The last value of an option, if given.
    public func value(_ name: String) -> String? { values[name]?.last }
    /// All values of a repeatable option.
    public func all(_ name: String) -> [String] { values[name] ?? [] }
    /// True when the flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// An integer option, checked against `range`.
    public func integer(_ name: String, in range: ClosedRange<Int>, spec: CommandSpec) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw UsageError(message: "--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", spec: spec)
        }
        return number
    }
}

extension CommandSpec {
    /// Parses `arguments` (after the command words) against this spec.
    public func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        let all = options + CommandSpec.standardOptions
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || argument == "-" || !argument.hasPrefix("-") || Int(argument) != nil && !argument.hasPrefix("--") {
                parsed.positionals.append(argument)
                continue
            }
            if argument == "--" { onlyPositionals = true; continue }
            var name: String
            var inlineValue: String?
            if argument.hasPrefix("--") {
                name = String(argument.dropFirst(2))
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
            } else {
                guard argument.count == 2, let option = all.first(where: { $0.short == argument.last }) else {
                    throw UsageError(message: "unknown option '\(argument)'", spec: self)
                }
                name = option.name
            }
            guard let option = all.first(where: { $0.name == name }) else {
                throw UsageError(message: "unknown option '--\(name)'", spec: self)
            }
            if option.valueName == nil {
                if inlineValue != nil { throw UsageError(message: "--\(name) takes no value", spec: self) }
                parsed.flags.insert(name)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else {
                    throw UsageError(message: "--\(name) needs a value (\(option.valueName!))", spec: self)
                }
                value = arguments[index]
                index += 1
            }
            if !option.repeating && parsed.values[name] != nil && name != "library" {
                throw UsageError(message: "--\(name) was given more than once", spec: self)
            }
            parsed.values[name, default: []].append(value)
        }
        if parsed.flag("help") { return parsed }
        let required = requiredArgumentCount
        if parsed.positionals.count < required {
            let missing = self.arguments.filter { !$0.optional }[parsed.positionals.count]
            throw UsageError(message: "missing argument <\(missing.name)>", spec: self)
        }
        if !(self.arguments.last?.repeating ?? false) && parsed.positionals.count > self.arguments.count {
            throw UsageError(message: "unexpected argument '\(parsed.positionals[self.arguments.count])'", spec: self)
        }
        return parsed
    }

    private var requiredArgumentCount: Int {
        arguments.filter { !$0.optional }.count
    }
}
