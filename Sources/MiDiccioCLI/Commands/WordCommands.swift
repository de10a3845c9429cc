import MiDiccioKit

private let jsonOption = OptionSpec(name: "json", help: "Print the result as JSON.")

/// `midiccio add`
struct AddCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["add"], abstract: "Add a word to the library.",
        discussion: "Warns when the term is already in the library (ignoring case and accents) and adds it anyway,\nunless --no-duplicates is given.",
        arguments: [ArgumentSpec(name: "term", help: "The word itself.")],
        options: [
            OptionSpec(name: "meaning", short: "m", valueName: "text", help: "What it means."),
            OptionSpec(name: "reading", short: "r", valueName: "text", help: "How it is read or pronounced."),
            OptionSpec(name: "example", short: "e", valueName: "sentence", help: "An example sentence.", repeating: true),
            OptionSpec(name: "notes", short: "n", valueName: "text", help: "Notes."),
            OptionSpec(name: "tag", short: "t", valueName: "tag", help: "A tag.", repeating: true),
            OptionSpec(name: "no-duplicates", help: "Refuse to add a term that is already in the library."),
            jsonOption,
        ],
        examples: ["midiccio add palabra --meaning word --tag spanish --example \"Una palabra.\""])

    let content: WordContent
    let allowDuplicate: Bool

    init(_ arguments: ParsedArguments) throws {
        content = WordContent(term: arguments.positionals[0], meaning: arguments.value("meaning") ?? "",
                              reading: arguments.value("reading") ?? "", examples: arguments.all("example"),
                              notes: arguments.value("notes") ?? "", tags: arguments.all("tag"))
        allowDuplicate = !arguments.flag("no-duplicates")
    }

    func run(_ context: ToolContext) throws {
        let result = try context.library().add(content, allowDuplicate: allowDuplicate)
        for duplicate in result.duplicates {
            context.note("warning: \"\(duplicate.term)\" is already in the library (id \(duplicate.id.rawValue.prefix(8))); added anyway")
        }
        if context.json {
            context.io.write(WordJSON.object(result.word) + "\n")
        } else {
            context.io.write("Added \"\(result.word.term)\" (\(result.word.id))\n")
        }
    }
}

/// `midiccio edit`
struct EditCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["edit"], abstract: "Change fields of a word.",
        discussion: "Only the fields you give change. --example replaces all examples; --clear-examples removes them.",
        arguments: [ArgumentSpec(name: "id", help: "The word's id or a unique prefix of at least 6 characters.")],
        options: [
            OptionSpec(name: "term", valueName: "text", help: "New term."),
            OptionSpec(name: "meaning", short: "m", valueName: "text", help: "New meaning."),
            OptionSpec(name: "reading", short: "r", valueName: "text", help: "New reading."),
            OptionSpec(name: "notes", short: "n", valueName: "text", help: "New notes."),
            OptionSpec(name: "example", short: "e", valueName: "sentence", help: "Replace the examples.", repeating: true),
            OptionSpec(name: "clear-examples", help: "Remove all examples."),
            OptionSpec(name: "add-tag", valueName: "tag", help: "Add a tag.", repeating: true),
            OptionSpec(name: "remove-tag", valueName: "tag", help: "Remove a tag.", repeating: true),
            jsonOption,
        ],
        examples: ["midiccio edit 3f2a9c --meaning \"a word\" --add-tag basics --remove-tag new"])

    let id: String
    let edit: WordEdit

    init(_ arguments: ParsedArguments) throws {
        id = arguments.positionals[0]
        var edit = WordEdit(term: arguments.value("term"), meaning: arguments.value("meaning"),
                            reading: arguments.value("reading"), notes: arguments.value("notes"),
                            addTags: arguments.all("add-tag"), removeTags: arguments.all("remove-tag"))
        if arguments.flag("clear-examples") {
            guard arguments.all("example").isEmpty else {
                throw UsageError(message: "--clear-examples and --example cannot be used together", spec: Self.spec)
            }
            edit.examples = []
        } else if !arguments.all("example").isEmpty {
            edit.examples = arguments.all("example")
        }
        guard edit.term != nil || edit.meaning != nil || edit.reading != nil || edit.notes != nil || edit.examples != nil
                || !edit.addTags.isEmpty || !edit.removeTags.isEmpty else {
            throw UsageError(message: "nothing to change; give at least one of --term, --meaning, --reading, --notes, --example, --add-tag, --remove-tag", spec: Self.spec)
        }
        self.edit = edit
    }

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        let word = try library.resolve(id)
        let before = word
        let after = try library.edit(word.id, edit)
        if context.json {
            context.io.write(WordJSON.object(after) + "\n")
        } else {
            context.io.write(after == before ? "No change to \"\(after.term)\"\n" : "Updated \"\(after.term)\" (\(after.id))\n")
        }
    }
}

/// `midiccio show`
struct ShowCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["show"], abstract: "Show every field of a word.",
        arguments: [ArgumentSpec(name: "id", help: "The word's id or a unique prefix of at least 6 characters.")],
        options: [jsonOption, offlineOption], examples: ["midiccio show 3f2a9c"])

    let id: String
    init(_ arguments: ParsedArguments) throws { id = arguments.positionals[0] }

    func run(_ context: ToolContext) throws {
        SyncOnOpen.run(context)
        let word = try context.library().resolve(id)
        context.io.write(context.json ? WordJSON.object(word) + "\n" : context.printer.detail(word))
    }
}

/// `midiccio delete`
struct DeleteCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["delete"], abstract: "Move words to the Trash.",
        discussion: "Deleted words stay in the Trash until restored ('midiccio trash', 'midiccio restore').",
        arguments: [ArgumentSpec(name: "id", help: "Ids or unique prefixes of the words to delete.", repeating: true)],
        options: [jsonOption], examples: ["midiccio delete 3f2a9c 7b1e04"])

    let ids: [String]
    init(_ arguments: ParsedArguments) throws { ids = arguments.positionals }

    func run(_ context: ToolContext) throws {
        try applyToWords(ids, inTrash: false, context: context, action: { try $0.delete($1) },
                         json: WordJSON.array, line: { "Moved \"\($0.term)\" to the Trash (\($0.id))" })
    }
}

/// `midiccio restore`
struct RestoreCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["restore"], abstract: "Take words out of the Trash.",
        arguments: [ArgumentSpec(name: "id", help: "Ids or unique prefixes of words in the Trash.", repeating: true)],
        options: [jsonOption], examples: ["midiccio restore 3f2a9c"])

    let ids: [String]
    init(_ arguments: ParsedArguments) throws { ids = arguments.positionals }

    func run(_ context: ToolContext) throws {
        try applyToWords(ids, inTrash: true, context: context, action: { try $0.restore($1) },
                         json: WordJSON.array, line: { "Restored \"\($0.term)\" (\($0.id))" })
    }
}

/// Resolves `ids` among words in (or out of) the Trash, applies `action` to all of them
/// at once and reports each word: the shared shape of delete, restore and purge.
func applyToWords(_ ids: [String], inTrash: Bool, context: ToolContext,
                  action: (WordLibrary, [WordID]) throws -> [Word],
                  json: ([Word]) -> String, line: (Word) -> String) throws {
    let library = try context.library()
    let words = try ids.map { try library.resolve($0, inTrash: inTrash) }
    let changed = try action(library, words.map(\.id))
    if context.json {
        context.io.write(json(changed) + "\n")
    } else {
        for word in changed { context.io.write(line(word) + "\n") }
    }
}
