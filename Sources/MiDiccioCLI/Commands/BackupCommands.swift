import MiDiccioKit

private func describe(_ report: RestoreReport) -> String {
    "\(report.added) added, \(report.updated) updated, \(report.unchanged) unchanged, \(report.trashed) moved to the Trash"
}

private func json(_ report: RestoreReport, dryRun: Bool = false) -> String {
    JSONText.object([("added", String(report.added)), ("updated", String(report.updated)),
                     ("unchanged", String(report.unchanged)), ("trashed", String(report.trashed)),
                     ("dryRun", String(dryRun))], spaced: true) + "\n"
}

/// `midiccio backup export`
struct BackupExportCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["backup", "export"], abstract: "Write every word, Trash included, to a JSON backup file.",
        arguments: [ArgumentSpec(name: "file", help: "Where to write the backup.")],
        examples: ["midiccio backup export ~/midiccio-backup.json"])

    let file: String
    init(_ arguments: ParsedArguments) throws { file = arguments.positionals[0] }

    func run(_ context: ToolContext) throws {
        let count = try context.library().exportBackup(to: file)
        context.io.write("Backed up \(count) words to \(file)\n")
    }
}

/// `midiccio backup restore`
struct BackupRestoreCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["backup", "restore"], abstract: "Restore words from a JSON backup file.",
        discussion: """
            The whole file is checked first; a bad file changes nothing. By default the backup is merged:
            a backup word newer than the library's copy (or missing) replaces it; a newer library word stays.
            With --replace the library becomes equal to the backup: words not in it go to the Trash.
            Restored words reach your other devices. 'midiccio backup undo' reverses the last restore.
            """,
        arguments: [ArgumentSpec(name: "file", help: "The backup file.")],
        options: [
            OptionSpec(name: "replace", help: "Make the library equal to the backup."),
            OptionSpec(name: "dry-run", help: "Only report what would change."),
            OptionSpec(name: "json", help: "Print the counts as JSON."),
        ],
        examples: ["midiccio backup restore ~/midiccio-backup.json", "midiccio backup restore old.json --replace --dry-run"])

    let file: String
    let replace: Bool
    let dryRun: Bool

    init(_ arguments: ParsedArguments) throws {
        file = arguments.positionals[0]
        replace = arguments.flag("replace")
        dryRun = arguments.flag("dry-run")
    }

    func run(_ context: ToolContext) throws {
        let report = try context.library().restoreBackup(from: file, replace: replace, dryRun: dryRun)
        if context.json {
            context.io.write(json(report, dryRun: dryRun))
        } else {
            context.io.write((dryRun ? "Would restore: " : "Restored: ") + describe(report) + "\n")
            if !dryRun { context.note("Changed your mind? 'midiccio backup undo' puts the words back as they were.") }
        }
    }
}

/// `midiccio backup undo`
struct BackupUndoCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["backup", "undo"], abstract: "Undo the last backup restore (one step).",
        options: [OptionSpec(name: "json", help: "Print the counts as JSON.")])

    init(_ arguments: ParsedArguments) throws {}

    func run(_ context: ToolContext) throws {
        let report = try context.library().undoRestore()
        context.io.write(context.json ? json(report) : "Undid the last restore: " + describe(report) + "\n")
    }
}

/// `midiccio import`
struct ImportCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["import"], abstract: "Import words from CSV, TSV or an Anki plain-text export.",
        discussion: """
            CSV/TSV files start with a header naming columns: term,meaning,reading,examples,notes,tags
            (examples one per line in their cell, tags separated by spaces). Anki's "Notes in Plain Text"
            export is recognised by its #separator: / #html: / #tags column: lines.
            All or nothing: a bad row is reported with its line number and nothing is imported.
            """,
        arguments: [ArgumentSpec(name: "file", help: "The file to import.")],
        options: [
            OptionSpec(name: "format", valueName: "csv|tsv", help: "The file's format (default: detected from its content)."),
            OptionSpec(name: "no-duplicates", help: "Skip rows whose term is already in the library."),
            OptionSpec(name: "json", help: "Print the counts as JSON."),
        ],
        examples: ["midiccio import words.csv", "midiccio import anki-deck.txt"])

    let file: String
    let format: SheetFormat?
    let skipDuplicates: Bool

    init(_ arguments: ParsedArguments) throws {
        file = arguments.positionals[0]
        format = try sheetFormat(arguments, spec: Self.spec)
        skipDuplicates = arguments.flag("no-duplicates")
    }

    func run(_ context: ToolContext) throws {
        let showProgress = context.io.errorIsTerminal
        let report = try context.library().importSheet(from: file, format: format, skipDuplicates: skipDuplicates) { done, total in
            if showProgress { context.io.writeError("\rImporting \(done)/\(total)" + (done == total ? "\n" : "")) }
        }
        if context.json {
            context.io.write(JSONText.object([("added", String(report.added)), ("skippedDuplicates", String(report.skippedDuplicates)),
                                              ("duplicatesAdded", String(report.duplicatesAdded))], spaced: true) + "\n")
        } else {
            var line = "Imported \(report.added) words"
            if report.skippedDuplicates > 0 { line += ", skipped \(report.skippedDuplicates) already in the library" }
            context.io.write(line + "\n")
            if report.duplicatesAdded > 0 {
                context.note("warning: \(report.duplicatesAdded) imported terms were already in the library (use --no-duplicates to skip them)")
            }
        }
    }
}

/// `midiccio export`
struct ExportCommand: ToolCommand {
    static let spec = CommandSpec(
        path: ["export"], abstract: "Export words (not the Trash) as CSV or TSV.",
        arguments: [ArgumentSpec(name: "file", help: "Where to write.")],
        options: [OptionSpec(name: "format", valueName: "csv|tsv", help: "The format (default: from the file name, else csv).")],
        examples: ["midiccio export words.csv", "midiccio export words.tsv"])

    let file: String
    let format: SheetFormat

    init(_ arguments: ParsedArguments) throws {
        file = arguments.positionals[0]
        format = try sheetFormat(arguments, spec: Self.spec) ?? (file.lowercased().hasSuffix(".tsv") ? .tsv : .csv)
    }

    func run(_ context: ToolContext) throws {
        let count = try context.library().exportSheet(to: file, format: format)
        context.io.write("Exported \(count) words to \(file)\n")
    }
}

private func sheetFormat(_ arguments: ParsedArguments, spec: CommandSpec) throws -> SheetFormat? {
    guard let text = arguments.value("format") else { return nil }
    guard let format = SheetFormat(rawValue: text.lowercased()) else {
        throw UsageError(message: "--format must be csv or tsv, not '\(text)'", spec: spec)
    }
    return format
}
