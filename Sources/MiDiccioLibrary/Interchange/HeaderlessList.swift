import MiDiccioModel

/// Where one column of a list without a header goes.
public enum ListColumn: String, Sendable, CaseIterable {
    /// The word or phrase.
    case term
    /// What it means.
    case meaning
    /// How it is read.
    case reading
    /// Example sentences, one per line in the cell.
    case examples
    /// Notes; several notes columns are joined, one per line.
    case notes
    /// Tags separated by spaces.
    case tags
    /// A column that is left out.
    case skip

    /// Reads a `--columns` value such as `term,meaning,tags`; `-` is another name for `skip`.
    public static func list(_ text: String) throws(SheetError) -> [ListColumn] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map {
            WordSheet.trimmed(String($0)).lowercased()
        }
        var columns: [ListColumn] = []
        for name in names {
            guard let column = name == "-" ? .skip : ListColumn(rawValue: name) else {
                let valid = allCases.map(\.rawValue).joined(separator: ", ")
                throw SheetError(line: 0, message: "unknown column \"\(name)\" in --columns; valid columns are \(valid)")
            }
            if column != .skip && column != .notes && columns.contains(column) {
                throw SheetError(line: 0, message: "column \"\(name)\" appears more than once in --columns")
            }
            columns.append(column)
        }
        guard columns.contains(.term) else {
            throw SheetError(line: 0, message: "one of the columns must be the term")
        }
        return columns
    }
}

/// How a list without a header is cut into cards and fields.
public struct ListLayout: Sendable, Hashable {
    /// Between the fields of a card; nil: found from the first lines (tab, `;`, `|`, `,`).
    public var separator: String?
    /// Between cards, as Quizlet's "custom" row separator; nil: a line break.
    public var cardSeparator: String?
    /// What each position holds; nil: term, meaning, then notes.
    public var columns: [ListColumn]?

    /// Makes a layout; every part left nil is found from the file.
    public init(separator: String? = nil, cardSeparator: String? = nil, columns: [ListColumn]? = nil) {
        self.separator = separator
        self.cardSeparator = cardSeparator
        self.columns = columns
    }

    /// Reads a `--separator` value: `tab`, `comma`, `semicolon`, `pipe`, `space`, or the
    /// text itself (one or more characters, `\t` and `\n` written as such).
    public static func separator(named text: String) throws(SheetError) -> String {
        switch text.lowercased() {
        case "tab", "\\t": return "\t"
        case "comma": return ","
        case "semicolon": return ";"
        case "pipe": return "|"
        case "space": return " "
        case "newline", "\\n": return "\n"
        default:
            guard !text.isEmpty else { throw SheetError(line: 0, message: "a separator cannot be empty") }
            return text.replacingEscapes
        }
    }
}

extension String {
    /// `\t` and `\n` typed on a command line become the characters.
    fileprivate var replacingEscapes: String {
        var result = ""
        var escaped = false
        for character in self {
            if escaped {
                switch character {
                case "t": result.append("\t")
                case "n": result.append("\n")
                default: result += "\\" + String(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        if escaped { result.append("\\") }
        return result
    }
}

/// A list read without a header: its rows, the raw fields behind them and the layout found.
struct HeaderlessList {
    /// The separator between fields that was used.
    var separator: String
    /// What each position held.
    var columns: [ListColumn]
    /// The rows, in file order.
    var rows: [SheetRow]
    /// Each row's fields as the file had them (trimmed), for a preview.
    var fields: [[String]]

    /// The separator as people call it, for messages and previews.
    static func describe(_ separator: String) -> String {
        switch separator {
        case "\t": "tabs"
        case ",": "commas"
        case ";": "semicolons"
        case "|": "pipes"
        case " ": "spaces"
        case "\n": "line breaks"
        default: "\"\(separator)\""
        }
    }

    /// Reads `text` as cards of fields. `preferComma`: the file's name ends in `.csv`.
    static func read(_ text: String, layout: ListLayout, preferComma: Bool = false) throws(SheetError) -> HeaderlessList {
        var body = Substring(text)
        if body.unicodeScalars.first == "\u{FEFF}" { body = Substring(body.unicodeScalars.dropFirst()) }
        let separator = layout.separator ?? guessSeparator(body, cardSeparator: layout.cardSeparator, preferComma: preferComma)
        if let cardSeparator = layout.cardSeparator, cardSeparator == separator {
            throw SheetError(line: 0, message: "the separator between fields and the one between cards are the same")
        }
        let records = try split(body, separator: separator, cardSeparator: layout.cardSeparator)
        let width = records.map(\.fields.count).max() ?? 0
        let columns = layout.columns ?? defaultColumns(width: width)
        var list = HeaderlessList(separator: separator, columns: columns, rows: [], fields: [])
        list.rows.reserveCapacity(records.count)
        for record in records {
            let (row, fields) = try self.row(record, columns: columns)
            list.rows.append(row)
            list.fields.append(fields)
        }
        return list
    }

    /// The row a card (`record`, not blank) makes under `columns`, and its trimmed fields.
    static func row(_ record: DelimitedRecord, columns: [ListColumn]) throws(SheetError) -> (SheetRow, [String]) {
        let fields = record.fields.map(WordSheet.trimmed)
        guard fields.count <= columns.count else {
            throw SheetError(
                line: record.line,
                message: "the row has \(fields.count) fields but --columns names \(columns.count)")
        }
        var row = SheetRow(line: record.line, term: "")
        var notes: [String] = []
        for (column, value) in zip(columns, fields) {
            switch column {
            case .term: row.term = value
            case .meaning: row.meaning = value
            case .reading: row.reading = value
            case .examples: row.examples = WordSheet.exampleLines(value)
            case .notes: if !value.isEmpty { notes.append(value) }
            case .tags: row.tags = WordSheet.tagList(value)
            case .skip: break
            }
        }
        row.notes = notes.joined(separator: "\n")
        guard !row.term.isEmpty else { throw SheetError(line: record.line, message: "term: is empty") }
        return (row, fields)
    }

    /// The separator byte a list can be read with as it streams, given its start
    /// (`head`, whole lines): a one-byte separator between fields and line breaks between
    /// cards, the common case, read by the CSV reader. Nil for a card separator or a
    /// separator of several characters, which are cut from the whole text.
    static func streamingSeparator(head: Substring, layout: ListLayout, preferComma: Bool) -> UInt8? {
        guard layout.cardSeparator == nil else { return nil }
        var body = head
        if body.unicodeScalars.first == "\u{FEFF}" { body = Substring(body.unicodeScalars.dropFirst()) }
        let separator = layout.separator ?? guessSeparator(body, cardSeparator: nil, preferComma: preferComma)
        guard separator.utf8.count == 1, let byte = separator.utf8.first, DelimitedText.isValidSeparator(byte) else { return nil }
        return byte
    }

    /// Calls `body` with each card of a list whose text arrives in pieces (`next`, nil at
    /// its end), read with `separator` as `read` reads the whole text: blank cards are
    /// skipped, and a structural problem throws with its line.
    static func forEachCard(
        pieces next: () throws -> [UInt8]?, separator: UInt8, _ body: (DelimitedRecord) throws -> Void
    ) throws {
        do {
            try DelimitedText.forEachRecord(pieces: next, separator: separator) { record in
                if !WordSheet.isBlankRecord(record) { try body(record) }
            }
        } catch let error as DelimitedTextError {
            throw SheetError(line: error.line, message: error.message)
        }
    }

    /// Term, meaning, then notes for every further column.
    static func defaultColumns(width: Int) -> [ListColumn] {
        (0..<max(width, 2)).map { $0 == 0 ? .term : $0 == 1 ? .meaning : .notes }
    }

    /// The first candidate found on every non-blank line of the first twenty: tab, then
    /// `;` and `|` (rarer inside a meaning than a comma), then `,`. A list of terms alone
    /// has none, and gets a tab, which it does not contain.
    private static func guessSeparator(_ body: Substring, cardSeparator: String?, preferComma: Bool) -> String {
        let cards: [Substring]
        if let cardSeparator {
            cards = Array(body.split(separator: cardSeparator, maxSplits: 20).prefix(20))
        } else {
            cards = Array(body.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).prefix(20))
        }
        let sample = cards.filter { !WordSheet.trimmed(String($0)).isEmpty }
        let candidates = preferComma ? ["\t", ",", ";", "|"] : ["\t", ";", "|", ","]
        for candidate in candidates where !sample.isEmpty && sample.allSatisfy({ $0.contains(candidate) }) {
            return candidate
        }
        return "\t"
    }

    /// Cards and their fields. A one-byte separator between lines goes through the CSV
    /// reader (quotes work as in any spreadsheet export); anything else is cut as is,
    /// without quoting, the way Quizlet writes its custom separators.
    private static func split(
        _ body: Substring, separator: String, cardSeparator: String?
    ) throws(SheetError) -> [DelimitedRecord] {
        if cardSeparator == nil, separator.utf8.count == 1, let byte = separator.utf8.first,
            DelimitedText.isValidSeparator(byte)
        {
            do {
                return try DelimitedText.parse(body, separator: byte).filter { !WordSheet.isBlankRecord($0) }
            } catch {
                throw SheetError(line: error.line, message: error.message)
            }
        }
        var records: [DelimitedRecord] = []
        var line = 1
        let cards: [Substring]
        if let cardSeparator {
            cards = body.split(separator: cardSeparator, omittingEmptySubsequences: false)
        } else {
            // Keep empty lines so that line numbers stay right.
            cards = body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        }
        for card in cards {
            let fields = card.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
            let record = DelimitedRecord(line: line, fields: fields)
            if !WordSheet.isBlankRecord(record) {
                // A card that starts after the line break ending the last one begins on the next line.
                var start = line
                if cardSeparator != nil, let first = card.firstIndex(where: { !$0.isWhitespace }) {
                    start += card[..<first].filter(\.isNewline).count
                }
                records.append(DelimitedRecord(line: start, fields: fields))
            }
            line += cardSeparator.map { card.filter(\.isNewline).count + $0.filter(\.isNewline).count } ?? 1
        }
        return records
    }
}
