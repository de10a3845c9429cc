import MiDiccioModel

// MARK: - Public types

/// The two spreadsheet shapes MiDiccio writes, and may be told to read.
///
/// Anki's plain-text export is deliberately not a case: it announces itself with `#`
/// header lines, so it is recognised whichever format is requested.
public enum SheetFormat: String, Sendable, CaseIterable {
    /// Comma-separated values.
    case csv
    /// Tab-separated values.
    case tsv
}

/// One word as it travels through a spreadsheet, before any validation.
///
/// Values are whatever the file said, trimmed; limits such as maximum lengths are left
/// to the caller so that one place decides them for imports and manual entry alike.
public struct SheetRow: Sendable, Hashable {
    /// The 1-based physical line where the record starts, or 0 for rows made in memory.
    ///
    /// It is part of equality, so compare rows read from different texts with their
    /// lines cleared.
    public var line: Int
    /// The word or phrase being learnt; never empty in rows returned by `WordSheet.read`.
    public var term: String
    /// What the term means, possibly several lines.
    public var meaning: String
    /// How the term is pronounced or read.
    public var reading: String
    /// Example sentences, one per entry, each without line breaks.
    public var examples: [String]
    /// Free-form notes, possibly several lines.
    public var notes: String
    /// Tags, each without whitespace, in file order and not deduplicated.
    public var tags: [String]

    /// Makes a row; `line` stays 0 unless the row came from a file.
    public init(
        line: Int = 0,
        term: String,
        meaning: String = "",
        reading: String = "",
        examples: [String] = [],
        notes: String = "",
        tags: [String] = []
    ) {
        self.line = line
        self.term = term
        self.meaning = meaning
        self.reading = reading
        self.examples = examples
        self.notes = notes
        self.tags = tags
    }
}

/// Why a text could not be read as a word sheet, and the line to look at.
public struct SheetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The 1-based physical line the problem is on (where a record or field begins).
    public var line: Int
    /// What is wrong, phrased for the person who wrote the file.
    public var message: String

    /// Makes an error for `line`.
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    /// The message prefixed with its line, as `line 7: term is empty`.
    public var description: String { "line \(line): \(message)" }

    /// Runs `body`, a reading of delimited text: a structural problem it finds (an
    /// unterminated quote) becomes the sheet's error, at the same line.
    static func readingDelimitedText<T>(_ body: () throws -> T) rethrows -> T {
        do {
            return try body()
        } catch let error as DelimitedTextError {
            throw SheetError(line: error.line, message: error.message)
        }
    }
}

// MARK: - Reading and writing

/// Converts between `SheetRow`s and MiDiccio CSV/TSV, and reads Anki plain-text exports.
///
/// Rows skipped on reading: records whose every field is empty or whitespace, which is
/// what blank lines and the `,,,,` rows spreadsheets append look like.
public enum WordSheet {
    /// Reads MiDiccio CSV/TSV or an Anki plain-text export; `format` nil detects it.
    ///
    /// Anki `#key:value` header lines are honoured even when `format` is given, because
    /// Anki files are usually named `.txt` and people pass whatever format seems closest.
    /// In that case `format` only supplies the separator when the file has no
    /// `#separator:` line; otherwise Anki's default, tab, applies.
    public static func read(_ text: String, format: SheetFormat?) throws(SheetError) -> [SheetRow] {
        var rows: [SheetRow] = []
        do {
            try forEachRow(text, format: format) { rows.append($0) }
        } catch let error as SheetError {
            throw error
        } catch {
            preconditionFailure("only the reader throws while rows are collected: \(error)")
        }
        return rows
    }

    /// Reads like `read`, handing each row to `body` as soon as it is read: a MiDiccio
    /// CSV or TSV of a million rows is never held as rows (an Anki export, read whole, is
    /// then handed out row by row). A problem in the text throws `SheetError`; whatever
    /// `body` throws ends the reading.
    public static func forEachRow(_ text: String, format: SheetFormat?, _ body: (SheetRow) throws -> Void) throws {
        var sheet = Substring(text)
        if sheet.unicodeScalars.first == "\u{FEFF}" {
            sheet = Substring(sheet.unicodeScalars.dropFirst())
        }

        var cursor = sheet.utf8.startIndex
        var lineNumber = 1
        while let line = nextLine(in: sheet, from: cursor), isBlank(sheet.utf8[line.content]) {
            cursor = line.next
            lineNumber += 1
        }
        guard let firstLine = nextLine(in: sheet, from: cursor) else {
            throw SheetError(line: 1, message: "the text is empty; " + expectation)
        }
        let firstText = String(decoding: sheet.utf8[firstLine.content], as: UTF8.self)
        if ankiHeader(in: firstText) != nil {
            try readAnki(sheet, from: cursor, lineNumber: lineNumber, format: format).forEach(body)
            return
        }
        let chosen = format ?? (firstText.utf8.contains(UInt8(ascii: "\t")) ? .tsv : .csv)
        try readMiDiccio(sheet, format: chosen, body)
    }

    /// What the text's first non-blank line says it is: an Anki export (`#key:value`), a
    /// MiDiccio CSV or TSV (a header row naming `term`), or nil for neither, which is a
    /// list without a header. Tab in the header line means TSV. A first line as Excel
    /// writes it, `sep=;`, makes a list.
    static func announcedFormat(of text: String) -> ImportFormat? {
        var body = Substring(text)
        if body.unicodeScalars.first == "\u{FEFF}" { body = Substring(body.unicodeScalars.dropFirst()) }
        // Excel's `sep=;` line: a list whose separator it names (`HeaderlessList`).
        if HeaderlessList.announcedSeparator(body) != nil { return .list }
        var cursor = body.utf8.startIndex
        while let line = nextLine(in: body, from: cursor) {
            cursor = line.next
            guard !isBlank(body.utf8[line.content]) else { continue }
            let first = String(decoding: body.utf8[line.content], as: UTF8.self)
            if ankiHeader(in: first) != nil { return .ankiText }
            let separator: UInt8 = first.utf8.contains(UInt8(ascii: "\t")) ? UInt8(ascii: "\t") : UInt8(ascii: ",")
            let names = first.utf8.split(separator: separator, omittingEmptySubsequences: false).map {
                trimmed(String(decoding: $0, as: UTF8.self)).trimmingQuotes.lowercased()
            }
            guard names.contains(Column.term.rawValue) else { return nil }
            return separator == UInt8(ascii: ",") ? .csv : .tsv
        }
        return nil
    }

    /// Writes rows as MiDiccio CSV or TSV (with header) without the study columns; see
    /// `write(_:format:study:)`.
    public static func write(_ rows: [SheetRow], format: SheetFormat) -> String {
        write(rows, format: format, study: nil)
    }

    /// Writes rows as MiDiccio CSV or TSV (with header), readable back by `read` without loss.
    ///
    /// "Without loss" holds for rows in the shape `read` produces: fields already trimmed,
    /// examples non-empty and free of line breaks, tags free of whitespace, term non-empty.
    /// Anything else is written faithfully but normalised on the way back in.
    ///
    /// In CSV, the format spreadsheets open, a cell that a spreadsheet would run as a
    /// formula (one starting with `=`, `+`, `-` or `@`, as a word from a shared deck may)
    /// starts with an apostrophe, which spreadsheets read as "text" (`spreadsheetSafe`);
    /// `read` takes it off again in a file with the header `write` writes. TSV, which Anki
    /// and other apps import as plain text, is written as it is.
    ///
    /// `study` (one entry a row) adds the `due` (ISO 8601, empty for a new word) and
    /// `state` columns after `tags`; `read` accepts and skips them, since a schedule is
    /// derived from review events, never imported.
    public static func write(_ rows: [SheetRow], format: SheetFormat, study: [(due: String, state: String)]?) -> String {
        var output: [UInt8] = []
        appendHeader(format: format, study: study != nil, to: &output)
        for (index, row) in rows.enumerated() {
            append(row, study: study.flatMap { index < $0.count ? $0[index] : nil }, format: format, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends the header record `write` starts with (with `study`, the due and state
    /// columns too): with `append(_:study:format:to:)`, a sheet written a piece at a time.
    static func appendHeader(format: SheetFormat, study: Bool, to output: inout [UInt8]) {
        let header = Column.written.map(\.rawValue) + (study ? [Column.due.rawValue, Column.state.rawValue] : [])
        DelimitedText.appendRecord(header, separator: separatorByte(for: format), to: &output)
    }

    /// True when `line` is the header row an export writes: CSV or TSV, with or without
    /// the study columns.
    static func isExportHeader(_ line: String) -> Bool {
        let names = Column.written.map(\.rawValue), study = [Column.due.rawValue, Column.state.rawValue]
        return [",", "\t"].contains { separator in
            line == names.joined(separator: separator) || line == (names + study).joined(separator: separator)
        }
    }

    /// Appends `row`'s record as `write` writes it, with its study columns when given.
    static func append(_ row: SheetRow, study: (due: String, state: String)?, format: SheetFormat, to output: inout [UInt8]) {
        var fields = [
            row.term,
            row.meaning,
            row.reading,
            row.examples.joined(separator: "\n"),
            row.notes,
            row.tags.joined(separator: " "),
        ]
        if let study { fields += [study.due, study.state] }
        if format == .csv { fields = fields.map(spreadsheetSafe) }
        DelimitedText.appendRecord(fields, separator: separatorByte(for: format), to: &output)
    }

    /// The bytes that start a formula in a spreadsheet cell: `=`, `+`, `-` and `@`.
    private static func startsFormula(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "=") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "@")
    }

    /// `cell` with an apostrophe put before it when, past any apostrophes it starts with,
    /// it starts a formula: `=HYPERLINK(...)` becomes `'=HYPERLINK(...)`, which a
    /// spreadsheet shows as text instead of running, and `'=x` becomes `''=x`, so that
    /// `spreadsheetUnescaped` gives back exactly the cell.
    static func spreadsheetSafe(_ cell: String) -> String {
        guard let first = cell.utf8.first, first == UInt8(ascii: "'") || startsFormula(first) else { return cell }
        guard let past = cell.utf8.first(where: { $0 != UInt8(ascii: "'") }), startsFormula(past) else { return cell }
        return "'" + cell
    }

    /// `cell` as `spreadsheetSafe` had it: the apostrophe it put before a formula taken off.
    static func spreadsheetUnescaped(_ cell: String) -> String {
        guard cell.utf8.first == UInt8(ascii: "'") else { return cell }
        guard let past = cell.utf8.first(where: { $0 != UInt8(ascii: "'") }), startsFormula(past) else { return cell }
        return String(cell.dropFirst())
    }
}

// MARK: - MiDiccio CSV and TSV

extension WordSheet {
    /// Columns in the order `write` emits them; `read` accepts any order.
    private enum Column: String, CaseIterable {
        case term, meaning, reading, examples, notes, tags
        /// Written on request only (`write`'s `study`), skipped when read.
        case due, state

        /// The columns every export has.
        static let written: [Column] = [.term, .meaning, .reading, .examples, .notes, .tags]
    }

    private static let validColumnList = Column.written.map(\.rawValue).joined(separator: ", ")

    private static let expectation =
        "expected a header row naming the columns (term, and optionally meaning, reading, "
        + "examples, notes, tags) or an Anki plain-text export starting with #key:value lines "
        + "such as #separator:tab"

    private static func separatorByte(for format: SheetFormat) -> UInt8 {
        switch format {
        case .csv: UInt8(ascii: ",")
        case .tsv: UInt8(ascii: "\t")
        }
    }

    /// Reads a MiDiccio CSV or TSV (`format`) that arrives in pieces, as `forEachRow` reads
    /// it whole: `next` gives the next bytes of the file, nil at its end. Only a piece at a
    /// time is held, whatever the file's size. The bytes must be UTF-8 (checked before).
    public static func forEachRow(
        pieces next: () throws -> [UInt8]?, format: SheetFormat, _ body: (SheetRow) throws -> Void
    ) throws {
        var rows = MiDiccioRows(format: format)
        try SheetError.readingDelimitedText {
            try DelimitedText.forEachRecord(pieces: next, separator: separatorByte(for: format), firstLine: 1) { record in
                if let row = try rows.take(record) { try body(row) }
            }
        }
        try rows.finish()
    }

    private static func readMiDiccio(_ text: Substring, format: SheetFormat, _ body: (SheetRow) throws -> Void) throws {
        var rows = MiDiccioRows(format: format)
        try SheetError.readingDelimitedText {
            try DelimitedText.forEachRecord(text, separator: separatorByte(for: format), firstLine: 1) { record in
                if let row = try rows.take(record) { try body(row) }
            }
        }
        try rows.finish()
    }

    /// The rows of a MiDiccio CSV or TSV, record by record: the first non-blank record is
    /// the header, blank ones are skipped.
    private struct MiDiccioRows {
        let format: SheetFormat
        var columns: [Column]?
        /// True for a CSV whose header is the one `write` writes: its cells are taken as
        /// `spreadsheetSafe` wrote them.
        var unescapes = false

        init(format: SheetFormat) {
            self.format = format
        }

        /// The row `record` makes; nil for the header and blank records.
        mutating func take(_ record: DelimitedRecord) throws(SheetError) -> SheetRow? {
            guard !isBlankRecord(record) else { return nil }
            guard let columns else {
                let found = try headerColumns(record, format: format)
                columns = found
                unescapes = format == .csv && (found == Column.written || found == Column.written + [.due, .state])
                return nil
            }
            // Empty cells past the last column are left out: a spreadsheet writes them for
            // a column once formatted (round 14A).
            var fields = record.fields[...]
            while fields.count > columns.count, let last = fields.last, trimmed(last).isEmpty { fields.removeLast() }
            guard fields.count == columns.count else {
                throw SheetError(
                    line: record.line,
                    message: "the row has \(fields.count) fields but the header has \(columns.count)"
                )
            }
            var row = SheetRow(line: record.line, term: "")
            for (column, cell) in zip(columns, fields) {
                let value = unescapes ? spreadsheetUnescaped(cell) : cell
                switch column {
                case .term: row.term = trimmed(value)
                case .meaning: row.meaning = trimmed(value)
                case .reading: row.reading = trimmed(value)
                case .examples: row.examples = exampleLines(value)
                case .notes: row.notes = trimmed(value)
                case .tags: row.tags = tagList(value)
                case .due, .state: break  // derived from review events, never imported
                }
            }
            guard !row.term.isEmpty else {
                throw SheetError(line: record.line, message: "term is empty")
            }
            return row
        }

        /// Throws when no header came at all.
        func finish() throws(SheetError) {
            guard columns != nil else {
                throw SheetError(line: 1, message: "the text is empty; " + expectation)
            }
        }
    }

    private static func headerColumns(_ header: DelimitedRecord, format: SheetFormat) throws(SheetError) -> [Column] {
        var names = header.fields.map { trimmed($0).lowercased() }
        // Empty names at the end name no column: a spreadsheet saves them after a cell
        // past the last column was formatted (round 14A).
        while names.count > 1, names.last?.isEmpty == true { names.removeLast() }
        guard names.contains(Column.term.rawValue) else {
            // Naming the likely mix-up saves a round of guessing when a TSV is read as CSV
            // or the other way round.
            let other: (byte: UInt8, name: String) =
                switch format {
                case .csv: (UInt8(ascii: "\t"), "tabs; is it TSV?")
                case .tsv: (UInt8(ascii: ","), "commas; is it CSV?")
                }
            let hint =
                header.fields.contains { $0.utf8.contains(other.byte) }
                ? " (the first row contains \(other.name))" : ""
            throw SheetError(line: header.line, message: expectation + hint)
        }
        var columns: [Column] = []
        for (index, name) in names.enumerated() {
            guard let column = Column(rawValue: name) else {
                throw SheetError(
                    line: header.line,
                    message: (name.isEmpty ? "column \(index + 1) has no name" : "unknown column \"\(name)\"")
                        + "; valid columns are \(validColumnList)"
                )
            }
            guard !columns.contains(column) else {
                throw SheetError(line: header.line, message: "column \"\(name)\" appears more than once")
            }
            columns.append(column)
        }
        return columns
    }
}

// MARK: - Anki plain-text export

extension WordSheet {
    /// Settings gathered from Anki's `#key:value` header lines.
    fileprivate struct AnkiHeader {
        var separator: UInt8?
        var html = false
        var tagsColumn: Int?
        var ignoredColumns: Set<Int> = []
        /// The raw `#columns:` value, split only once the separator is known, because
        /// `#separator:` may come after it.
        var columnsValue: String?
    }

    /// Where one field of an Anki record goes.
    fileprivate enum AnkiTarget {
        case term, meaning, reading, examples, notes, tags, ignored
        /// A column whose name means nothing to MiDiccio, kept as a `Name: value` note.
        case labelledNote(String)
    }

    private static func readAnki(
        _ body: Substring,
        from start: Substring.Index,
        lineNumber firstHeaderLine: Int,
        format: SheetFormat?
    ) throws(SheetError) -> [SheetRow] {
        guard let (notes, cursor) = try readAnkiHeader(body, from: start, lineNumber: firstHeaderLine, format: format, complete: true)
        else { preconditionFailure("the header lines of a whole text always end") }
        let data = Substring(body.unicodeScalars[cursor...])
        let records = try parse(data, separator: notes.separator, firstLine: notes.firstLine)
        let targets = notes.targets(width: records.reduce(0) { max($0, $1.fields.count) })
        var rows: [SheetRow] = []
        rows.reserveCapacity(records.count)
        for record in records {
            if let row = try notes.row(record, targets: targets) { rows.append(row) }
        }
        return rows
    }

    /// Reads the `#key:value` lines from `start` (line `firstHeaderLine`) on: how the notes
    /// after them are read, and where they start. With `complete` false, `body` is only the
    /// start of the text (whole lines): nil when the header lines reach its end, as they
    /// may go on after it.
    private static func readAnkiHeader(
        _ body: Substring, from start: Substring.Index, lineNumber firstHeaderLine: Int, format: SheetFormat?,
        complete: Bool
    ) throws(SheetError) -> (AnkiNotes, Substring.Index)? {
        var header = AnkiHeader()
        var cursor = start
        var lineNumber = firstHeaderLine
        var ended = false
        while let line = nextLine(in: body, from: cursor) {
            let text = String(decoding: body.utf8[line.content], as: UTF8.self)
            guard let (key, value) = ankiHeader(in: text) else {
                ended = true
                break
            }
            try apply(key: key, value: value, line: lineNumber, to: &header)
            cursor = line.next
            lineNumber += 1
        }
        guard ended || complete else { return nil }
        let separator = header.separator ?? format.map(separatorByte(for:)) ?? UInt8(ascii: "\t")
        let names: [String]? = header.columnsValue.map { value in
            value.utf8.split(separator: separator, omittingEmptySubsequences: false)
                .map { trimmed(String(decoding: $0, as: UTF8.self)) }
        }
        return (AnkiNotes(header: header, separator: separator, names: names, firstLine: lineNumber), cursor)
    }

    /// An Anki plain-text export from its start (`head`, whole lines, or the whole text
    /// when `complete`): how its notes are read and the byte of the file where they start.
    /// Nil when the text is not an Anki export, or when its header lines, or the blank
    /// lines before them, reach the end of `head`.
    static func ankiNotes(head: Substring, complete: Bool, format: SheetFormat?) throws(SheetError) -> (AnkiNotes, offset: Int)? {
        var sheet = head
        if sheet.unicodeScalars.first == "\u{FEFF}" { sheet = Substring(sheet.unicodeScalars.dropFirst()) }
        var cursor = sheet.utf8.startIndex
        var lineNumber = 1
        while let line = nextLine(in: sheet, from: cursor), isBlank(sheet.utf8[line.content]) {
            cursor = line.next
            lineNumber += 1
        }
        guard let first = nextLine(in: sheet, from: cursor),
            ankiHeader(in: String(decoding: sheet.utf8[first.content], as: UTF8.self)) != nil,
            let (notes, start) = try readAnkiHeader(sheet, from: cursor, lineNumber: lineNumber, format: format, complete: complete)
        else { return nil }
        return (notes, head.utf8.distance(from: head.utf8.startIndex, to: start))
    }

    /// Each record of an Anki export's notes, whose bytes arrive in pieces (`next`, nil at
    /// the end) from where they start, as the whole text's are read.
    static func forEachAnkiRecord(
        pieces next: () throws -> [UInt8]?, notes: AnkiNotes, _ body: (DelimitedRecord) throws -> Void
    ) throws {
        try SheetError.readingDelimitedText {
            try DelimitedText.forEachRecord(pieces: next, separator: notes.separator, firstLine: notes.firstLine, body)
        }
    }

    /// How the notes of an Anki plain-text export are read, once its header is.
    struct AnkiNotes {
        fileprivate let header: AnkiHeader
        /// Between fields.
        let separator: UInt8
        /// The `#columns:` names, when given.
        fileprivate let names: [String]?
        /// The line the notes start on.
        let firstLine: Int

        /// Where each field goes, given the most fields a record has (every record,
        /// blank ones too).
        func targets(width: Int) -> AnkiFieldTargets {
            AnkiFieldTargets(targets: WordSheet.ankiTargets(width: max(width, names?.count ?? 0), names: names, header: header))
        }

        /// The row `record` makes; nil for a blank one.
        func row(_ record: DelimitedRecord, targets: AnkiFieldTargets) throws(SheetError) -> SheetRow? {
            guard !isBlankRecord(record) else { return nil }
            var row = SheetRow(line: record.line, term: "")
            var noteLines: [String] = []
            for (index, raw) in record.fields.enumerated() {
                let target = targets.targets[index]
                if case .tags = target {
                    // Tags are plain words even in HTML exports. One past MiDiccio's length is
                    // shortened as a package's is: it refused the whole file (round 11).
                    row.tags += tagList(raw).map(AnkiPackage.shortened)
                    continue
                }
                // Sounds and images left out, as a package's are (`[sound:…]` stayed in the
                // term: round 14A).
                let value = header.html ? AnkiPackage.plainText(ofField: raw).text : raw
                switch target {
                case .term: row.term = trimmed(value)
                case .meaning: row.meaning = trimmed(value)
                case .reading: row.reading = trimmed(value)
                case .examples: row.examples += exampleLines(value)
                case .notes:
                    let note = trimmed(value)
                    if !note.isEmpty { noteLines.append(note) }
                case .labelledNote(let name):
                    let note = trimmed(value)
                    if !note.isEmpty { noteLines.append("\(name): \(note)") }
                case .tags, .ignored: break
                }
            }
            row.notes = noteLines.joined(separator: "\n")
            guard !row.term.isEmpty else {
                // An image or a sound alone: the text file can be edited, which a package
                // cannot, so it is refused with the way out (round 14A).
                let media =
                    header.html
                    && targets.targets.firstIndex(where: { if case .term = $0 { true } else { false } }).map { index in
                        let field = index < record.fields.count ? Array(record.fields[index].lowercased().utf8) : []
                        return ["<img", "[sound:", "<audio", "<video"].contains { field.firstRange(of: Array($0.utf8)) != nil }
                    } == true
                throw SheetError(
                    line: record.line,
                    message: media
                        ? "term is empty once its HTML is read as text (an image or a sound only); remove that note's line, "
                            + "or import the deck as an Anki package (.apkg), which leaves such notes out and counts them"
                        : "term is empty")
            }
            return row
        }
    }

    /// Where each field of an Anki export's notes goes (`AnkiNotes.targets(width:)`).
    struct AnkiFieldTargets {
        fileprivate let targets: [AnkiTarget]
    }

    /// Recognises `#key:value`; the key must look like a word or words (`tags column`) so
    /// that a first line such as `#1 fan: me` is not mistaken for a header.
    private static func ankiHeader(in line: String) -> (key: String, value: String)? {
        guard line.utf8.first == UInt8(ascii: "#"),
            let colon = line.utf8.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        let keyBytes = line.utf8[line.utf8.index(after: line.utf8.startIndex)..<colon]
        guard let first = keyBytes.first, isASCIILetter(first),
            keyBytes.allSatisfy({ isASCIILetter($0) || isASCIIDigit($0) || $0 == 0x20 || $0 == 0x5F || $0 == 0x2D })
        else { return nil }
        let key = trimmed(String(decoding: keyBytes, as: UTF8.self)).lowercased()
        let value = String(decoding: line.utf8[line.utf8.index(after: colon)...], as: UTF8.self)
        return (key, value)
    }

    private static func apply(key: String, value: String, line: Int, to header: inout AnkiHeader) throws(SheetError) {
        switch key {
        case "separator":
            header.separator = try ankiSeparator(value, line: line)
        case "html":
            switch trimmed(value).lowercased() {
            case "true": header.html = true
            case "false": header.html = false
            default:
                throw SheetError(line: line, message: "#html must be true or false, not \"\(trimmed(value))\"")
            }
        case "tags column":
            header.tagsColumn = try columnNumber(value, key: key, line: line)
        case "guid column", "notetype column", "deck column":
            header.ignoredColumns.insert(try columnNumber(value, key: key, line: line))
        case "columns":
            header.columnsValue = value
        default:
            // Anki writes other keys (#notetype:, #deck:, #tags:, ...) that MiDiccio has no use for.
            break
        }
    }

    private static func ankiSeparator(_ value: String, line: Int) throws(SheetError) -> UInt8 {
        // A lone character is taken as is before trimming, so a literal tab or space works.
        let literal = value.unicodeScalars.count == 1 ? value : trimmed(value)
        let byte: UInt8?
        switch literal.lowercased() {
        case "tab": byte = UInt8(ascii: "\t")
        case "comma": byte = UInt8(ascii: ",")
        case "semicolon": byte = UInt8(ascii: ";")
        case "space": byte = UInt8(ascii: " ")
        case "pipe": byte = UInt8(ascii: "|")
        case "colon": byte = UInt8(ascii: ":")
        default: byte = literal.utf8.count == 1 ? literal.utf8.first : nil
        }
        guard let byte, DelimitedText.isValidSeparator(byte) else {
            throw SheetError(
                line: line,
                message: "unsupported #separator \"\(literal)\"; expected Tab, Comma, Semicolon, Space, "
                    + "Pipe, Colon or a single ASCII character other than a quote"
            )
        }
        return byte
    }

    private static func columnNumber(_ value: String, key: String, line: Int) throws(SheetError) -> Int {
        guard let number = Int(trimmed(value)), number >= 1 else {
            throw SheetError(
                line: line,
                message: "#\(key) must be a column number starting at 1, not \"\(trimmed(value))\""
            )
        }
        return number - 1
    }

    fileprivate static func ankiTargets(width: Int, names: [String]?, header: AnkiHeader) -> [AnkiTarget] {
        var targets: [AnkiTarget] = []
        targets.reserveCapacity(width)
        var taken: Set<String> = []
        var ordinary = 0
        for index in 0..<width {
            if index == header.tagsColumn {
                targets.append(.tags)
            } else if header.ignoredColumns.contains(index) {
                targets.append(.ignored)
            } else if let names {
                let name = index < names.count ? names[index] : ""
                targets.append(namedTarget(name, column: index, taken: &taken))
            } else {
                switch ordinary {
                case 0: targets.append(.term)
                case 1: targets.append(.meaning)
                default: targets.append(.notes)
                }
                ordinary += 1
            }
        }
        return targets
    }

    private static func namedTarget(_ name: String, column: Int, taken: inout Set<String>) -> AnkiTarget {
        guard !name.isEmpty else { return .labelledNote("Column \(column + 1)") }
        let target: AnkiTarget
        let slot: String
        switch name.lowercased() {
        case "front", "term", "word", "expression", "vocab": (target, slot) = (.term, "term")
        case "back", "meaning", "definition", "translation": (target, slot) = (.meaning, "meaning")
        case "reading", "pronunciation", "furigana", "kana": (target, slot) = (.reading, "reading")
        case "example", "examples", "sentence": return .examples
        case "notes", "extra", "note": return .notes
        case "tags": return .tags
        default: return .labelledNote(name)
        }
        // A second column for a single-valued field would silently overwrite the first;
        // keeping it as a labelled note loses nothing.
        guard taken.insert(slot).inserted else { return .labelledNote(name) }
        return target
    }
}

// MARK: - HTML to plain text

extension WordSheet {
    /// Turns the HTML Anki stores in fields into plain text with line breaks.
    ///
    /// Besides `<br>`, `</div>` and `</p>`, an opening `<div>` or `<p>` also breaks the line,
    /// because Anki's editor writes `first<div>second</div>` for two lines. Block tags
    /// never produce a blank line of their own (`<div>a</div><div>b</div>` is `a\nb`),
    /// while each `<br>` always does. `&nbsp;` becomes an ordinary space, since in Anki
    /// it is almost always an editor artefact rather than an intended no-break space.
    /// A `<` not followed by a letter, `/` or `!`, or never closed, is kept as text.
    ///
    /// Other blocks break the line as well (list items, headings, table rows, a rule),
    /// table cells are parted by a space, a ruby's reading follows its text in brackets
    /// (`漢字(かんじ)`), the text of `<style>` and `<script>` is left out, and the named
    /// entities of Latin-1 and of typography are read (`&eacute;`, `&mdash;`). Each of
    /// these came out wrong before: `caf&eacute;`, `to goto leave`, `漢字かんじ`, and a
    /// style sheet as a meaning (found by the exploratory helper, round 11).
    package static func plainText(fromHTML html: String) -> String {
        guard html.utf8.contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") }) else {
            return trimmed(html)
        }
        let scalars = Array(html.unicodeScalars)
        var output = String.UnicodeScalarView()
        var index = 0

        func breakBlock() {
            if let last = output.last, last != "\n" { output.append("\n") }
        }

        func part() {
            if let last = output.last, last != "\n", last != " " { output.append(" ") }
        }

        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "<", let close = tagEnd(in: scalars, openingAt: index) {
                let name = tagName(in: scalars[(index + 1)..<close])
                index = close + 1
                switch name {
                case "br": output.append("\n")
                case _ where blockTags.contains(name.hasPrefix("/") ? String(name.dropFirst()) : name): breakBlock()
                case "td", "th": part()
                case "rt": output.append("(")
                case "/rt": output.append(")")
                case "rp", "style", "script":
                    // Left out to their closing tag (a ruby's own brackets, a style sheet, code).
                    index = closingTagEnd(of: name, in: scalars, from: index) ?? scalars.count
                default: break
                }
                continue
            }
            if scalar == "&", let (decoded, next) = entity(in: scalars, at: index) {
                output.append(decoded)
                index = next
                continue
            }
            output.append(scalar)
            index += 1
        }
        return trimmed(String(output))
    }

    /// Elements whose start and end break the line (`<br>` aside, which always does).
    private static let blockTags: Set<String> = [
        "div", "p", "li", "ul", "ol", "dl", "dt", "dd", "tr", "table", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
        "blockquote", "pre", "section", "article", "header", "footer",
    ]

    /// Just past the closing tag of the element `name` (`</name>`, any case) from `start`,
    /// or nil when it is never closed.
    private static func closingTagEnd(of name: String, in scalars: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start
        while index < scalars.count {
            if scalars[index] == "<", let close = tagEnd(in: scalars, openingAt: index),
                tagName(in: scalars[(index + 1)..<close]) == "/" + name
            {
                return close + 1
            }
            index += 1
        }
        return nil
    }

    private static func tagEnd(in scalars: [Unicode.Scalar], openingAt start: Int) -> Int? {
        let next = start + 1
        guard next < scalars.count else { return nil }
        let first = scalars[next]
        guard first.properties.isAlphabetic || first == "/" || first == "!" else { return nil }
        return scalars[next...].firstIndex(of: ">")
    }

    /// The lowercased element name, with a leading `/` kept for closing tags.
    private static func tagName(in inside: ArraySlice<Unicode.Scalar>) -> String {
        var name = ""
        var rest = inside[...]
        if rest.first == "/" {
            name = "/"
            rest = rest.dropFirst()
        }
        for scalar in rest {
            guard scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) else { break }
            name.unicodeScalars.append(scalar)
        }
        return name.lowercased()
    }

    private static func entity(in scalars: [Unicode.Scalar], at start: Int) -> (Unicode.Scalar, Int)? {
        // Entity names are short; bounding the search keeps a stray `&` from scanning on.
        let limit = min(scalars.count, start + 12)
        guard let semicolon = scalars[(start + 1)..<limit].firstIndex(of: ";") else { return nil }
        let name = String(String.UnicodeScalarView(scalars[(start + 1)..<semicolon]))
        let decoded: Unicode.Scalar?
        switch name {
        case "amp": decoded = "&"
        case "lt": decoded = "<"
        case "gt": decoded = ">"
        case "quot": decoded = "\""
        case "apos", "#39": decoded = "'"
        case "nbsp": decoded = " "
        case _ where namedEntities[name] != nil: decoded = namedEntities[name]
        default:
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
            } else if name.hasPrefix("#") {
                decoded = UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init)
            } else {
                decoded = nil
            }
        }
        // NUL is a valid scalar but never wanted in a word; leave such text alone.
        guard let decoded, decoded != "\0" else { return nil }
        return (decoded, semicolon + 1)
    }
}

/// HTML's named entities of Latin-1 and of typography, beyond the five every writer uses:
/// what an Anki field holds when its editor, or a deck's author, wrote them.
private let namedEntities: [String: Unicode.Scalar] = {
    let latin1 = [
        "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf", "laquo", "not", "shy", "reg",
        "macr", "deg", "plusmn", "sup2", "sup3", "acute", "micro", "para", "middot", "cedil", "sup1", "ordm", "raquo",
        "frac14", "frac12", "frac34", "iquest", "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil",
        "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml", "ETH", "Ntilde", "Ograve", "Oacute",
        "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute", "THORN", "szlig",
        "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil", "egrave", "eacute", "ecirc", "euml",
        "igrave", "iacute", "icirc", "iuml", "eth", "ntilde", "ograve", "oacute", "ocirc", "otilde", "ouml", "divide",
        "oslash", "ugrave", "uacute", "ucirc", "uuml", "yacute", "thorn", "yuml",
    ]
    // U+00A1 to U+00FF in order, as HTML names them.
    var table = Dictionary(uniqueKeysWithValues: latin1.enumerated().map { ($1, Unicode.Scalar(UInt32(0xA1 + $0))!) })
    let typography: [(String, UInt32)] = [
        ("ndash", 0x2013), ("mdash", 0x2014), ("lsquo", 0x2018), ("rsquo", 0x2019), ("sbquo", 0x201A), ("ldquo", 0x201C),
        ("rdquo", 0x201D), ("bdquo", 0x201E), ("dagger", 0x2020), ("Dagger", 0x2021), ("bull", 0x2022),
        ("hellip", 0x2026), ("permil", 0x2030), ("prime", 0x2032), ("Prime", 0x2033), ("lsaquo", 0x2039),
        ("rsaquo", 0x203A), ("euro", 0x20AC), ("trade", 0x2122), ("larr", 0x2190), ("rarr", 0x2192), ("harr", 0x2194),
        ("minus", 0x2212), ("thinsp", 0x2009), ("ensp", 0x2002), ("emsp", 0x2003), ("zwnj", 0x200C), ("zwj", 0x200D),
        ("OElig", 0x152), ("oelig", 0x153), ("Scaron", 0x160), ("scaron", 0x161), ("Yuml", 0x178), ("fnof", 0x192),
        ("circ", 0x2C6), ("tilde", 0x2DC),
    ]
    for (name, value) in typography { table[name] = Unicode.Scalar(value)! }
    return table
}()

// MARK: - Text helpers

extension String {
    /// The text without one pair of surrounding double quotes, as a quoted header cell.
    fileprivate var trimmingQuotes: String {
        guard count >= 2, first == "\"", last == "\"" else { return self }
        return String(dropFirst().dropLast())
    }
}

extension WordSheet {
    private static func parse(
        _ text: Substring,
        separator: UInt8,
        firstLine: Int
    ) throws(SheetError) -> [DelimitedRecord] {
        do {
            return try DelimitedText.parse(text, separator: separator, firstLine: firstLine)
        } catch {
            throw SheetError(line: error.line, message: error.message)
        }
    }

    /// The next physical line from `start`: its content without terminator, and where the
    /// line after it begins. Nil at the end of the text.
    private static func nextLine(
        in text: Substring,
        from start: Substring.Index
    ) -> (content: Range<Substring.Index>, next: Substring.Index)? {
        let utf8 = text.utf8
        guard start < utf8.endIndex else { return nil }
        guard let end = utf8[start...].firstIndex(where: { $0 == DelimitedText.cr || $0 == DelimitedText.lf }) else {
            return (start..<utf8.endIndex, utf8.endIndex)
        }
        var next = utf8.index(after: end)
        if utf8[end] == DelimitedText.cr, next < utf8.endIndex, utf8[next] == DelimitedText.lf {
            next = utf8.index(after: next)
        }
        return (start..<end, next)
    }

    private static func isBlank(_ bytes: Substring.UTF8View) -> Bool {
        trimmed(String(decoding: bytes, as: UTF8.self)).isEmpty
    }

    static func isBlankRecord(_ record: DelimitedRecord) -> Bool {
        record.fields.allSatisfy { field in
            guard let first = field.utf8.first else { return true }
            return !isVisibleASCII(first) && trimmed(field).isEmpty
        }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    private static func isASCIIDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Trims Unicode whitespace (including no-break space and line breaks) by scalar,
    /// so that CRLF, which is one `Character`, is handled like any other break.
    static func trimmed(_ text: String) -> String {
        // Almost every cell starts and ends with a visible ASCII character; checking the
        // bytes first keeps Unicode property look-ups out of the common path.
        guard let firstByte = text.utf8.first, let lastByte = text.utf8.last else { return text }
        if isVisibleASCII(firstByte) && isVisibleASCII(lastByte) { return text }
        let scalars = text.unicodeScalars
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, scalars[start].properties.isWhitespace {
            start = scalars.index(after: start)
        }
        while end > start, scalars[scalars.index(before: end)].properties.isWhitespace {
            end = scalars.index(before: end)
        }
        if start == scalars.startIndex && end == scalars.endIndex { return text }
        return String(scalars[start..<end])
    }

    private static func isVisibleASCII(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }

    /// One example per line; CR, LF and CRLF all end a line, and blank lines vanish.
    static func exampleLines(_ cell: String) -> [String] {
        if !cell.utf8.contains(where: { $0 == DelimitedText.cr || $0 == DelimitedText.lf }) {
            let example = trimmed(cell)
            return example.isEmpty ? [] : [example]
        }
        return cell.unicodeScalars
            .split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { trimmed(String($0)) }
            .filter { !$0.isEmpty }
    }

    /// Whitespace-separated tags, as Anki writes them.
    static func tagList(_ cell: String) -> [String] {
        if cell.utf8.allSatisfy({ $0 < 0x80 }) {
            // All-ASCII cells, the usual case, can be split on bytes.
            return cell.utf8
                .split(whereSeparator: { $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) })
                .map { String(decoding: $0, as: UTF8.self) }
        }
        return cell.unicodeScalars
            .split(whereSeparator: { $0.properties.isWhitespace })
            .map { String($0) }
    }
}
