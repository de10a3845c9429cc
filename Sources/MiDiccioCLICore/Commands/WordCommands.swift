import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel
import MiDiccioSync

/// `midiccio add`
struct AddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["add"], abstract: "Add a word to the library.",
        discussion:
            "Warns when the term is already in the library (ignoring case and accents) and adds it anyway,\nunless --no-duplicates is given.",
        examples: ["midiccio add palabra --meaning word --tag spanish --example \"Una palabra.\""])

    @Argument(name: "term", help: "The word itself.") var term: String
    @Option(name: "meaning", short: "m", valueName: "text", help: "What it means.") var meaning = ""
    @Option(name: "reading", short: "r", valueName: "text", help: "How it is read or pronounced.") var reading = ""
    @Option(name: "example", short: "e", valueName: "sentence", help: "An example sentence.") var examples: [String]
    @Option(name: "notes", short: "n", valueName: "text", help: "Notes.") var notes = ""
    @Option(name: "tag", short: "t", help: "A tag.") var tags: [String]
    @Flag(name: "no-duplicates", help: "Refuse to add a term already in the library, spelled the same (case aside: año is not ano).")
    var noDuplicates = false
    @OptionGroup var output: OutputOptions

    func run(_ context: ToolContext) throws {
        let content = WordContent(term: term, meaning: meaning, reading: reading, examples: examples, notes: notes, tags: tags)
        let result = try context.library().add(content, allowDuplicate: !noDuplicates)
        for duplicate in result.duplicates {
            context.note("warning: \"\(duplicate.term)\" is already in the library (id \(duplicate.id.rawValue.prefix(8))); added anyway")
        }
        if output.json {
            context.io.write(WordJSON.object(result.word) + "\n")
        } else {
            context.io.write("Added \"\(result.word.term.shownSafely)\" (\(result.word.id))\n")
        }
    }
}

/// `midiccio edit`
struct EditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["edit"], abstract: "Change fields of a word.",
        discussion: "Only the fields you give change. --example replaces all examples; --clear-examples removes them.",
        examples: ["midiccio edit 3f2a9c --meaning \"a word\" --add-tag basics --remove-tag new"])

    @Argument(name: "id", help: "The word's id or a unique prefix of at least 6 characters.") var id: String
    @Option(name: "term", valueName: "text", help: "New term.") var term: String?
    @Option(name: "meaning", short: "m", valueName: "text", help: "New meaning.") var meaning: String?
    @Option(name: "reading", short: "r", valueName: "text", help: "New reading.") var reading: String?
    @Option(name: "notes", short: "n", valueName: "text", help: "New notes.") var notes: String?
    @Option(name: "example", short: "e", valueName: "sentence", help: "Replace the examples.") var examples: [String]
    @Flag(name: "clear-examples", help: "Remove all examples.") var clearExamples = false
    @Option(name: "add-tag", valueName: "tag", help: "Add a tag.") var addTags: [String]
    @Option(name: "remove-tag", valueName: "tag", help: "Remove a tag.") var removeTags: [String]
    @OptionGroup var output: OutputOptions

    /// The change the options ask for; examples stay unless --example or --clear-examples is given.
    private var edit: WordEdit {
        WordEdit(
            term: term, meaning: meaning, reading: reading, examples: clearExamples ? [] : examples.isEmpty ? nil : examples,
            notes: notes, addTags: addTags, removeTags: removeTags)
    }

    func validate() throws(UsageError) {
        if clearExamples && !examples.isEmpty {
            throw UsageError("--clear-examples and --example cannot be used together")
        }
        let edit = edit
        guard
            edit.term != nil || edit.meaning != nil || edit.reading != nil || edit.notes != nil || edit.examples != nil
                || !edit.addTags.isEmpty || !edit.removeTags.isEmpty
        else {
            throw UsageError(
                "nothing to change; give at least one of --term, --meaning, --reading, --notes, --example, --clear-examples, --add-tag, --remove-tag"
            )
        }
    }

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        let word = try library.resolve(id)
        let before = word
        let after = try library.edit(word.id, edit)
        if output.json {
            context.io.write(WordJSON.object(after) + "\n")
        } else {
            context.io.write(
                after == before ? "No change to \"\(after.term.shownSafely)\"\n" : "Updated \"\(after.term.shownSafely)\" (\(after.id))\n")
        }
    }
}

/// `midiccio show`
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["show"], abstract: "Show every field of a word.", examples: ["midiccio show 3f2a9c"])

    @Argument(name: "id", help: "The word's id or a unique prefix of at least 6 characters.") var id: String
    @OptionGroup var output: OutputOptions
    @OptionGroup var syncOnOpen: SyncOnOpen

    func run(_ context: ToolContext) throws {
        try syncOnOpen.run(context)
        let library = try context.library()
        let word = try library.resolve(id)
        let schedule = try library.studySchedule(of: word.id)
        if output.json {
            context.io.write(WordJSON.object(word, extra: [("study", studyJSON(schedule))]) + "\n")
        } else {
            let due = schedule.due.map { ", due \($0.iso8601)" } ?? ""
            context.io.write(context.printer.detail(word) + "study     \(schedule.state.rawValue)\(due), \(schedule.reviews) reviews\n")
        }
    }
}

/// `midiccio delete`
struct DeleteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["delete"], abstract: "Move words to the Trash.",
        discussion: "Deleted words stay in the Trash until restored ('midiccio trash', 'midiccio restore').",
        examples: ["midiccio delete 3f2a9c 7b1e04"])

    @Argument(name: "id", help: "Ids or unique prefixes of the words to delete.") var ids: [String]
    @OptionGroup var output: OutputOptions

    func run(_ context: ToolContext) throws {
        try applyToWords(
            ids, inTrash: false, output: output, context: context, action: { try $0.delete($1) },
            json: WordJSON.array, line: { "Moved \"\($0.term.shownSafely)\" to the Trash (\($0.id))" })
    }
}

/// `midiccio restore`
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["restore"], abstract: "Take words out of the Trash.", examples: ["midiccio restore 3f2a9c"])

    @Argument(name: "id", help: "Ids or unique prefixes of words in the Trash.") var ids: [String]
    @OptionGroup var output: OutputOptions
    @OptionGroup var syncOnOpen: SyncOnOpen

    func run(_ context: ToolContext) throws {
        // Syncs first: a word another device deleted permanently meanwhile was "Restored"
        // here until the next sync took it, with any edit made since (round 18B).
        try syncOnOpen.run(context, otherwise: "restoring on this device as it is")
        try applyToWords(
            ids, inTrash: true, output: output, context: context, action: { try $0.restore($1) },
            json: WordJSON.array, line: { "Restored \"\($0.term.shownSafely)\" (\($0.id))" })
    }
}

/// Resolves `ids` among words in (or out of) the Trash, applies `action` to all of them
/// at once and reports each word: the shared shape of delete, restore and purge.
func applyToWords(
    _ ids: [String], inTrash: Bool, output: OutputOptions, context: ToolContext,
    action: (WordLibrary, [WordID]) throws -> [Word],
    json: ([Word]) -> String, line: (Word) -> String
) throws {
    let library = try context.library()
    let words = try ids.map { try library.resolve($0, inTrash: inTrash) }
    let changed = try action(library, words.map(\.id))
    if output.json {
        context.io.write(json(changed) + "\n")
    } else {
        for word in changed { context.io.write(line(word) + "\n") }
    }
}
