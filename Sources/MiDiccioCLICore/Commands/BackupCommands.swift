import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel
import MiDiccioSync

private func describe(_ report: RestoreReport, dryRun: Bool) -> String {
    let skipped =
        report.skippedPurged == 0
        ? ""
        : ", \(report.skippedPurged) left out (deleted permanently since the backup; --replace brings them back as new words)"
    let answers = report.answersAdded == 0 ? "" : ", \(report.answersAdded) study answer\(report.answersAdded == 1 ? "" : "s") added"
    // The backup's settings taken, kept and left out: they change how this library studies
    // and cleans its Trash.
    let settings = report.settingsNote(dryRun: dryRun).map { "; " + $0 } ?? ""
    return "\(report.added) added, \(report.updated) updated, \(report.unchanged) unchanged, \(report.trashed) moved to the Trash"
        + skipped + answers + settings
}

private func json(_ report: RestoreReport, dryRun: Bool = false) -> String {
    JSONText.object(report.jsonMembers(dryRun: dryRun), spaced: true) + "\n"
}

/// `midiccio backup export`
struct BackupExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["backup", "export"], abstract: "Write every word, Trash included, to a JSON backup file.",
        examples: ["midiccio backup export ~/midiccio-backup.json"])

    @Argument(name: "file", help: "Where to write the backup (an earlier backup there is replaced).") var file: String
    @Flag(name: "overwrite", help: "Replace the file even when it is not a MiDiccio backup.") var overwrite = false

    func run(_ context: ToolContext) throws {
        let count = try context.library().exportBackup(to: file, overwrite: overwrite)
        context.io.write("Backed up \(counted(count, "word")) to \(file)\n")
    }
}

/// `midiccio backup restore`
struct BackupRestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["backup", "restore"], abstract: "Restore words from a JSON backup file, or from another library file.",
        discussion: """
            The whole file is checked before anything of it is restored; a bad file restores nothing. By default the backup is merged:
            each field the backup holds newer than the library's copy (or a word missing here) is taken;
            newer fields here stay. (A backup without field times, from before 2026-12-04: a backup word
            newer than the library's copy replaces it whole.)
            With --replace the library becomes equal to the backup: words not in it go to the Trash, and every
            word of the backup gets a new time, so it wins on every device (into a library that holds no
            words, a replace merges instead). The library syncs first, so that edits made on other devices
            are seen (--offline: not). Restored words reach your other devices. 'midiccio backup undo'
            reverses the last restore. The backup's settings (study limits and retention, trash.hideAfterDays)
            are taken where they were set later there than here, or never here; trash.autoPurgeDays is never
            turned on by a restore.
            The file can also be another MiDiccio library file (a conflict copy a sync program set aside
            beside your library, an older copy from a backup): its words are restored as a backup of it
            would be, and the file itself is left as it was.
            """,
        examples: [
            "midiccio backup restore ~/midiccio-backup.json", "midiccio backup restore old.json --replace --dry-run",
            "midiccio backup restore 'library (conflicted copy 2026-12-05).sqlite'",
        ])

    @Argument(name: "file", help: "The backup file, or another library file.") var file: String
    @Flag(name: "replace", help: "Make the library equal to the backup.") var replace = false
    @Flag(name: "dry-run", help: "Only report what would change.") var dryRun = false
    @OptionGroup var output = OutputOptions.counts
    @OptionGroup var syncOnOpen: SyncOnOpen

    func run(_ context: ToolContext) throws {
        // Edits other devices made are pulled first: a replace gives every word of the
        // backup a new time, and one left as it is here but edited elsewhere, not yet
        // pulled, lost that edit on every device while the report said it was unchanged
        // and the undo had nothing to put back (found by the exploratory helper).
        // A replace does not go on without that sync: its undo could not bring such an edit
        // back (found by the exploratory helper, round 8). A dry run changes nothing.
        if replace && !dryRun {
            try syncOnOpen.runOrStop(
                context, consequence: "an edit another device made and this one has not pulled would be replaced too, on every device")
        } else {
            try syncOnOpen.run(
                context,
                otherwise: replace ? "checking against the words on this device" : "restoring into the words on this device")
        }
        let progress = context.progressLine(json: output.json)
        defer { progress.finish() }
        let name = ProgressLine.fileName(file)
        let library = try context.library()
        let shown: (Int, Int) -> Void = { done, total in
            progress.show("\(dryRun ? "Checking" : "Restoring") \(name): \(ProgressLine.count(done, of: total))")
        }
        // Another library file (a conflict copy a sync program set aside, an older copy
        // from a backup) is restored as a backup of it would be.
        let report =
            library.restoresAsLibraryFile(file)
            ? try library.restoreLibraryFile(from: file, replace: replace, dryRun: dryRun, progress: shown)
            : try library.restoreBackup(from: file, replace: replace, dryRun: dryRun, progress: shown)
        progress.finish()
        if output.json {
            context.io.write(json(report, dryRun: dryRun))
        } else {
            context.io.write((dryRun ? "Would restore: " : "Restored: ") + describe(report, dryRun: dryRun) + "\n")
            if let note = report.strayTimesNote { context.note(note) }
            if let note = report.differingAtSameTimeNote { context.note(note.shownSafely) }
            if report.mergedIntoEmpty {
                context.note(
                    "The library held no words, so the backup \(dryRun ? "would be" : "was") merged, not replacing: its words keep their own times, and edits your other devices made after the backup win when this library syncs with them."
                )
            } else if replace && !report.changedWords && report.unchanged > 0 {
                context.note(
                    "The library \(dryRun ? "equals" : "already equalled") the backup: every word of it \(dryRun ? "would get" : "got") a new time, so it wins on every device this library syncs with"
                        + (report.earlierUndoKept
                            ? ", and 'midiccio backup undo' still undoes the restore before."
                            : "; no restore came before it, and the new times cannot be undone.")
                )
            } else if replace && report.unchanged > 0 {
                context.note(
                    "Every word of the backup \(dryRun ? "would get" : "got") a new time, so it wins on every device this library syncs with: the \(report.unchanged) unchanged here too."
                )
            }
            if !dryRun && report.changedWords {
                context.note("Changed your mind? 'midiccio backup undo' puts the words back as they were.")
            }
        }
    }
}

/// `midiccio backup undo`
struct BackupUndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(path: ["backup", "undo"], abstract: "Undo the last backup restore (one step).")

    @OptionGroup var output = OutputOptions.counts
    @OptionGroup var syncOnOpen: SyncOnOpen

    func run(_ context: ToolContext) throws {
        // Edits made on other devices since the restore are kept only if they are here:
        // pulled first (an undo without it put back the older value over another device's edit).
        // Not for a restore no sync has met: that sync would send it, and its new times would
        // beat what other devices edited before it; undone first, its words go back with their
        // own times, and the next sync merges the other devices' edits as if it had not been
        // made (round 22A #3).
        if try !context.library().restoreUnsent() {
            try syncOnOpen.runOrStop(
                context, consequence: "edits other devices made since the restore and this one has not pulled would be undone too")
        }
        let report = try context.library().undoRestore()
        let kept =
            (report.keptEdited == 0 ? "" : "; \(report.keptEdited) edited since the restore, their edits kept")
            + (report.keptHeldElsewhere == 0
                ? "" : "; \(report.keptHeldElsewhere) kept as another device holds them, its own changes synced from there")
        // In the words of the undo, as the web app says it: the restore's "added, updated"
        // read as if the undo had added words, and a word it took out of the Trash was
        // "updated" (round 11B, item 8).
        let undone = "\(counted(report.updated, "word")) put back as before the restore, \(report.trashed) moved to the Trash"
        context.io.write(output.json ? json(report) : "Undid the last restore: " + undone + kept + "\n")
        if !output.json, let source = report.source { context.note("That was the restore of \(source.described.shownSafely).") }
        if !output.json && report.trashedStudied > 0 { context.note(studiedAndTrashedNote(report.trashedStudied)) }
        if !output.json && report.undoneBeforeSync { context.note(RestoreReport.undoneBeforeSyncNote) }
        if !output.json, let note = report.settingsLeftByUndoNote { context.note(note) }
        if !output.json, let note = report.purgedSinceRestoreNote { context.note(note.shownSafely) }
    }
}

/// `midiccio export`
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["export"], abstract: "Export words (not the Trash) as CSV or TSV.",
        examples: ["midiccio export words.csv", "midiccio export words.tsv", "midiccio export words.csv --study-columns"])

    @Argument(name: "file", help: "Where to write (an earlier export there is replaced).") var file: String
    @Option(name: "format", help: "The format (default: from the file name, else csv).") var format: SheetFormat?
    @Flag(name: "study-columns", help: "Add each word's due time and study state as the columns due and state (import skips them).")
    var studyColumns = false
    @Flag(name: "overwrite", help: "Replace the file even when it is not a MiDiccio CSV or TSV export.") var overwrite = false

    func run(_ context: ToolContext) throws {
        let count = try context.library().exportSheet(
            to: file, format: format ?? (file.lowercased().hasSuffix(".tsv") ? .tsv : .csv), studyColumns: studyColumns,
            overwrite: overwrite)
        context.io.write("Exported \(counted(count, "word")) to \(file)\n")
    }
}

extension SheetFormat: ExpressibleByArgument {
    /// `--format CSV` is as clear as `--format csv`.
    package init?(argument text: String) { self.init(rawValue: text.lowercased()) }
}
