import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel
import MiDiccioSync

/// `midiccio list`
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["list"], abstract: "List words (not those in the Trash).",
        examples: ["midiccio list --tag spanish --sort term --limit 20"])

    @Option(name: "tag", short: "t", help: "Only words with this tag.") var tag: String?
    @Option(name: "sort", help: "Order: newest change (default), newest added, or by term.") var sort = ListSort.updated
    @Option(name: "limit", help: "Show at most n words.", range: 0...Int(Int32.max)) var limit: Int?
    @Option(name: "offset", help: "Skip the first n words.", range: 0...Int(Int32.max)) var offset = 0
    @OptionGroup var output = OutputOptions.words
    @OptionGroup var syncOnOpen: SyncOnOpen

    func validate() throws(UsageError) { try refuseBlankTag(tag) }

    func run(_ context: ToolContext) throws {
        try syncOnOpen.run(context)
        // A page past the end is simply empty; otherwise say why there is nothing.
        let whenNone: String? =
            offset > 0 || limit == 0
            ? nil
            : tag.map { "No words tagged \"\($0)\"." } ?? "No words yet. Add one with: midiccio add <term> --meaning <text>"
        let words = try context.library().list(ListQuery(tag: tag, sort: sort, limit: limit, offset: offset))
        showWords(words, output: output, context, whenNone: whenNone)
    }
}

extension ListSort: ExpressibleByArgument {}

/// Refuses a blank `--tag` filter: no word has an empty tag, so the command would show
/// nothing, as if the library were empty or the tag unused.
func refuseBlankTag(_ tag: String?) throws(UsageError) {
    if let tag, tag.allSatisfy(\.isWhitespace) {
        throw UsageError("--tag is empty; give the tag to show, as --tag verbs")
    }
}

/// `midiccio search`
struct SearchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["search"], abstract: "Find words as you type: any field, ignoring case and accents.",
        discussion: """
            Each word of the query matches the start of a word ("pal" finds "palabra", "cafe" finds "café").
            An exact term comes first, then terms starting with the query, then the rest by relevance.
            Prefixes narrow the search: tag:verbs (only words with that tag), -tag:done (none with it),
            term:, meaning:, reading:, examples: and notes: (in that field only); quote a value with spaces:
            meaning:"big house". The number of matches in all goes to stderr when more follow the page.
            """,
        examples: [
            "midiccio search pal", "midiccio search \"buenos di\" --json", "midiccio search mean --tag verbs --sort term",
            "midiccio search \"meaning:house -tag:done\" --limit 50 --offset 50",
        ])

    @Argument(name: "query", help: "What to look for (prefixes: tag:, -tag:, term:, meaning:, reading:, examples:, notes:).") var query:
        String
    @Option(name: "tag", short: "t", help: "Only words with this tag.") var tag: String?
    @Option(name: "sort", help: "Order: relevance (default), or as list sorts: updated, created, term.") var sort = SearchSort.relevance
    @Option(name: "limit", help: "Show at most n words (default 20).", range: 1...10_000) var limit = 20
    @Option(name: "offset", help: "Skip the first n matches.", range: 0...Int(Int32.max)) var offset = 0
    @OptionGroup var output = OutputOptions.words
    @OptionGroup var syncOnOpen: SyncOnOpen

    func validate() throws(UsageError) { try refuseBlankTag(tag) }

    func run(_ context: ToolContext) throws {
        try syncOnOpen.run(context)
        let page = try context.library().find(
            SearchRequest(query: query, tag: tag, sort: sort.listSort, limit: limit, offset: offset))
        showWords(page.words, output: output, context, whenNone: offset > 0 ? nil : "Nothing matches \"\(query)\".")
        if page.hasMore || offset > 0 {
            let last = offset + page.words.count
            let total = page.total.map(String.init) ?? "?"
            if page.words.isEmpty {
                // Past the last match: "None of 32." read as if nothing matched (round 11).
                context.note(
                    page.total == 0
                        ? "Nothing matches \"\(query)\"."
                        : "No matches past --offset \(offset): \"\(query)\" has \(total) (the last page: --offset \(max(0, (page.total ?? 0) - limit)))."
                )
            } else {
                context.note("Matches \(offset + 1) to \(last) of \(total)" + (page.hasMore ? "; next page: --offset \(last)" : "") + ".")
            }
        }
    }
}

/// The orders `midiccio search` offers: relevance, or one of the list's.
enum SearchSort: String, CaseIterable, ExpressibleByArgument {
    case relevance, updated, created, term

    /// The list order, or nil for relevance.
    var listSort: ListSort? { ListSort(rawValue: rawValue) }
}

/// Prints `words` as a JSON array or as a table; with none, prints `whenNone` (if any)
/// as a note on stderr, so scripts reading stdout see nothing.
func showWords(_ words: [Word], output: OutputOptions, _ context: ToolContext, whenNone: String?) {
    if output.json {
        context.io.write(WordJSON.array(words) + "\n")
    } else if words.isEmpty {
        if let whenNone { context.note(whenNone) }
    } else {
        context.io.write(context.printer.table(words))
    }
}

/// `midiccio tags`
struct TagsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(path: ["tags"], abstract: "List tags with how many words carry each.")

    @OptionGroup var output = OutputOptions(help: "Print the tags as JSON.")

    func run(_ context: ToolContext) throws {
        let tags = try context.library().tags()
        if output.json {
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
struct TrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["trash"], abstract: "List words in the Trash, most recently deleted first.",
        examples: ["midiccio trash", "midiccio restore <id>", "midiccio trash empty"])

    @Flag(name: "all", help: "Also show entries hidden by trash.hideAfterDays.") var all = false
    @OptionGroup var output = OutputOptions.words
    @OptionGroup var syncOnOpen: SyncOnOpen

    func run(_ context: ToolContext) throws {
        try syncOnOpen.run(context)
        let library = try context.library()
        let words = try library.trash(includeHidden: all)
        let hidden = all ? 0 : try library.hiddenTrashCount()
        if output.json {
            context.io.write(WordJSON.array(words) + "\n")
        } else if words.isEmpty && hidden == 0 {
            context.note("The Trash is empty.")
        } else {
            context.io.write(context.printer.table(words, showDeleted: true))
        }
        if hidden > 0 && !output.json {
            context.note("\(counted(hidden, "older word")) hidden (trash.hideAfterDays); see them with: midiccio trash --all")
        }
        if !output.json, let held = try library.autoPurgeHeldNote() { context.note(held.shownSafely + ".") }
    }
}
