import MiDiccioLibrary
import MiDiccioModel

/// `midiccio import`
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["import"], abstract: "Import words from a list, CSV/TSV, Anki, Kindle or KOReader.",
        discussion: """
            The format is recognised by the file's content and named in the result:
              list        a list without a header: term, meaning, then notes, by position
              csv, tsv    MiDiccio CSV/TSV, whose header names columns: term,meaning,reading,examples,notes,tags
              anki-text   Anki's "Notes in Plain Text" export (#separator: / #html: / #tags column: lines)
              kindle      Kindle's Vocabulary Builder, system/vocabulary/vocab.db on the Kindle
              koreader    KOReader's vocabulary builder, settings/vocabulary_builder.sqlite3
              apkg        an Anki deck package (File > Export > Anki Deck Package)
              colpkg      an Anki collection package (a whole collection)
            A list's separator is found from its first lines (tab, ;, |, comma); --separator and
            --card-separator say otherwise, --columns says what each position holds (skip: leave it out).
            Importing the same Kindle file again adds only the look-ups it has not imported yet.
            An Anki package gives one word a note: the first two fields of its note type (or those
            --fields names; repeat it for several note types) are the term and the meaning, other
            fields go to the notes, and decks become tags; sounds and images are left out and counted.
            All or nothing: a bad row is reported with its line and field, and nothing is imported.
            'midiccio import undo' moves the words of the last import to the Trash.
            """,
        examples: [
            "midiccio import words.txt --dry-run",
            "midiccio import quizlet.txt --separator ' - ' --card-separator ';;'",
            "midiccio import words.csv --columns term,skip,meaning,tags",
            "midiccio import /media/Kindle/system/vocabulary/vocab.db --since 2026-01-01",
            "midiccio import Spanish.apkg --fields Front,Back --fields Word,Meaning",
        ])

    @Argument(name: "file", help: "The file to import.") var file: String
    @Option(name: "format", help: "The file's format (default: recognised from its content).") var format: ImportFormat?
    @Option(name: "columns", valueName: "list", help: "What each column of a list holds, e.g. term,meaning,tags.") var columns: ListColumns?
    @Option(name: "separator", valueName: "text", help: "Between a list's fields: tab, comma, semicolon, pipe, or any text.") var separator:
        String?
    @Option(name: "card-separator", valueName: "text", help: "Between a list's cards, if not a line break (Quizlet's custom separator).")
    var cardSeparator: String?
    @Option(name: "since", valueName: "date", help: "Only Kindle/KOReader words looked up since this date (YYYY-MM-DD).") var since:
        SinceDate?
    @Option(name: "fields", valueName: "term,meaning", help: "Anki packages: the fields that hold the term and the meaning.") var fields:
        [String]
    @Flag(
        name: "no-duplicates",
        help: "Skip rows whose term is already in the library, or earlier in the file, spelled the same (case aside: año is not ano).")
    var noDuplicates = false
    @Flag(name: "dry-run", help: "Show the first rows as they would be read, and the counts; change nothing.") var dryRun = false
    @OptionGroup var output = OutputOptions.counts

    /// The names each --fields gives, trimmed: one (the term's) or two.
    private var fieldNames: [[String]] {
        fields.map { $0.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmed } }
    }

    func validate() throws(UsageError) {
        if fieldNames.contains(where: { $0.count > 2 || $0.contains(where: \.isEmpty) }) {
            throw UsageError("--fields takes one or two field names separated by a comma, as --fields Front,Back")
        }
    }

    func run(_ context: ToolContext) throws {
        var options = ImportOptions()
        options.format = format
        options.ankiFields = fieldNames
        options.skipDuplicates = noDuplicates
        options.dryRun = dryRun
        options.since = since?.time
        do {
            options.layout = ListLayout(
                separator: try separator.map(ListLayout.separator(named:)),
                cardSeparator: try cardSeparator.map(ListLayout.separator(named:)),
                columns: columns?.columns)
        } catch {
            throw UsageError(error.message)
        }
        let progress = context.progressLine(json: output.json)
        defer { progress.finish() }
        let name = ProgressLine.fileName(file)
        let report = try context.library().importWords(from: file, options: options) { done, total in
            progress.show("\(dryRun ? "Checking" : "Importing") \(name): \(ProgressLine.count(done, of: total))")
        }
        progress.finish()
        if output.json {
            context.io.write(Self.json(report, dryRun: dryRun) + "\n")
            return
        }
        let readAs = Self.readAs(report)
        if dryRun {
            context.io.write("Read \(name) as \(readAs)\n")
            context.io.write(Self.table(report))
            var line =
                report.splitWords > 0
                ? "Would import \(counted(report.added, "word")) for \(counted(report.rowCount, "word"))" + Self.split(report)
                : "Would import \(report.added) of \(counted(report.rowCount, "word"))"
            if report.skippedDuplicates > 0 { line += ", skip \(Self.skipped(report))" }
            if report.alreadyImported > 0 {
                line += ", leave out \(report.alreadyImported) look-ups imported before" + Self.inTrash(report)
            }
            context.io.write(line + ". Nothing was changed.\n")
            context.io.write(Self.leftOut(report))
            return
        }
        var line = "Imported \(counted(report.added, "word")) from \(name), read as \(readAs)" + Self.split(report)
        if report.skippedDuplicates > 0 { line += ", skipped \(Self.skipped(report))" }
        if report.alreadyImported > 0 {
            line += ", left out \(report.alreadyImported) look-ups imported before" + Self.inTrash(report)
        }
        context.io.write(line + "\n")
        context.io.write(Self.leftOut(report))
        if report.duplicatesAdded > 0, noDuplicates {
            context.note(
                "note: \(report.duplicatesAdded) imported terms differ only by accents (or ß and ss) from terms in the library or "
                    + "earlier in the file (año and ano, say): added as words of their own")
        } else if report.duplicatesAdded > 0 {
            context.note(
                "warning: \(report.duplicatesAdded) imported terms were already in the library or earlier in the file "
                    + "(added anyway; use --no-duplicates to skip them)")
        }
    }

    /// What the words made of a looked-up word's sentences past those one word holds are,
    /// or nothing when there are none.
    static func split(_ report: ImportReport) -> String {
        guard report.splitWords > 0 else { return "" }
        return " (\(report.splitWords) of them \(report.splitWords == 1 ? "holds" : "hold") the look-ups past the "
            + "\(WordLimits.exampleCount) sentences one word holds, under the same term)"
    }

    /// "MiDiccio CSV", or "a list without a header (tabs: term, meaning, notes)".
    static func readAs(_ report: ImportReport) -> String {
        guard let format = report.format else { return "?" }
        guard format == .list else { return format.title }
        let columns = report.columns.map(\.rawValue).joined(separator: ", ")
        let separator = (report.separator ?? "?") + (report.separatorLine ? ", as its sep= line says" : "")
        guard !report.firstRowNamesColumns else {
            let row = report.separatorLine ? "second" : "first"
            return "a list whose \(row) row names the columns (\(separator): \(columns))"
        }
        return "a list without a header (\(separator): \(columns))"
    }

    /// What reading an Anki package left out, a line each; empty when nothing was.
    static func leftOut(_ report: ImportReport) -> String {
        var text = ""
        if report.droppedMediaReferences > 0 {
            let count = report.droppedMediaReferences
            text += "Left out \(count) media reference\(count == 1 ? "" : "s") (sounds and images; MiDiccio keeps text)\n"
        }
        if report.notesWithoutTerm > 0 {
            let count = report.notesWithoutTerm
            text += "Left out \(count) note\(count == 1 ? "" : "s") whose term field has no text (an image only, say)\n"
        }
        if report.sentencesTooLong > 0 {
            let count = report.sentencesTooLong
            text +=
                "Left out \(count) look-up sentence\(count == 1 ? "" : "s") longer than an example may be "
                + "(\(WordLimits.textLength) characters)\n"
        }
        if report.notesOverLimit > 0 {
            let count = report.notesOverLimit
            text +=
                "Left out \(count) note\(count == 1 ? "" : "s") too long for a word"
                + (report.firstNoteOverLimit.map { " (the first: \($0.shownSafely))" } ?? "") + "\n"
        }
        return text
    }

    /// Of the look-ups imported before, those whose words are in the Trash now: an import
    /// undone and made again brought nothing back, and did not say where the words were.
    static func inTrash(_ report: ImportReport) -> String {
        let count = report.alreadyImportedInTrash
        guard count > 0 else { return "" }
        return " (\(count == report.alreadyImported ? "all" : "\(count)") of them in the Trash: restore them from there)"
    }

    /// The sample rows as a table: line, then every field that any sample row fills.
    static func table(_ report: ImportReport) -> String {
        let rows = report.sample
        guard !rows.isEmpty else { return "(no words)\n" }
        let fields: [(String, (SheetRow) -> String)] = [
            ("term", \.term), ("meaning", \.meaning), ("reading", \.reading),
            ("examples", { $0.examples.joined(separator: " / ") }), ("notes", \.notes),
            ("tags", { $0.tags.joined(separator: " ") }),
        ]
        let shown = fields.filter { field in field.0 == "term" || rows.contains { !field.1($0).isEmpty } }
        func cell(_ text: String) -> String {
            let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ⏎ ").shownSafely
            return flat.count > 30 ? String(flat.prefix(29)) + "…" : flat
        }
        let hasLines = rows.contains { $0.line > 0 }
        var table = [(hasLines ? ["line"] : []) + shown.map(\.0)]
        for row in rows {
            table.append((hasLines ? [String(row.line)] : []) + shown.map { cell($0.1(row)) })
        }
        let widths = (0..<table[0].count).map { column in table.map { $0[column].count }.max() ?? 0 }
        var text = ""
        for line in table {
            let padded = zip(line, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }
            text += "  " + padded.joined(separator: "  ").trimmingTrailingSpaces + "\n"
        }
        if report.rowCount > rows.count { text += "  … \(report.rowCount - rows.count) more\n" }
        return text
    }

    /// The rows `--no-duplicates` left out, and the first of their terms.
    static func skipped(_ report: ImportReport) -> String {
        let terms = report.skippedDuplicateTerms.map { "\"\($0.shownSafely)\"" }.joined(separator: ", ")
        let more = report.skippedDuplicates > report.skippedDuplicateTerms.count ? ", …" : ""
        return "\(report.skippedDuplicates) already in the library or earlier in the file (\(terms)\(more))"
    }

    static func json(_ report: ImportReport, dryRun: Bool) -> String {
        var pairs: [(String, String)] = [
            ("added", String(report.added)), ("skippedDuplicates", String(report.skippedDuplicates)),
            ("skippedDuplicateTerms", JSONText.array(report.skippedDuplicateTerms)),
            ("duplicatesAdded", String(report.duplicatesAdded)), ("alreadyImported", String(report.alreadyImported)),
            ("alreadyImportedInTrash", String(report.alreadyImportedInTrash)),
            ("sentencesTooLong", String(report.sentencesTooLong)),
            ("format", JSONText.optional(report.format?.rawValue)), ("rows", String(report.rowCount)),
            ("splitWords", String(report.splitWords)),
            ("dryRun", String(dryRun)),
        ]
        if report.format == .list {
            pairs.append(("separator", JSONText.optional(report.separator)))
            pairs.append(("header", String(report.firstRowNamesColumns)))
            pairs.append(("separatorLine", String(report.separatorLine)))
            pairs.append(("columns", JSONText.array(report.columns.map(\.rawValue))))
        }
        if report.format == .apkg || report.format == .colpkg {
            pairs.append(("droppedMediaReferences", String(report.droppedMediaReferences)))
            pairs.append(("notesWithoutTerm", String(report.notesWithoutTerm)))
            pairs.append(("notesOverLimit", String(report.notesOverLimit)))
            pairs.append(("firstNoteOverLimit", JSONText.optional(report.firstNoteOverLimit)))
        }
        if dryRun {
            let sample = report.sample.map { row in
                JSONText.object([
                    ("line", String(row.line)), ("term", JSONText.quote(row.term)), ("meaning", JSONText.quote(row.meaning)),
                    ("reading", JSONText.quote(row.reading)), ("examples", JSONText.array(row.examples)),
                    ("notes", JSONText.quote(row.notes)), ("tags", JSONText.array(row.tags)),
                ])
            }
            pairs.append(("sample", "[" + sample.joined(separator: ", ") + "]"))
        }
        return JSONText.object(pairs, spaced: true)
    }
}

/// `midiccio import undo`
struct ImportUndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["import", "undo"],
        abstract: "Move the words of the last import to the Trash (one step); words edited since are kept.")

    @OptionGroup var output = OutputOptions.counts
    @OptionGroup var syncOnOpen: SyncOnOpen

    func run(_ context: ToolContext) throws {
        // Words edited on other devices since the import are kept only if their edits are
        // here: pulled first (an undo without it moved them to the Trash everywhere).
        try syncOnOpen.runOrStop(context, consequence: "words edited on other devices and not pulled yet would go to the Trash too")
        let progress = context.progressLine(json: output.json)
        defer { progress.finish() }
        let report = try context.library().undoImport { done, total in
            progress.show("Undoing the import: \(ProgressLine.count(done, of: total))")
        }
        progress.finish()
        if output.json {
            context.io.write(JSONText.object(report.jsonMembers, spaced: true) + "\n")
            return
        }
        context.io.write("Undid the last import: \(counted(report.trashed, "word")) moved to the Trash\n")
        if let source = report.source { context.note("That was the import of \(source.described.shownSafely).") }
        if report.trashedStudied > 0 { context.note(studiedAndTrashedNote(report.trashedStudied)) }
        if report.keptEdited > 0 {
            context.note(
                "\(report.keptEdited) \(report.keptEdited == 1 ? "word was" : "words were") changed since the import "
                    + "(edited, or moved to the Trash and back) and kept; "
                    + "delete \(report.keptEdited == 1 ? "it" : "them") yourself if you want.")
        }
        // So the counts add up to the import's (round 16B: nothing named these).
        if report.alreadyGone > 0 {
            context.note(
                "\(report.alreadyGone) \(report.alreadyGone == 1 ? "word was" : "words were") in the Trash already, "
                    + "or deleted permanently, and left as \(report.alreadyGone == 1 ? "it was" : "they were").")
        }
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

extension ImportFormat: ExpressibleByArgument {
    /// `--format Kindle` is as clear as `--format kindle`.
    package init?(argument text: String) { self.init(rawValue: text.lowercased()) }
}

/// A `--columns` value, checked as it is read.
struct ListColumns: ExpressibleByArgument {
    let columns: [ListColumn]

    init?(argument text: String) {
        guard let columns = try? ListColumn.list(text) else { return nil }
        self.columns = columns
    }

    static var expectation: String { "a list of term, meaning, reading, examples, notes, tags, skip" }

    static func refusal(of text: String, as shownName: String) -> String {
        do {
            _ = try ListColumn.list(text)
            return "\(shownName) must be \(expectation)"
        } catch {
            return error.message
        }
    }
}

/// A `--since` value: a date, or a full time.
struct SinceDate: ExpressibleByArgument {
    let time: Timestamp

    init?(argument text: String) {
        guard let time = ImportOptions.time(since: text) else { return nil }
        self.time = time
    }

    static var expectation: String { "a date as YYYY-MM-DD (or YYYY-MM-DDTHH:MM:SSZ)" }
}

/// What an undo says of the `count` words it moved to the Trash that had been studied.
func studiedAndTrashedNote(_ count: Int) -> String {
    "\(count) of them had been studied: their answers stay with them in the Trash, and come back if you restore "
        + (count == 1 ? "it." : "them.")
}
