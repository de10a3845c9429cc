import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel
import MiDiccioSync

/// `midiccio purge`
struct PurgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["purge"], abstract: "Delete words in the Trash permanently, on every device.",
        discussion: """
            The words' content is removed from this library at once and from the cloud as devices compact their
            files; a small marker (id and time) keeps any device from bringing them back. Only words in the Trash
            can be purged. The library syncs first and after (--offline: not), so a word another device took out of
            the Trash is not purged, and the purge reaches the other devices at once.
            """,
        examples: ["midiccio purge 3f2a9c"])

    @Argument(name: "id", help: "Ids or unique prefixes of words in the Trash.") var ids: [String]
    @OptionGroup var output = OutputOptions(help: "Print the purged words' ids as JSON.")
    @OptionGroup var syncOnOpen: SyncOnOpen

    func run(_ context: ToolContext) throws {
        let edited = try syncFirst(syncOnOpen, context)
        try applyToWords(
            ids, inTrash: true, output: output, context: context,
            action: { library, ids in
                // The note just said to restore such a word to keep its change: it is not
                // purged on the next line (found by the exploratory helper, round 27B #2; as
                // `trash empty`, round 22A #8).
                let changed = try ids.filter { edited.ids.contains($0.rawValue) }.compactMap { try library.word($0)?.term }
                if !changed.isEmpty {
                    throw changedInTheTrash(
                        changed.count, Array(changed.prefix(SyncReport.purgedNamed)), found: "to purge",
                        next: "Look at \(changed.count == 1 ? "it" : "them") (midiccio trash; restore a word to keep its change), "
                            + "then purge again")
                }
                return try library.purge(ids)
            },
            json: { "[" + $0.map { JSONText.quote($0.id.rawValue) }.joined(separator: ", ") + "]" },
            line: { "Purged \"\($0.term.shownSafely)\" (\($0.id)) permanently" })
        try noteTextRemaining(try context.library(), context)
        try syncAfter(syncOnOpen, context)
    }
}

/// Syncs after a permanent deletion, as the web app does: left here until the next sync,
/// the purge let another device take the word out of its Trash and edit it meanwhile, and
/// then took it, edits and all, from every device (found by the exploratory helper, round
/// 15C). A sync that cannot finish only warns: the purge goes with the next one.
func syncAfter(_ syncOnOpen: SyncOnOpen, _ context: ToolContext) throws {
    try syncOnOpen.run(context, otherwise: "the purge reaches the other devices with this device's next sync")
}

/// Syncs before a permanent deletion: a word another device took out of the Trash (and
/// perhaps edited) since this one last synced was purged everywhere (found by the
/// exploratory helper, round 5); pulled first, it is no longer in the Trash here.
@discardableResult
func syncFirst(_ syncOnOpen: SyncOnOpen, _ context: ToolContext) throws -> SyncOnOpen.TrashEdited {
    try syncOnOpen.runOrStop(
        context, consequence: "a word another device took out of the Trash, and this one has not pulled, would be purged on every device")
}

/// The refusal of a purge whose sync first found `count` of the words (`terms` the first)
/// with a change not seen here before: an edit, or study answers, another device made
/// before their move to the Trash reached it.
func changedInTheTrash(_ count: Int, _ terms: [String], found: String, next: String) -> ToolFailure {
    ToolFailure(
        "the sync before it found \(counted(count, "word")) \(found) with a change not seen here before: "
            + TermList.named(terms, of: count).shownSafely + "; nothing was purged. \(next)")
}

/// Says on standard error when a purge stood but its scrub waits for another program or
/// for room on the disk (`WordLibrary.purgedTextRemains`).
func noteTextRemaining(_ library: WordLibrary, _ context: ToolContext) throws {
    guard try library.purgedTextRemains() else { return }
    context.note(
        "The purged words' text leaves the library's search index at the next purge or sync: another program was "
            + "writing to the library, or its disk is full.")
}

/// `midiccio trash empty`
struct TrashEmptyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["trash", "empty"], abstract: "Purge every word in the Trash permanently, on every device.",
        discussion: """
            Asks first when run on a terminal; elsewhere (scripts) --yes is required. The library syncs first and
            after (--offline: not), so a word another device took out of the Trash is not purged, and the purge
            reaches the other devices at once.
            """,
        examples: ["midiccio trash empty", "midiccio trash empty --yes"])

    @Flag(name: "yes", short: "y", help: "Do not ask for confirmation.") var yes = false
    @OptionGroup var syncOnOpen: SyncOnOpen

    func run(_ context: ToolContext) throws {
        let edited = try syncFirst(syncOnOpen, context)
        // Confirmed before the sync brought them: the note just said to restore them to keep
        // the change, and the next line said they were purged (found by the exploratory
        // helper, round 22A #8). Asked on a terminal, the person reads the note first.
        if yes && edited.count > 0 {
            throw changedInTheTrash(
                edited.count, edited.terms, found: "in the Trash",
                next: "Look at the Trash (restore a word to keep its change), then run trash empty again")
        }
        let library = try context.library()
        let (count, key) = try library.trashKey()
        guard count > 0 else {
            context.note("The Trash is empty.")
            return
        }
        if !yes {
            guard context.io.inputIsTerminal else {
                throw ToolFailure("emptying the Trash purges \(counted(count, "word")) permanently; add --yes to confirm")
            }
            context.io.writeError("Purge the \(counted(count, "word")) in the Trash permanently, on every device? [y/N] ")
            let answer = (context.io.readLine() ?? "").trimmed.lowercased()
            guard answer == "y" || answer == "yes" else {
                context.note("Nothing was purged.")
                return
            }
        }
        let progress = context.progressLine(json: false)
        defer { progress.finish() }
        // The words asked about: a word moved to the Trash while the question waited stays,
        // and so does the Trash when other words are there, even as many.
        let purged = try library.emptyTrash(expecting: yes ? nil : count, expectingKey: yes ? nil : key) { done, total in
            progress.show("Emptying the Trash: \(ProgressLine.count(done, of: total))")
        }
        progress.finish()
        context.io.write("Purged \(counted(purged, "word")) permanently\n")
        try noteTextRemaining(library, context)
        try syncAfter(syncOnOpen, context)
    }
}

/// `midiccio config get`
struct ConfigGetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["config", "get"], abstract: "Show one library setting.", examples: ["midiccio config get trash.autoPurgeDays"])

    @Argument(name: "key", help: LibrarySetting.expectation) var setting: LibrarySetting

    func run(_ context: ToolContext) throws {
        context.io.write(try context.library().setting(setting) + "\n")
    }
}

/// `midiccio config set`
struct ConfigSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["config", "set"], abstract: "Change a library setting (it syncs to your other devices).",
        examples: ["midiccio config set trash.hideAfterDays 30", "midiccio config set trash.autoPurgeDays off"])

    @Argument(name: "key", help: LibrarySetting.expectation) var setting: LibrarySetting
    @Argument(name: "value", help: "The value: off or a number of days for the Trash settings; see 'config list'.") var value: String

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        try library.setSetting(setting, to: value)
        context.io.write("\(setting.rawValue) = \(try library.setting(setting))\n")
    }
}

/// `midiccio config list`
struct ConfigListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(path: ["config", "list"], abstract: "Show every library setting.")

    @OptionGroup var output = OutputOptions(help: "Print as JSON.")

    func run(_ context: ToolContext) throws {
        let library = try context.library()
        let values = try LibrarySetting.allCases.map { ($0, try library.setting($0)) }
        if output.json {
            context.io.write(JSONText.object(values.map { ($0.0.rawValue, JSONText.quote($0.1)) }, spaced: true) + "\n")
        } else {
            let width = values.map { $0.0.rawValue.count }.max() ?? 0
            for (setting, value) in values {
                context.io.write(setting.rawValue.padded(to: width) + "  " + value.padded(to: 5) + "  " + setting.summary + "\n")
            }
        }
    }
}

extension LibrarySetting: ExpressibleByArgument {
    package static func refusal(of text: String, as shownName: String) -> String {
        "unknown setting '\(text)'; known: \(allCases.map(\.rawValue).joined(separator: ", "))"
    }
}
