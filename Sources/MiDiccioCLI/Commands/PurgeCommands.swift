import MiDiccioKit

/// `midiccio purge`
struct PurgeCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["purge"], abstract: "Delete words in the Trash permanently, on every device.",
        discussion: """
            The words' content is removed from this library at once and from the cloud as devices compact their
            files; a small marker (id and time) keeps any device from bringing them back. Only words in the Trash
            can be purged.
            """,
        arguments: [ArgumentSpec(name: "id", help: "Ids or unique prefixes of words in the Trash.", repeating: true)],
        options: [OptionSpec(name: "json", help: "Print the purged words' ids as JSON.")],
        examples: ["midiccio purge 3f2a9c"])

    let ids: [String]
    init(_ arguments: ParsedArguments) throws { ids = arguments.positionals }

    func run(_ context: ToolContext) throws {
        try applyToWords(ids, inTrash: true, context: context, action: { try $0.purge($1) },
                         json: { "[" + $0.map { JSONText.quote($0.id.rawValue) }.joined(separator: ", ") + "]" },
                         line: { "Purged \"\($0.term)\" (\($0.id)) permanently" })
    }
}

/// `midiccio trash empty`
struct TrashEmptyCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["trash", "empty"], abstract: "Purge every word in the Trash permanently, on every device.",
        discussion: "Asks first when run on a terminal; elsewhere (scripts) --yes is required.",
        options: [OptionSpec(name: "yes", short: "y", help: "Do not ask for confirmation.")],
        examples: ["midiccio trash empty", "midiccio trash empty --yes"])

    let confirmed: Bool
    init(_ arguments: ParsedArguments) throws { confirmed = arguments.flag("yes") }

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        let count = try library.counts().trash
        guard count > 0 else {
            context.note("The Trash is empty.")
            return
        }
        if !confirmed {
            guard context.io.inputIsTerminal else {
                throw ToolFailure("emptying the Trash purges \(count) words permanently; add --yes to confirm")
            }
            context.io.writeError("Purge the \(count) word\(count == 1 ? "" : "s") in the Trash permanently, on every device? [y/N] ")
            let answer = (context.io.readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            guard answer == "y" || answer == "yes" else {
                context.note("Nothing was purged.")
                return
            }
        }
        let purged = try library.emptyTrash()
        context.io.write("Purged \(purged) word\(purged == 1 ? "" : "s") permanently\n")
    }
}

/// `midiccio config get`
struct ConfigGetCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["config", "get"], abstract: "Show one library setting.",
        arguments: [ArgumentSpec(name: "key", help: LibrarySetting.allCases.map(\.rawValue).joined(separator: " or "))],
        examples: ["midiccio config get trash.autoPurgeDays"])

    let setting: LibrarySetting
    init(_ arguments: ParsedArguments) throws { setting = try parseSetting(arguments.positionals[0], spec: Self.spec) }

    func run(_ context: ToolContext) throws {
        context.io.write(try context.library().setting(setting) + "\n")
    }
}

/// `midiccio config set`
struct ConfigSetCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["config", "set"], abstract: "Change a library setting (it syncs to your other devices).",
        arguments: [ArgumentSpec(name: "key", help: LibrarySetting.allCases.map(\.rawValue).joined(separator: " or ")),
                    ArgumentSpec(name: "value", help: "off, or a number of days")],
        examples: ["midiccio config set trash.hideAfterDays 30", "midiccio config set trash.autoPurgeDays off"])

    let setting: LibrarySetting
    let value: String
    init(_ arguments: ParsedArguments) throws {
        setting = try parseSetting(arguments.positionals[0], spec: Self.spec)
        value = arguments.positionals[1]
    }

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        try library.setSetting(setting, to: value)
        context.io.write("\(setting.rawValue) = \(try library.setting(setting))\n")
    }
}

/// `midiccio config list`
struct ConfigListCommand: ToolCommand {
    static let spec = CommandSpec(path: ["config", "list"], abstract: "Show every library setting.",
                                  options: [OptionSpec(name: "json", help: "Print as JSON.")])
    init(_ arguments: ParsedArguments) throws {}

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        let values = try LibrarySetting.allCases.map { ($0, try library.setting($0)) }
        if context.json {
            context.io.write(JSONText.object(values.map { ($0.0.rawValue, JSONText.quote($0.1)) }, spaced: true) + "\n")
        } else {
            let width = values.map { $0.0.rawValue.count }.max() ?? 0
            for (setting, value) in values {
                context.io.write(setting.rawValue.padded(to: width) + "  " + value.padded(to: 5) + "  " + setting.summary + "\n")
            }
        }
    }
}

private func parseSetting(_ key: String, spec: CommandSpec) throws -> LibrarySetting {
    guard let setting = LibrarySetting(rawValue: key) else {
        throw UsageError(message: "unknown setting '\(key)'; known: \(LibrarySetting.allCases.map(\.rawValue).joined(separator: ", "))", spec: spec)
    }
    return setting
}
