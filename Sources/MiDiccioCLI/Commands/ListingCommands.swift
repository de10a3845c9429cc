import MiDiccioKit

private let jsonOption = OptionSpec(name: "json", help: "Print the words as a JSON array.")
/// Commands that show words sync first when a remote is set; this skips that.
let offlineOption = OptionSpec(name: "offline", help: "Do not sync first (also: MIDICCIO_OFFLINE=1).")

/// `midiccio list`
struct ListCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["list"], abstract: "List words (not those in the Trash).",
        options: [
            OptionSpec(name: "tag", short: "t", valueName: "tag", help: "Only words with this tag."),
            OptionSpec(name: "sort", valueName: "updated|created|term", help: "Order: newest change (default), newest added, or by term."),
            OptionSpec(name: "limit", valueName: "n", help: "Show at most n words."),
            OptionSpec(name: "offset", valueName: "n", help: "Skip the first n words."),
            jsonOption, offlineOption,
        ],
        examples: ["midiccio list --tag spanish --sort term --limit 20"])

    let query: ListQuery

    init(_ arguments: ParsedArguments) throws {
        var sort = ListSort.updated
        if let text = arguments.value("sort") {
            guard let value = ListSort(rawValue: text) else {
                throw UsageError(message: "--sort must be updated, created or term, not '\(text)'", spec: Self.spec)
            }
            sort = value
        }
        query = ListQuery(tag: arguments.value("tag"), sort: sort,
                          limit: try arguments.integer("limit", in: 0...Int(Int32.max), spec: Self.spec),
                          offset: try arguments.integer("offset", in: 0...Int(Int32.max), spec: Self.spec) ?? 0)
    }

    func run(_ context: ToolContext) throws {
        SyncOnOpen.run(context)
        // A page past the end is simply empty; otherwise say why there is nothing.
        let whenNone: String? = query.offset > 0 || query.limit == 0 ? nil
            : query.tag.map { "No words tagged \"\($0)\"." } ?? "No words yet. Add one with: midiccio add <term> --meaning <text>"
        showWords(try context.library().list(query), context, whenNone: whenNone)
    }
}

/// `midiccio search`
struct SearchCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["search"], abstract: "Find words as you type: any field, ignoring case and accents.",
        discussion: "Each word of the query matches the start of a word (\"pal\" finds \"palabra\", \"cafe\" finds \"café\").\nAn exact term comes first, then terms starting with the query, then the rest by relevance.",
        arguments: [ArgumentSpec(name: "query", help: "What to look for.")],
        options: [OptionSpec(name: "limit", valueName: "n", help: "Show at most n words (default 20)."), jsonOption, offlineOption],
        examples: ["midiccio search pal", "midiccio search \"buenos di\" --json"])

    let query: String
    let limit: Int

    init(_ arguments: ParsedArguments) throws {
        query = arguments.positionals[0]
        limit = try arguments.integer("limit", in: 1...10_000, spec: Self.spec) ?? 20
    }

    func run(_ context: ToolContext) throws {
        SyncOnOpen.run(context)
        showWords(try context.library().search(query, limit: limit), context, whenNone: "Nothing matches \"\(query)\".")
    }
}

/// Prints `words` as a JSON array or as a table; with none, prints `whenNone` (if any)
/// as a note on stderr, so scripts reading stdout see nothing.
func showWords(_ words: [Word], _ context: ToolContext, whenNone: String?) {
    if context.json {
        context.io.write(WordJSON.array(words) + "\n")
    } else if words.isEmpty {
        if let whenNone { context.note(whenNone) }
    } else {
        context.io.write(context.printer.table(words))
    }
}

/// `midiccio tags`
struct TagsCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["tags"], abstract: "List tags with how many words carry each.",
        options: [OptionSpec(name: "json", help: "Print the tags as JSON.")])

    init(_ arguments: ParsedArguments) throws {}

    func run(_ context: ToolContext) throws {
        let tags = try context.library().tags()
        if context.json {
            let items = tags.map { "  " + JSONText.object([("tag", JSONText.quote($0.tag)), ("count", String($0.count))], spaced: true) }
            context.io.write(items.isEmpty ? "[]\n" : "[\n" + items.joined(separator: ",\n") + "\n]\n")
        } else if tags.isEmpty {
            context.note("No tags yet. Add one with: midiccio edit <id> --add-tag <tag>")
        } else {
            let width = tags.map { String($0.count).count }.max() ?? 1
            for tag in tags {
                let count = String(tag.count)
                context.io.write(String(repeating: " ", count: width - count.count) + count + "  " + tag.tag + "\n")
            }
        }
    }
}

/// `midiccio trash`
struct TrashCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["trash"], abstract: "List words in the Trash, most recently deleted first.",
        options: [OptionSpec(name: "all", help: "Also show entries hidden by trash.hideAfterDays."), jsonOption, offlineOption],
        examples: ["midiccio trash", "midiccio restore <id>", "midiccio trash empty"])

    let all: Bool
    init(_ arguments: ParsedArguments) throws { all = arguments.flag("all") }

    func run(_ context: ToolContext) throws {
        SyncOnOpen.run(context)
        let library = try context.library()
        let words = try library.trash(includeHidden: all)
        let hidden = all ? 0 : try library.hiddenTrashCount()
        if context.json {
            context.io.write(WordJSON.array(words) + "\n")
        } else if words.isEmpty && hidden == 0 {
            context.note("The Trash is empty.")
        } else {
            context.io.write(context.printer.table(words, showDeleted: true))
        }
        if hidden > 0 && !context.json {
            context.note("\(hidden) older word\(hidden == 1 ? "" : "s") hidden (trash.hideAfterDays); see them with: midiccio trash --all")
        }
    }
}
