import Foundation
import MiDiccioFiles
import MiDiccioModel
import MiDiccioStore

/// How to import a file; the defaults recognise everything.
public struct ImportOptions: Sendable, Hashable {
    /// The format; nil recognises it from the content.
    public var format: ImportFormat?
    /// Separators and columns of a list without a header.
    public var layout = ListLayout()
    /// Only Kindle look-ups and KOReader words from this time on.
    public var since: Timestamp?
    /// Anki packages: choices of the term's and the meaning's fields, one or two names
    /// each (`AnkiPackage.read`); empty takes the first two fields of each note type.
    public var ankiFields: [[String]] = []
    /// Skip rows whose term is already in the library.
    public var skipDuplicates = false
    /// Read, check and count everything, then change nothing.
    public var dryRun = false
    /// How many rows `ImportReport.sample` holds.
    public var sampleSize = 10

    /// Options that recognise the format and import every row.
    public init() {}
}

/// What an import did, or with `dryRun` would do.
public struct ImportReport: Hashable, Sendable {
    /// Words added.
    public var added = 0
    /// Rows skipped because their term, spelled the same but for case and invisible
    /// characters (`TermKey.spelling`), was already in the library or earlier in the file
    /// (with `skipDuplicates`).
    public var skippedDuplicates = 0
    /// The first five terms of `skippedDuplicates`, as the file spells them.
    public var skippedDuplicateTerms: [String] = []
    /// Rows added although their term was already in the library.
    public var duplicatesAdded = 0
    /// Kindle look-ups (and KOReader words) left out because an earlier import brought them.
    public var alreadyImported = 0
    /// Of `alreadyImported`, those whose words are all in the Trash now (an import undone,
    /// say): restored from there, they are back.
    public var alreadyImportedInTrash = 0
    /// Kindle and KOReader look-up sentences left out because they are longer than an
    /// example may be (`WordLimits.textLength`): one of them refused the whole file.
    public var sentencesTooLong = 0
    /// Media references (sounds, images) left out of the words (Anki packages).
    public var droppedMediaReferences = 0
    /// Notes left out because their term field holds no text (Anki packages).
    public var notesWithoutTerm = 0
    /// Notes left out because no word can hold them (a field past its limit), and why
    /// the first one was (Anki packages).
    public var notesOverLimit = 0
    public var firstNoteOverLimit: String?
    /// The format the file was read as.
    public var format: ImportFormat?
    /// For a list without a header: the separator found or given, in words ("tabs").
    public var separator: String?
    /// For a list without a header: what each position went to.
    public var columns: [ListColumn] = []
    /// For a list: its first row named the columns (`term;meaning;tags`), and was left out.
    public var firstRowNamesColumns = false
    /// For a list: its first line named the separator as Excel writes it (`sep=;`), and was
    /// left out.
    public var separatorLine = false
    /// Words in the file (before duplicates and earlier imports are left out).
    public var rowCount = 0
    /// Words made of a Kindle or KOReader word's look-ups past the sentences one word holds
    /// (`WordLimits.exampleCount`): its term again, never counted or skipped as a duplicate.
    public var splitWords = 0
    /// The first rows, as they are read.
    public var sample: [SheetRow] = []
    /// For a list without a header: the fields of the sample rows as the file had them.
    public var sampleFields: [[String]] = []

    /// Makes an empty report.
    public init() {}
}

/// The rows of a file and how they were read.
private struct ReadImport {
    var format: ImportFormat
    /// A sheet (`SheetSource`), a Kindle or KOReader database or an Anki package, read
    /// row by row while its words are written: a million rows are never held at once.
    var stream: any ImportedRows
}

/// What undoing an import did.
public struct ImportUndoReport: Hashable, Sendable {
    /// Words the import added that went to the Trash.
    public var trashed = 0
    /// Words edited since the import, kept as they are.
    public var keptEdited = 0
    /// Words already in the Trash, or deleted permanently, left as they are.
    public var alreadyGone = 0
    /// Of `trashed`, words studied since the import: their answers stay with them in the
    /// Trash, and come back when they are restored.
    public var trashedStudied = 0
    /// The import undone: its file and when it ran (nil for an import from before
    /// 2026-12-05, which noted neither).
    public var source: UndoSource?

    /// The report as JSON members, for the command line's `--json` and the web app.
    package var jsonMembers: [(String, String)] {
        [
            ("trashed", String(trashed)), ("keptEdited", String(keptEdited)), ("alreadyGone", String(alreadyGone)),
            ("trashedStudied", String(trashedStudied)), ("undid", JSONText.optional(source?.described)),
        ]
    }

    /// Makes an empty report.
    public init() {}
}

private struct ImportDryRun: Error {}

/// What the library holds of one term, to leave out look-ups imported before: the
/// examples of its words, and whether they are all in the Trash.
struct KnownLookups {
    var examples = Set<String>()
    var inTrashOnly = true
}

/// The look-ups a library imported before (`imported_lookups`), by fingerprint: they
/// stay known after their words were deleted permanently or edited.
struct ImportedLookups: Sendable {
    var fingerprints = Set<Int64>()

    /// The fingerprint of a look-up of the term whose key is `termKey`, with `sentence`
    /// ("" for none): 64 bits of FNV-1a, no text.
    static func fingerprint(termKey: String, sentence: String) -> Int64 {
        var hash = FNV1a()
        hash.add(termKey.utf8)
        hash.add(UInt8(0))
        hash.add(sentence.utf8)
        return Int64(bitPattern: hash.value)
    }

    func contains(termKey: String, sentence: String) -> Bool {
        fingerprints.contains(Self.fingerprint(termKey: termKey, sentence: sentence))
    }
}

/// Ends the reading of a list once its first card is read.
private struct FirstCardRead: Error {}

/// Where an import reads a sheet's rows from, while it writes them.
private enum SheetSource: ImportedRows {
    /// A MiDiccio CSV or TSV read from its file a megabyte at a time (checked as UTF-8
    /// first), with the rows its lines make, as far as they tell.
    case file(path: String, format: SheetFormat, rows: Int)
    /// An Anki plain-text export read from its file a megabyte at a time from its notes on
    /// (byte `offset`), with its fields' targets found in a first pass (the widest note's),
    /// and its notes counted.
    case anki(path: String, notes: WordSheet.AnkiNotes, offset: Int, targets: WordSheet.AnkiFieldTargets, rows: Int)
    /// Text read whole: an Anki text export whose header the first megabyte does not
    /// settle (read whole by `WordSheet`).
    case text(String, format: SheetFormat?)
    /// A list without a header, read from its file a megabyte at a time like a MiDiccio
    /// sheet (`ListReading`).
    case list(ListReading)

    /// About how many words the sheet holds, from its lines (a header line and a line
    /// without a final line break taken into account): exact unless a field spans lines
    /// or lines are blank. Sheets are read while they are written, so this is the total
    /// their progress reports and the size of the write they announce.
    var estimatedRows: Int {
        switch self {
        case .file(_, _, let rows), .anki(_, _, _, _, let rows): return rows
        case .list(let list): return list.rows
        case .text(let text, _):
            var scan = FileSystem.TextScan()
            scan.add(text.utf8)
            return Self.rows(scan)
        }
    }

    /// The rows after the header that the lines `scan` counted make.
    static func rows(_ scan: FileSystem.TextScan) -> Int { max(scan.lines - 1, 0) }

    func forEachRow(_ body: (SheetRow) throws -> Void) throws {
        try forEachRowWithFields { row, _ in try body(row) }
    }

    /// Each row of a MiDiccio CSV/TSV, an Anki text export or a list without a header
    /// (with its fields as the file had them).
    func forEachRowWithFields(_ body: (SheetRow, [String]?) throws -> Void) throws {
        switch self {
        case .file(let path, let format, _):
            try WordSheet.forEachRow(pieces: try filePieces(path), format: format) { try body($0, nil) }
        case .anki(let path, let notes, let offset, let targets, _):
            try WordSheet.forEachAnkiRecord(pieces: try filePieces(path, from: offset), notes: notes) { record in
                if let row = try notes.row(record, targets: targets) { try body(row, nil) }
            }
        case .text(let text, let format):
            try WordSheet.forEachRow(text, format: format) { try body($0, nil) }
        case .list(let list):
            var leading = list.leadingCards
            let namedBy = list.columnsGiven ? "--columns" : list.header ? "the header" : "the widest row"
            try HeaderlessList.forEachCard(pieces: try filePieces(list.path), cutting: list.cutting) { card in
                if leading > 0 { return leading -= 1 }
                let (row, fields) = try HeaderlessList.row(card, columns: list.columns, namedBy: namedBy, unescapes: list.unescapes)
                try body(row, fields)
            }
        }
    }
}

/// A list without a header, cut as `cutting` says, with the columns found in a first pass
/// (the widest card's), given, or named by its first card, and its cards counted.
private struct ListReading {
    let path: String
    let cutting: ListCutting
    let columns: [ListColumn]
    /// True when `--columns` gave the columns.
    let columnsGiven: Bool
    /// True when a card names the columns (`HeaderlessList.header`): it is left out.
    let header: Bool
    /// True when that card names an export's columns: its cells are taken as the export
    /// wrote them (`WordSheet.spreadsheetUnescaped`).
    let unescapes: Bool
    /// The cards before the first word, left out: Excel's `sep=` line, the header.
    let leadingCards: Int
    /// The rows expected, for progress.
    let rows: Int
}

/// A word id as two integers, for an import to hold and sort a million of them in 16 MB:
/// they compare as the id's text does (its bytes, most significant first).
private struct ImportIDKey: Comparable {
    var high: UInt64
    var low: UInt64

    init(_ id: WordID) {
        // The 32 hex digits of the checked, lowercase text, four bits each (no array per
        // id: an import converts a million of them).
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        for character in id.rawValue.utf8 where character != 0x2D {
            let value = UInt64(character <= 0x39 ? character &- 0x30 : character &- 0x57)
            if digits < 16 { high = high << 4 | value } else { low = low << 4 | value }
            digits += 1
        }
        self.high = high
        self.low = low
    }

    /// The id again, in the text `WordID` keeps.
    var id: WordID {
        let text = String(unsafeUninitializedCapacity: 36) { text in
            var at = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    text[at] = 0x2D
                    at += 1
                }
                let value = UInt8(truncatingIfNeeded: (digit < 16 ? high : low) >> (4 * UInt64(15 - digit % 16)) & 0xF)
                text[at] = value < 10 ? 0x30 + value : 0x57 + value
                at += 1
            }
            return at
        }
        return WordID(uncheckedRawValue: text)
    }

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}

/// A term key as 128 bits, for an import to tell the terms it has seen at 16 bytes each:
/// a million keys of more than 15 bytes took about 60 MB as strings. Two SipHash values
/// of the key with the process's random seed, so no file can be made to collide them;
/// two different keys share a digest with a chance of about one in 10^38 per pair.
private struct TermKeyDigest: Hashable {
    let first: UInt64
    let second: UInt64

    init(_ key: String) {
        var hasher = Hasher()
        hasher.combine(key)
        first = UInt64(bitPattern: Int64(hasher.finalize()))
        hasher = Hasher()
        hasher.combine(0x5bd1_e995 as UInt32)
        hasher.combine(key)
        second = UInt64(bitPattern: Int64(hasher.finalize()))
    }
}

/// Rows of a sheet, checked, on their way from the reading thread to the writer.
private struct SheetBatch: Sendable {
    /// Each row's word and the columns computed from it (its term key among them), in
    /// file order.
    /// `continues`: a word of the look-ups past those one word holds (`splitWords`).
    var words: [(content: WordContent, columns: WordLibrary.NewWordColumns, continues: Bool)] = []
    /// The first rows of the file, for `ImportReport.sample`.
    var sample: [SheetRow] = []
    /// A list's first rows as its fields were (`ImportReport.sampleFields`).
    var sampleFields: [[String]] = []
    /// Rows of the file these words come from (a Kindle word's examples may make several
    /// words, or none when its look-ups were imported before).
    var rowsRead = 0
    /// Kindle look-ups among these rows that an earlier import brought.
    var alreadyImported = 0
    /// Of them, those whose words are all in the Trash.
    var alreadyImportedInTrash = 0
    /// Look-up sentences left out as longer than an example may be.
    var sentencesTooLong = 0
    /// Their look-ups' fingerprints (`ImportedLookups.fingerprint`): noted as imported with
    /// the rest, so the same file imported again leaves them out rather than adding their
    /// word again, without them, each time (round 19B F11).
    var leftOutLookups: [Int64] = []
}

extension WordLibrary {
    /// Imports words from any format `ImportFormat` names.
    ///
    /// All or nothing: every row is read and checked first; a bad row throws
    /// `invalidImport` with its line (or its term, in a database) and field, and nothing
    /// is imported. The words added are remembered for `undoImport()` (one step).
    /// A Kindle look-up whose sentence is already an example of a word with its term
    /// (in the Trash too) counts as imported before and is left out, so importing the
    /// same `vocab.db` again adds only new look-ups, on any device the words synced to.
    /// `progress` is called with (rows done, rows to write) once the file is checked, then
    /// every `progressInterval` rows while writing, and last when every row is done.
    public func importWords(
        from path: String, options: ImportOptions = ImportOptions(),
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> ImportReport {
        let read = try readImport(path, options: options)
        // The unpacked Anki collection goes as the import ends, whatever ends it: the
        // reading thread has stopped by then (`Handoff.run` returns only once it has).
        defer { (read.stream as? AnkiPackage.Words)?.removeUnpacked() }
        var report = ImportReport()
        report.format = read.format
        if case .list(let list) = read.stream as? SheetSource {
            report.separator = HeaderlessList.describe(list.cutting.separator)
            report.columns = list.columns
            report.firstRowNamesColumns = list.header
            report.separatorLine = list.leadingCards > (list.header ? 1 : 0)
        }
        // How many words, estimated from a sheet's lines or cards or a database's look-ups.
        let most = read.stream.estimatedRows
        do {
            return try writingInBulk(expectedWords: most, onlyAddsWords: true) {
                let total = most
                progress?(0, total)
                // Every term already in the library, read once: a query per row cost more
                // than the rest of the duplicate handling.
                var seenKeys = Set<TermKeyDigest>()
                try database.cached("SELECT term_key FROM words WHERE deleted_at IS NULL").forEachRow { row in
                    seenKeys.insert(TermKeyDigest(row.text(0)))
                }
                // Skipping goes by spelling, not by the key: an accent is a word of its own
                // ("año" and "ano"), and the key made 13 of 25 words of a list one of
                // another, skipped as "already in the library" (found by the exploratory
                // helper, round 11). Only terms the key finds alike are compared.
                var seenSpellings = Set<String>()
                if options.skipDuplicates {
                    try database.cached("SELECT term FROM words WHERE deleted_at IS NULL").forEachRow { row in
                        seenSpellings.insert(TermKey.spelling(row.text(0)))
                    }
                }
                let now = clock.now()
                // A Kindle or KOReader import notes each look-up it brings (`imported_lookups`)
                // under its own number, which its undo forgets.
                let lookupImport =
                    read.stream is any LookupRows
                    ? (try database.integer("SELECT coalesce(max(import), 0) + 1 FROM imported_lookups") ?? 1) : nil
                // Random ids, all drawn first and handed out in sorted order: each new entry
                // of the unique id index (and of the undo table's) then lands after the
                // previous one instead of anywhere in it, which at a million words is most of
                // an import's time. Kept as their 16 bytes (16 MB for a million, where the
                // ids as text took 100), which sort as the text does. Sorted blocks of
                // 65,536 each scattered over the whole index again: 12x the time of 100,000.
                var ids: [ImportIDKey] = []
                var drawn = 0
                let lastRowBefore = try database.integer("SELECT max(seq) FROM words") ?? 0
                var done = 0
                // Words ready to write, written a batch at a time (`insertNew`).
                var ready: [NewRow] = []
                let times = FieldTimes(all: now)
                func writeReady() throws {
                    try insertNew(ready, pending: true)
                    report.added += ready.count
                    ready.removeAll(keepingCapacity: true)
                }
                // The word `add` skipped last as a duplicate: the rest of its sentences go too.
                var skippingWord = false
                func add(_ content: WordContent, columns: NewWordColumns, continues: Bool) throws {
                    if let progress, done > 0, done % Self.progressInterval == 0 { progress(done, max(total, done)) }
                    done += 1
                    // The rest of one looked-up word's sentences is that word still: neither
                    // skipped nor counted as a duplicate (found by the exploratory helper,
                    // round 26B #5: `--no-duplicates` left 70 of 120 look-ups out as terms
                    // "already in the library or earlier in the file").
                    // One skipped as a duplicate is skipped whole.
                    if continues && skippingWord { return }
                    skippingWord = false
                    if continues { report.splitWords += 1 }
                    let isDuplicate = !seenKeys.insert(TermKeyDigest(columns.termKey)).inserted && !continues
                    if options.skipDuplicates, !seenSpellings.insert(TermKey.spelling(content.term)).inserted, !continues {
                        skippingWord = true
                        report.skippedDuplicates += 1
                        if report.skippedDuplicateTerms.count < 5 { report.skippedDuplicateTerms.append(content.term) }
                        return
                    }
                    if isDuplicate { report.duplicatesAdded += 1 }
                    if let lookupImport { try noteImportedLookups(content, import: lookupImport) }
                    if ids.isEmpty {
                        // All the rows the file's lines promise, then (rows the estimate
                        // missed) a thousand at a time.
                        let block = min(ImportLimits.rows, most > drawn ? most - drawn : 1_024)
                        ids = (0..<block).map { _ in ImportIDKey(randomID()) }
                        ids.sort(by: >)
                        drawn += block
                    }
                    let word = Word(
                        id: ids.removeLast().id, term: content.term, meaning: content.meaning, reading: content.reading,
                        examples: content.examples, notes: content.notes, tags: content.tags,
                        createdAt: now, updatedAt: now)
                    ready.append(NewRow(word: word, times: times, writers: StoredWord.localWriters, columns: columns))
                    if ready.count == Self.importBatchRows { try writeReady() }
                }
                // Rows of a sheet or a database are read and checked on another thread while
                // this one writes them (`Handoff`); the first bad row still ends the import
                // with nothing written, as the transaction is rolled back.
                let stream = read.stream
                let locale = collation.locale
                let sampleSize = options.sampleSize
                // Kindle and KOReader rows are checked once earlier imports are left out: a
                // word's examples are cut into words of at most 50 then.
                let known = try (stream as? any LookupRows).map { try examplesImportedBefore($0.termKeys) }
                let imported = known == nil ? ImportedLookups() : try importedLookups()
                // A MiDiccio export reads back whole: a term of invisible characters alone,
                // which a library may hold (a backup's), refused the whole file (round 19B).
                let ownFormat = read.format == .csv || read.format == .tsv
                try Handoff.run(capacity: Self.importBatchesAhead) { emit in
                    try Self.readRows(
                        file: path, sampleSize: sampleSize, locale: locale, known: known, imported: imported,
                        invisibleTermAllowed: ownFormat, emit, eachRow: stream.forEachRowWithFields)
                } consume: { (batch: SheetBatch) in
                    report.rowCount += batch.rowsRead
                    report.alreadyImported += batch.alreadyImported
                    report.alreadyImportedInTrash += batch.alreadyImportedInTrash
                    report.sentencesTooLong += batch.sentencesTooLong
                    if let lookupImport {
                        for fingerprint in batch.leftOutLookups { try noteImportedLookup(fingerprint, import: lookupImport) }
                    }
                    report.sample += batch.sample
                    report.sampleFields += batch.sampleFields
                    for word in batch.words { try add(word.content, columns: word.columns, continues: word.continues) }
                }
                // Read once the reading thread has stopped.
                if let package = stream as? AnkiPackage.Words {
                    report.droppedMediaReferences = package.droppedMediaReferences
                    report.notesWithoutTerm = package.notesWithoutTerm
                    report.notesOverLimit = package.notesOverLimit
                    report.firstNoteOverLimit = package.firstNoteOverLimit
                }
                try writeReady()
                // The rows after those the library had are the words just added. An import
                // that added none leaves the undo of the one before it.
                if report.added > 0 {
                    try database.run("DELETE FROM import_undo")
                    try database.run(
                        "INSERT INTO import_undo (word_id) SELECT id FROM words WHERE seq > ? ORDER BY id", [.integer(lastRowBefore)])
                    try noteUndoSource(Self.importSourceKey, path: path)
                    if let lookupImport {
                        try setInfo(Self.lookupImportKey, String(lookupImport))
                    } else {
                        try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.lookupImportKey)])
                    }
                }
                progress?(done, done)
                if options.dryRun { throw ImportDryRun() }
                return report
            }
        } catch is ImportDryRun {
            return report
        }
    }

    /// Rows a sheet's reader hands to the writer at a time, and how many such batches
    /// it may be ahead of it.
    static let importBatchRows = 256
    static let importBatchesAhead = 16

    /// Checks each row `eachRow` hands on (with its fields as the file had them, for a
    /// list without a header), and hands them to `emit` in batches with the columns
    /// computed from them (term keys, sort keys in `locale`'s order, JSON) and the first
    /// `sampleSize` rows. With `known` (a Kindle import), look-ups imported before are left
    /// out first (`newLookups`). Runs on the reading thread of an import: it touches no
    /// library state, and has its own collator.
    private static func readRows(
        file: String, sampleSize: Int, locale: String, known: [String: KnownLookups]? = nil,
        imported: ImportedLookups = ImportedLookups(), invisibleTermAllowed: Bool = false, _ emit: (SheetBatch) throws -> Void,
        eachRow: (_ body: (SheetRow, [String]?) throws -> Void) throws -> Void
    ) throws {
        let maker = ColumnMaker(locale: locale)
        var batch = SheetBatch()
        var rows = 0
        do {
            // (Both closures are only called, never kept: `emit` is handed on as such.)
            try withoutActuallyEscaping(emit) { emit in
                try eachRow { row, fields in
                    rows += 1
                    guard rows <= ImportLimits.rows else {
                        throw LibraryError.invalidImport(
                            file: file, line: row.line,
                            message: "more than \(ImportLimits.rows) rows; MiDiccio imports at most that many at once")
                    }
                    if rows <= sampleSize {
                        // Its tags as the import keeps them: one of each, in any case (a
                        // deck's "verb Verb" showed twice, and was imported once).
                        var shown = row
                        shown.tags = TagSet.deduplicated(row.tags)
                        batch.sample.append(shown)
                        if let fields { batch.sampleFields.append(fields) }
                    }
                    batch.rowsRead += 1
                    var fresh = [row]
                    if let known {
                        let skipped: Int, inTrash: Bool
                        (fresh, skipped, inTrash) = newLookups(row, known: known, imported: imported)
                        batch.alreadyImported += skipped
                        if inTrash { batch.alreadyImportedInTrash += skipped }
                    }
                    for (part, var row) in fresh.enumerated() {
                        // A look-up's sentence past an example's length is left out and
                        // counted: one such sentence refused a whole vocab.db (round 14A).
                        if known != nil {
                            let key = TermKey.fold(row.term)
                            row.examples.removeAll { sentence in
                                guard sentence.count > WordLimits.textLength else { return false }
                                batch.sentencesTooLong += 1
                                batch.leftOutLookups.append(ImportedLookups.fingerprint(termKey: key, sentence: sentence))
                                return true
                            }
                        }
                        let content = try validated(row, file: file, invisibleTermAllowed: invisibleTermAllowed)
                        batch.words.append(
                            (content, maker.columns(term: content.term, examples: content.examples, tags: content.tags), part > 0))
                        if batch.words.count == importBatchRows {
                            try emit(batch)
                            batch = SheetBatch()
                        }
                    }
                }
            }
        } catch let error as SheetError {
            throw Self.invalidImport(error, file: file)
        }
        if !batch.words.isEmpty || batch.rowsRead > 0 || !batch.sample.isEmpty || !batch.sampleFields.isEmpty { try emit(batch) }
    }

    /// Moves the words the last import added to the Trash, as edits that reach other
    /// devices (never a hard delete, which sync would undo by bringing the word back:
    /// the same rule as `undoRestore()`). An import only adds words, so no earlier
    /// version has to come back.
    ///
    /// A word edited since the import (here or on another device, its Trash state
    /// included) is kept as it is and counted in `keptEdited`: the edit is the user's
    /// newer intent, and undoing would throw it away unasked. Words already in the
    /// Trash, or purged, are left as they are. One step: a second undo has nothing to
    /// undo. `progress` hears how many of the import's words it has gone through, of
    /// all, as a bulk action's does.
    /// `expecting`: the import's source as a page showed it (`UndoSource.described`); an
    /// import made since, elsewhere, is not undone in its place.
    public func undoImport(progress: BulkProgress? = nil, expecting: String? = nil) throws -> ImportUndoReport {
        try writing {
            let ids = try database.cached("SELECT word_id FROM import_undo").rows { $0.text(0) }
            guard !ids.isEmpty else { throw LibraryError.nothingImportedToUndo }
            try checkUndoSource(Self.importSourceKey, expected: expecting)
            var report = ImportUndoReport()
            var trashedWords: [Word] = []
            progress?(0, ids.count)
            for (index, id) in ids.enumerated() {
                if index > 0 && index % bulkWordsPerRead == 0 { progress?(index, ids.count) }
                guard let id = WordID(id), let current = try stored(id) else {
                    report.alreadyGone += 1
                    continue
                }
                // In the Trash already (a move there moves `updatedAt` too, so this comes
                // first: it was counted as "edited since, kept": round 14A).
                guard !current.word.isDeleted else {
                    report.alreadyGone += 1
                    continue
                }
                // An import writes a word with one time for its creation and its update;
                // every later edit (a hybrid clock's, so always later) moves `updatedAt`.
                if current.word.updatedAt > current.word.createdAt {
                    report.keptEdited += 1
                    continue
                }
                _ = try update(current) { word, time in word.deletedAt = time }
                trashedWords.append(current.word)
                report.trashed += 1
                if try hasAnswers(id) {
                    report.trashedStudied += 1
                }
            }
            try database.run("DELETE FROM import_undo")
            try forgetImportedLookups(of: trashedWords)
            report.source = try takeUndoSource(Self.importSourceKey)
            progress?(ids.count, ids.count)
            return report
        }
    }

    /// True when `undoImport()` has something to put back.
    public func canUndoImport() throws -> Bool {
        try guarded { try database.integer("SELECT EXISTS (SELECT 1 FROM import_undo)") == 1 }
    }

    // MARK: - Reading

    private func readImport(_ path: String, options: ImportOptions) throws -> ReadImport {
        try checkNotLibrary(path)
        try checkSize(path)
        // The format is told from the file's start; a text file is read whole once, below.
        let data = try files { try FileSystem.readPrefix(path, count: ImportFormat.detectionBytes) }
        guard !data.isEmpty else {
            throw LibraryError.invalidImport(file: path, line: nil, message: "the file is empty (0 bytes); there is nothing to import")
        }
        let format = try options.format ?? ImportFormat.detect(data, file: path)
        let layoutGiven = options.layout != ListLayout()
        if layoutGiven && format != .list {
            // A database or a package has no rows of text to read as a list: "add --format
            // list" made no sense for a Kindle file (found by the exploratory helper, round 11).
            let textual = [ImportFormat.csv, .tsv, .ankiText].contains(format)
            // The options given, by name: "--columns and --separator" was said of a
            // --card-separator alone (round 14A).
            let given = [
                options.layout.columns != nil ? "--columns" : nil, options.layout.separator != nil ? "--separator" : nil,
                options.layout.cardSeparator != nil ? "--card-separator" : nil,
            ].compactMap { $0 }
            let named = given.count > 1 ? given.dropLast().joined(separator: ", ") + " and " + given.last! : given.first ?? "layout options"
            // A format given, not recognised: said as what it reads. "This is a MiDiccio TSV"
            // was said of a file without a header read with --format tsv (round 24B #4).
            let what =
                options.format != nil
                ? "--format \(format.rawValue) reads the file as \(format.titleWithArticle)"
                    + (textual && format != .ankiText ? ", its first row naming the fields" : "")
                : "this is \(format.titleWithArticle)"
            throw LibraryError.invalidImport(
                file: path, line: nil,
                message: "\(named) \(given.count > 1 ? "are" : "is") for lists without a header, and \(what); "
                    + (textual
                        ? "leave \(given.count > 1 ? "them" : "it") out, or \(options.format == nil ? "add" : "use") --format list to read its first row as words"
                        : "leave \(given.count > 1 ? "them" : "it") out"))
        }
        if options.since != nil && format != .kindle && format != .koreader {
            throw LibraryError.invalidImport(
                file: path, line: nil, message: "--since is for Kindle and KOReader files, and this is \(format.titleWithArticle)")
        }
        if !options.ankiFields.isEmpty && format != .apkg && format != .colpkg {
            throw LibraryError.invalidImport(
                file: path, line: nil, message: "--fields is for Anki packages (.apkg, .colpkg), and this is \(format.titleWithArticle)")
        }
        let isSQLite = data.starts(with: FileSystem.sqliteSignature)
        switch format {
        case .kindle, .koreader:
            guard isSQLite else {
                throw LibraryError.invalidImport(
                    file: path, line: nil, message: "not an SQLite database, so not a \(format.title) file")
            }
            let source = try SQLiteImportFile.open(path)
            let since = options.since?.milliseconds
            let words: any ImportedRows =
                format == .kindle
                ? try KindleVocabulary.Words(source, since: since) : try KOReaderVocabulary.Words(source, since: since)
            return ReadImport(format: format, stream: words)
        case .apkg, .colpkg:
            let package: AnkiPackage.Words
            do {
                package = try AnkiPackage.Words(from: path, fields: options.ankiFields, limits: AnkiPackage.Limits(), temporaryFolder: nil)
            } catch {
                throw LibraryError.invalidImport(file: path, line: nil, message: error.message)
            }
            try checkRowCount(package.estimatedRows, file: path)
            return ReadImport(format: format, stream: package)
        case .csv, .tsv, .ankiText, .list:
            // A MiDiccio CSV or TSV is checked in one pass and then read a megabyte at a
            // time while it is written: a file of a million words is never held whole.
            if !isSQLite, let sheetFormat = SheetFormat(rawValue: format.rawValue),
                WordSheet.announcedFormat(of: String(decoding: data[..<FileSystem.completeUTF8Prefix(Array(data))], as: UTF8.self))
                    != .ankiText
            {
                let scan = try scannedText(path, format: format)
                return ReadImport(
                    format: format, stream: SheetSource.file(path: path, format: sheetFormat, rows: SheetSource.rows(scan)))
            }
            if format == .list, !isSQLite {
                // `--format list` reads the file as a list without a header, as it says.
                return ReadImport(
                    format: format,
                    stream: try streamedList(path, head: Array(data), layout: options.layout, findHeader: options.format == nil))
            }
            if !isSQLite, let notes = try streamedAnkiText(path, head: Array(data), format: format) {
                return ReadImport(format: format, stream: notes)
            }
            guard let text = try files({ try FileSystem.readUTF8Text(path) }) else { try refuseBrokenUTF8(path) }
            if isSQLite || text.unicodeScalars.contains("\0") { throw binaryFile(path, format: format) }
            return ReadImport(format: format, stream: SheetSource.text(text, format: SheetFormat(rawValue: format.rawValue)))
        }
    }

    /// A list without a header, read as it streams: checked in one pass (UTF-8, no NUL),
    /// its separator guessed from its start when not given, and read once more for its
    /// widest card and its cards (unless its columns are given and its cards are lines).
    private func streamedList(_ path: String, head: [UInt8], layout given: ListLayout, findHeader: Bool) throws -> SheetSource {
        let scan = try scannedText(path, format: .list)
        // The separator is guessed from the first lines, as when the text is read whole,
        // unless a first line as Excel writes it names it (`sep=;`, left out).
        let (start, _) = Self.wholeLines(head)
        var layout = given
        var leading = 0
        if given.cardSeparator == nil, let named = HeaderlessList.announcedSeparator(Substring(start)) {
            layout.separator = given.separator ?? named
            leading = 1
        }
        var cards = 0
        var widest = 0
        let counted = layout.columns == nil || layout.cardSeparator != nil
        let cutting: ListCutting
        do {
            cutting = try HeaderlessList.streamingCutting(
                head: Substring(start), pieces: { try filePieces(path) }, layout: layout,
                preferComma: path.lowercased().hasSuffix(".csv"))
            if counted {
                try HeaderlessList.forEachCard(pieces: try filePieces(path), cutting: cutting) { card in
                    cards += 1
                    widest = max(widest, card.fields.count)
                }
            }
        } catch let error as SheetError {
            throw Self.invalidImport(error, file: path)
        }
        // A first card that names the columns is a header (a spreadsheet's CSV saved with
        // semicolons): left out, and its names are the columns unless they were given.
        var header: (columns: [ListColumn], written: Bool)?
        if findHeader {
            var before = leading
            do {
                try HeaderlessList.forEachCard(pieces: try filePieces(path), cutting: cutting) { card in
                    if before > 0 { return before -= 1 }
                    header = HeaderlessList.header(card)
                    throw FirstCardRead()
                }
            } catch is FirstCardRead {
            } catch let error as SheetError {
                throw Self.invalidImport(error, file: path)
            }
        }
        if header != nil { leading += 1 }
        cards = max(cards - leading, 0)
        if counted { try checkRowCount(cards, file: path) }
        let columns = layout.columns ?? header?.columns ?? HeaderlessList.defaultColumns(width: widest)
        let rows = counted ? cards : max(scan.lines - leading, 0)
        return .list(
            ListReading(
                path: path, cutting: cutting, columns: columns, columnsGiven: layout.columns != nil, header: header != nil,
                unescapes: header?.written == true, leadingCards: leading, rows: rows))
    }

    /// An Anki plain-text export, read as it streams: checked in one pass (UTF-8, no NUL),
    /// its header read from its start, and its notes read once more for the most fields
    /// one has and their count. Nil when it is not an Anki export, or when the first
    /// megabyte does not hold its header whole (then it is read whole).
    private func streamedAnkiText(_ path: String, head: [UInt8], format: ImportFormat) throws -> SheetSource? {
        _ = try scannedText(path, format: format)
        let (start, complete) = Self.wholeLines(head)
        do {
            guard
                let (notes, offset) = try WordSheet.ankiNotes(
                    head: Substring(start), complete: complete, format: SheetFormat(rawValue: format.rawValue))
            else { return nil }
            var widest = 0
            var rows = 0
            try WordSheet.forEachAnkiRecord(pieces: try filePieces(path, from: offset), notes: notes) { record in
                widest = max(widest, record.fields.count)
                if !WordSheet.isBlankRecord(record) { rows += 1 }
            }
            try checkRowCount(rows, file: path)
            return .anki(path: path, notes: notes, offset: offset, targets: notes.targets(width: widest), rows: rows)
        } catch let error as SheetError {
            throw Self.invalidImport(error, file: path)
        }
    }

    /// The file at `path` checked in one pass as text: UTF-8 (or the error saying where it
    /// stops being so) and without NUL (or the error calling it binary, not `format`).
    private func scannedText(_ path: String, format: ImportFormat) throws -> FileSystem.TextScan {
        guard let scan = try files({ try FileSystem.scanUTF8Text(path) }) else { try refuseBrokenUTF8(path) }
        if scan.hasNUL { throw binaryFile(path, format: format) }
        return scan
    }

    /// The start of a file (`head`, its first `ImportFormat.detectionBytes` at most) up to
    /// its last line break, as text, and whether that is the whole file.
    private static func wholeLines(_ head: [UInt8]) -> (text: String, complete: Bool) {
        let complete = head.count < ImportFormat.detectionBytes
        let end = complete ? head.count : (head.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0)
        let lines = Array(head[..<end])
        return (String(decoding: lines[..<FileSystem.completeUTF8Prefix(lines)], as: UTF8.self), complete)
    }

    /// A problem a sheet's reader found, as the import's error naming `file` (and the
    /// line, when the reader knows it).
    private static func invalidImport(_ error: SheetError, file: String) -> LibraryError {
        .invalidImport(file: file, line: error.line > 0 ? error.line : nil, message: error.message)
    }

    /// Throws the error that says where the file at `path` stops being UTF-8 (it is read
    /// again as bytes, only to say so).
    private func refuseBrokenUTF8(_ path: String) throws -> Never {
        _ = try ImportFormat.utf8Text(try files { try FileSystem.read(path) }, file: path)
        throw LibraryError.invalidImport(file: path, line: nil, message: "not UTF-8 text")
    }

    private func binaryFile(_ path: String, format: ImportFormat) -> LibraryError {
        .invalidImport(
            file: path, line: nil, message: "a binary file, not \(format.titleWithArticle); MiDiccio reads \(ImportFormat.known)")
    }

    private func checkSize(_ path: String) throws {
        // A symbolic link counts as the file it leads to, as for `backup restore` and
        // `export` (a link to a regular file was refused: round 14A).
        if let what = FileSystem.notARegularFile(path) {
            throw LibraryError.invalidImport(file: path, line: nil, message: what)
        }
        if let size = FileSystem.status(path).map({ Int($0.st_size) }), size > ImportLimits.fileBytes {
            throw LibraryError.invalidImport(
                file: path, line: nil,
                message:
                    "the file is \(size / 1_048_576) MB; MiDiccio imports files of up to \(ImportLimits.fileBytes / 1_048_576) MB")
        }
    }

    private func checkRowCount(_ count: Int, file: String) throws {
        guard count <= ImportLimits.rows else {
            throw LibraryError.invalidImport(
                file: file, line: nil, message: "\(count) rows; MiDiccio imports at most \(ImportLimits.rows) at once")
        }
    }

    /// One row checked against the word limits.
    private static func validated(_ row: SheetRow, file: String, invisibleTermAllowed: Bool) throws -> WordContent {
        do {
            return try WordContent(
                term: row.term, meaning: row.meaning, reading: row.reading,
                examples: row.examples, notes: row.notes, tags: row.tags
            ).validated(tagLimit: WordLimits.heldTagCount, invisibleTermAllowed: invisibleTermAllowed)
        } catch {
            let place = row.line > 0 ? "" : "the word \"\(row.term.prefix(80))\": "
            throw LibraryError.invalidImport(
                file: file, line: row.line > 0 ? row.line : nil, message: place + String(describing: error))
        }
    }

    // MARK: - Kindle look-ups imported before

    /// The examples of every word (Trash included) whose term key is among `keys`, by
    /// term key: the library before a Kindle import, read once.
    private func examplesImportedBefore(_ keys: Set<String>) throws -> [String: KnownLookups] {
        var known: [String: KnownLookups] = [:]
        try database.cached("SELECT term_key, examples, deleted_at IS NULL FROM words").forEachRow { row in
            let key = row.text(0)
            guard keys.contains(key) else { return }
            let examples = JSONText.stringArray(row.text(1))
            known[key, default: KnownLookups()].examples.formUnion(examples)
            if row.int64(2) == 1 { known[key, default: KnownLookups()].inTrashOnly = false }
        }
        return known
    }

    /// The `library_info` key of the number of the last import, when it was of look-ups.
    static let lookupImportKey = "import.undo.lookups"

    /// Every look-up fingerprint this library noted (`imported_lookups`), read once.
    private func importedLookups() throws -> ImportedLookups {
        var imported = ImportedLookups()
        try database.cached("SELECT fingerprint FROM imported_lookups").forEachRow { imported.fingerprints.insert($0.int64(0)) }
        return imported
    }

    /// Notes the look-ups a Kindle or KOReader word brings: one per sentence, or the term
    /// alone. A look-up noted before keeps its first import's number.
    private func noteImportedLookups(_ content: WordContent, import number: Int64) throws {
        let key = TermKey.fold(content.term)
        for sentence in content.examples.isEmpty ? [""] : content.examples {
            try noteImportedLookup(ImportedLookups.fingerprint(termKey: key, sentence: sentence), import: number)
        }
    }

    /// Notes one look-up by its fingerprint; one noted before keeps its first import's number.
    private func noteImportedLookup(_ fingerprint: Int64, import number: Int64) throws {
        try database.run(
            database.cached("INSERT OR IGNORE INTO imported_lookups (fingerprint, import) VALUES (?, ?)"),
            [.integer(fingerprint), .integer(number)])
    }

    /// Forgets, inside the undo's transaction, the look-ups the import it undoes noted for
    /// `words`, those the undo moved to the Trash (as the import wrote them): the same
    /// vocab.db imported again brings them back once they have left the Trash. A word the
    /// undo kept (edited since) keeps its look-ups noted, as one deleted permanently since
    /// does: the next import brought a second copy of a kept word, with the sentence its
    /// edit had corrected (found by the exploratory helper, round 23A #6).
    func forgetImportedLookups(of words: [Word]) throws {
        guard let number = try info(Self.lookupImportKey).flatMap({ Int64($0) }) else { return }
        let forget = try database.cached("DELETE FROM imported_lookups WHERE fingerprint = ? AND import = ?")
        for word in words {
            let key = TermKey.fold(word.term)
            for sentence in word.examples.isEmpty ? [""] : word.examples {
                try database.run(forget, [.integer(ImportedLookups.fingerprint(termKey: key, sentence: sentence)), .integer(number)])
            }
        }
        try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.lookupImportKey)])
    }

    /// A Kindle row without the look-ups an earlier import brought, cut so that no word
    /// has more than `WordLimits.exampleCount` examples, and how many were left out.
    ///
    /// A look-up is recognised by its sentence among the examples of a word with the same
    /// term (Trash included; `known`, from `examplesImportedBefore`): the words themselves
    /// are the record, so it syncs with them. A look-up without a sentence counts as
    /// imported once the library has a word with its term. This library's own note of the
    /// look-ups it imported (`imported`) counts too: a look-up whose word was deleted
    /// permanently, or whose term or sentence was edited, since. `inTrash` when every
    /// look-up left out is a sentence of words all in the Trash.
    private static func newLookups(
        _ row: SheetRow, known: [String: KnownLookups], imported: ImportedLookups
    ) -> (rows: [SheetRow], skipped: Int, inTrash: Bool) {
        let key = TermKey.fold(row.term)
        let lookups = known[key]
        if row.examples.isEmpty {
            guard lookups != nil || imported.contains(termKey: key, sentence: "") else { return (chunked(row), 0, false) }
            return ([], 1, lookups?.inTrashOnly ?? false)
        }
        var rest = row
        var inTrash = lookups?.inTrashOnly ?? false
        rest.examples = row.examples.filter { sentence in
            if lookups?.examples.contains(sentence) == true { return false }
            guard imported.contains(termKey: key, sentence: sentence) else { return true }
            inTrash = false
            return false
        }
        let skipped = row.examples.count - rest.examples.count
        return (rest.examples.isEmpty ? [] : chunked(rest), skipped, inTrash && skipped > 0)
    }

    private static func chunked(_ row: SheetRow) -> [SheetRow] {
        guard row.examples.count > WordLimits.exampleCount else { return [row] }
        return stride(from: 0, to: row.examples.count, by: WordLimits.exampleCount).map { start in
            var part = row
            part.examples = Array(row.examples[start..<min(start + WordLimits.exampleCount, row.examples.count)])
            return part
        }
    }
}

extension ImportOptions {
    /// The time a `--since` value names: `YYYY-MM-DD` (its local midnight, `LocalDay`) or a full
    /// `YYYY-MM-DDTHH:MM:SSZ`; nil for anything else.
    public static func time(since text: String) -> Timestamp? {
        if let time = Timestamp(iso8601: text) { return time }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
        else { return nil }
        return LocalDay.start(year: year, month: month, day: day)
    }
}
