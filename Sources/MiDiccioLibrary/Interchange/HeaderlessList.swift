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
        try columns(
            named: text.split(separator: ",", omittingEmptySubsequences: false).map { WordSheet.trimmed(String($0)).lowercased() })
    }

    /// The columns `names` (lowercase, trimmed) name, as a layout: every name known (`-`
    /// is `skip`), none twice but notes and skip, the term among them. `--columns` and a
    /// list's header row (`HeaderlessList.headerColumns`) follow these same rules.
    static func columns(named names: [String]) throws(SheetError) -> [ListColumn] {
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

/// A list without a header: how it is cut into cards and fields, and the rows its cards
/// make.
enum HeaderlessList {
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

    /// How cards of fields split by `separator`, and by `cardSeparator` or line breaks,
    /// are cut: a one-byte separator between lines by the CSV reader (quotes work as in
    /// any spreadsheet export), anything else as is, without quoting, the way Quizlet
    /// writes its custom separators.
    static func cutting(separator: String, cardSeparator: String?) throws(SheetError) -> ListCutting {
        if let cardSeparator, cardSeparator == separator {
            throw SheetError(line: 0, message: "the separator between fields and the one between cards are the same")
        }
        if cardSeparator == nil, separator.utf8.count == 1, let byte = separator.utf8.first, DelimitedText.isValidSeparator(byte) {
            return .delimited(byte)
        }
        return .asIs(separator: separator, cardSeparator: cardSeparator)
    }

    /// The row a card (`record`, not blank) makes under `columns`, and its trimmed fields.
    /// Empty fields past the last column are left out; a message about more names who
    /// gave the columns (`namedBy`: `--columns`, the first row). With `unescapes`, the
    /// cells are taken as an export wrote them (`WordSheet.spreadsheetUnescaped`).
    static func row(
        _ record: DelimitedRecord, columns: [ListColumn], namedBy: String = "--columns", unescapes: Bool = false
    ) throws(SheetError) -> (SheetRow, [String]) {
        var fields = record.fields.map { WordSheet.trimmed(unescapes ? WordSheet.spreadsheetUnescaped($0) : $0) }
        while fields.count > columns.count, fields.last?.isEmpty == true { fields.removeLast() }
        guard fields.count <= columns.count else {
            throw SheetError(
                line: record.line,
                message: "the row has \(fields.count) fields but \(namedBy) names \(columns.count)")
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

    /// How a list read as it streams is cut (`cutting(separator:cardSeparator:)`), with
    /// its separator guessed when not given: from its start (`head`, whole lines) for
    /// cards on lines, or else from its first cards, read from `pieces` (only as far as
    /// they go).
    static func streamingCutting(
        head: Substring, pieces: () throws -> () throws -> [UInt8]?, layout: ListLayout, preferComma: Bool
    ) throws -> ListCutting {
        var body = head
        if body.unicodeScalars.first == "\u{FEFF}" { body = Substring(body.unicodeScalars.dropFirst()) }
        if let given = layout.separator { return try cutting(separator: given, cardSeparator: layout.cardSeparator) }
        guard let cardSeparator = layout.cardSeparator else {
            return try cutting(separator: guessSeparator(lines: body, preferComma: preferComma), cardSeparator: nil)
        }
        var cards: [Substring] = []
        var cutter = CardCutter(cardSeparator: cardSeparator)
        let take: (Substring, Int) throws -> Void = { card, _ in
            if !card.isEmpty { cards.append(card) }
            if cards.count == guessedCards { throw EnoughCards() }
        }
        do {
            try forEachTextSegment(pieces: try pieces()) { try cutter.add($0, take) }
            try cutter.finish(take)
        } catch is EnoughCards {}
        return try cutting(separator: guessSeparator(firstCards: cards, preferComma: preferComma), cardSeparator: cardSeparator)
    }

    /// Ends the reading of a list's first cards once the guess has them.
    private struct EnoughCards: Error {}

    /// Calls `body` with each card of a list whose text arrives in pieces (`next`, nil at
    /// its end), as the whole text is cut: blank cards are skipped, and a structural
    /// problem throws with its line. The bytes must be UTF-8 (checked before).
    static func forEachCard(
        pieces next: () throws -> [UInt8]?, cutting: ListCutting, _ body: (DelimitedRecord) throws -> Void
    ) throws {
        switch cutting {
        case .delimited(let separator):
            try SheetError.readingDelimitedText {
                try DelimitedText.forEachRecord(pieces: next, separator: separator) { record in
                    if !WordSheet.isBlankRecord(record) { try body(record) }
                }
            }
        case .asIs(let separator, let cardSeparator):
            var cutter = CardCutter(cardSeparator: cardSeparator)
            let fields = TextSearch(separator)
            try withoutActuallyEscaping(body) { body in
                let take: (Substring, Int) throws -> Void = { card, line in
                    if let record = record(card: card, line: line, fields: fields, cardSeparator: cardSeparator) { try body(record) }
                }
                try forEachTextSegment(pieces: next) { try cutter.add($0, take) }
                try cutter.finish(take)
            }
        }
    }

    /// The record a card cut as is makes, starting on `line`: its fields cut where
    /// `fields` finds their separator; nil for a blank card. A card after a card separator
    /// starts on the line of its first visible character.
    private static func record(card: Substring, line: Int, fields: TextSearch, cardSeparator: String?) -> DelimitedRecord? {
        var cut: [String] = []
        var start = card.startIndex
        while let match = fields.firstRange(in: card[start...]) {
            cut.append(String(card[start..<match.lowerBound]))
            start = match.upperBound
        }
        cut.append(String(card[start...]))
        guard !WordSheet.isBlankRecord(DelimitedRecord(line: line, fields: cut)) else { return nil }
        var first = line
        if cardSeparator != nil, let visible = card.firstIndex(where: { !$0.isWhitespace }) {
            first += TextSearch.lineBreaks(in: card[..<visible])
        }
        return DelimitedRecord(line: first, fields: cut)
    }

    /// The columns a list's first card names, when it is a header rather than a word:
    /// every field one of MiDiccio's column names (any case), the term among them, and no
    /// name twice but notes. Spreadsheets in many languages save "CSV" with semicolons, so a
    /// MiDiccio-style header (`term;meaning;tags`) arrives as a list; nil for any other card.
    ///
    /// The header an export writes names `due` and `state` too (skipped, as the export's own
    /// reader does), and empty names at its end are columns skipped (a spreadsheet saves
    /// them once a cell past the last column was formatted). `written` is true when the
    /// names are those of an export, whose cells are then taken as it wrote them: a file
    /// exported and saved again by a spreadsheet that separates with `;` (round 14A).
    static func header(_ record: DelimitedRecord) -> (columns: [ListColumn], written: Bool)? {
        var names = record.fields.map { WordSheet.trimmed($0).lowercased() }
        // A header names no column to skip.
        guard !names.contains("-") else { return nil }
        var unnamed = 0
        while names.count > 1, names.last?.isEmpty == true {
            names.removeLast()
            unnamed += 1
        }
        let exported = ["term", "meaning", "reading", "examples", "notes", "tags"]
        let written = names == exported || names == exported + ["due", "state"]
        // The rules of `--columns`.
        guard
            let columns = try? ListColumn.columns(
                named: names.map { $0 == "due" || $0 == "state" ? "-" : $0 } + Array(repeating: "-", count: unnamed))
        else { return nil }
        return (columns, written)
    }

    /// The separator a text's first line names, as Excel writes it to be opened with that
    /// separator (`sep=;`, quoted or not); nil when the text does not start so. The line is
    /// no word (round 14A: it became two).
    static func announcedSeparator(_ text: Substring) -> String? {
        var body = text
        if body.unicodeScalars.first == "\u{FEFF}" { body = Substring(body.unicodeScalars.dropFirst()) }
        var line = body.prefix { !$0.isNewline }
        if line.count >= 2, line.first == "\"", line.last == "\"" { line = line.dropFirst().dropLast() }
        guard line.count >= 5, line.prefix(4).lowercased() == "sep=" else { return nil }
        let named = line.dropFirst(4)
        // `sep=;;;` when a spreadsheet saved the line again with its empty cells.
        guard let separator = named.first, named.allSatisfy({ $0 == separator }),
            !separator.isLetter, !separator.isNumber, separator != "\""
        else { return nil }
        return String(separator)
    }

    /// Term, meaning, then notes for every further column.
    static func defaultColumns(width: Int) -> [ListColumn] {
        (0..<max(width, 2)).map { $0 == 0 ? .term : $0 == 1 ? .meaning : .notes }
    }

    /// How many cards, or lines, the separator is guessed from.
    private static let guessedCards = 20

    /// The separator guessed from the first twenty cards of a list on lines: the one that
    /// cuts them alike (`evenSeparator`), else the first found on every non-blank line
    /// (`guessSeparator(in:)`).
    private static func guessSeparator(lines body: Substring, preferComma: Bool) -> String {
        if let even = evenSeparator(body) { return even }
        let lines = body.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline).prefix(guessedCards)
        return guessSeparator(in: Array(lines), preferComma: preferComma)
    }

    /// The first of tab, `;`, `|` and `,` that cuts every one of the first twenty cards of
    /// `body`, read as CSV is (a quoted cell may hold line breaks), into the same number of
    /// fields, two or more; nil when none does. Guessed from lines, a cell with a line
    /// break (Excel's Alt+Enter) made every candidate miss a line and the list was read
    /// with tabs, its header a word; and a `;` list whose meanings all held a comma was
    /// read with commas, in a `.csv` file (found by the exploratory helper, round 11). A
    /// `;` ahead of `,` even for a `.csv` file: lines that all hold as many commas are
    /// meanings ("house, home") more often than lines that all hold as many semicolons.
    private static func evenSeparator(_ body: Substring) -> String? {
        for candidate in ["\t", ";", "|", ","] {
            var widths: [Int] = []
            do {
                try DelimitedText.forEachRecord(body, separator: UInt8(ascii: Unicode.Scalar(candidate)!)) { record in
                    guard record.fields.contains(where: { !WordSheet.trimmed($0).isEmpty }) else { return }
                    widths.append(record.fields.count)
                    if widths.count == guessedCards { throw EnoughCards() }
                }
            } catch {
                // Enough cards, or the start of the file ends inside a quoted cell: the
                // cards read so far.
            }
            if let first = widths.first, first >= 2, widths.allSatisfy({ $0 == first }) { return candidate }
        }
        return nil
    }

    /// The separator guessed from a list's cards cut at a card separator, all or the first
    /// twenty that hold anything.
    private static func guessSeparator(firstCards cards: [Substring], preferComma: Bool) -> String {
        guessSeparator(in: Array(cards.lazy.filter { !$0.isEmpty }.prefix(guessedCards)), preferComma: preferComma)
    }

    /// The first candidate found on every non-blank card of `cards`: tab, then `;` and `|`
    /// (rarer inside a meaning than a comma), then `,`. A list of terms alone has none, and
    /// gets a tab, which it does not contain.
    private static func guessSeparator(in cards: [Substring], preferComma: Bool) -> String {
        let sample = cards.filter { !WordSheet.trimmed(String($0)).isEmpty }
        let candidates = preferComma ? ["\t", ",", ";", "|"] : ["\t", ";", "|", ","]
        for candidate in candidates where !sample.isEmpty && sample.allSatisfy({ $0.firstRange(of: candidate) != nil }) {
            return candidate
        }
        return "\t"
    }

    /// Text split from UTF-8 pieces (`next`, nil at the end) where a character surely
    /// ends, so that every segment, and the text they make together, has the characters of
    /// the whole text: after a line feed (a character boundary whatever follows), or
    /// between two ASCII bytes other than CR LF. A byte order mark at the start is left
    /// out, as the whole text leaves it out.
    static func forEachTextSegment(pieces next: () throws -> [UInt8]?, _ body: (String) throws -> Void) throws {
        var buffer: [UInt8] = []
        var atStart = true
        var ended = false
        while !ended {
            // Only the new bytes (and the one before them) can hold a new place to cut.
            let searchFrom = max(buffer.count, 1)
            if let piece = try next() { buffer += piece } else { ended = true }
            var cut = ended ? buffer.count : 0
            if !ended {
                var index = buffer.count - 1
                while index >= searchFrom {
                    let before = buffer[index - 1], after = buffer[index]
                    if before == DelimitedText.lf
                        || (before < 0x80 && after < 0x80 && !(before == DelimitedText.cr && after == DelimitedText.lf))
                    {
                        cut = index
                        break
                    }
                    index -= 1
                }
            }
            guard cut > 0 else { continue }
            var segment = String(decoding: buffer[..<cut], as: UTF8.self)
            if atStart, segment.unicodeScalars.first == "\u{FEFF}" { segment = String(segment.unicodeScalars.dropFirst()) }
            atStart = false
            buffer.removeFirst(cut)
            try body(segment)
        }
    }
}

/// How a list without a header is cut into cards and their fields.
enum ListCutting: Equatable {
    /// Fields split by one byte and cards by line breaks, read by the CSV reader.
    case delimited(UInt8)
    /// Fields split by `separator` (any text) and cards by `cardSeparator`, or line breaks
    /// when nil; cut as is, without quoting.
    case asIs(separator: String, cardSeparator: String?)

    /// The separator between fields.
    var separator: String {
        switch self {
        case .delimited(let byte): String(UnicodeScalar(byte))
        case .asIs(let separator, _): separator
        }
    }
}

/// Cuts a list's text, which arrives in segments that end on character boundaries, into
/// its cards as lists were cut when read whole (`split` of the whole text): at each card
/// separator, found left to right (characters compared as Swift compares them), or at
/// each line break (LF, CRLF or CR) when there is none. Each card goes to the caller with
/// the line it starts on.
struct CardCutter {
    /// Between cards; nil: a line break.
    let cardSeparator: String?
    /// The text after the last card cut.
    private var pending = ""
    /// The line `pending` starts on.
    private var line = 1
    /// Finds the card separator.
    private let search: TextSearch?
    /// Line breaks in the card separator.
    private let separatorLines: Int
    /// The card separator's characters.
    private let separatorLength: Int

    init(cardSeparator: String?) {
        self.cardSeparator = cardSeparator
        search = cardSeparator.map(TextSearch.init)
        separatorLines = cardSeparator.map { TextSearch.lineBreaks(in: $0[...]) } ?? 0
        separatorLength = cardSeparator?.count ?? 1
    }

    /// Adds `segment` and hands `body` each card it completes.
    mutating func add(_ segment: String, _ body: (Substring, Int) throws -> Void) rethrows {
        // Only the end of the text before can start a separator that `segment` completes.
        let searchFrom = pending.utf8.count
        pending += segment
        var from = pending.utf8.index(pending.startIndex, offsetBy: searchFrom)
        for _ in 1..<separatorLength where from > pending.startIndex { from = pending.index(before: from) }
        var cardStart = pending.startIndex
        while let cut = nextCut(from: from) {
            let card = pending[cardStart..<cut.lowerBound]
            try body(card, line)
            line += cardSeparator == nil ? 1 : TextSearch.lineBreaks(in: card) + separatorLines
            cardStart = cut.upperBound
            from = cardStart
        }
        pending = String(pending[cardStart...])
    }

    /// Hands `body` the last card (the text after the last cut, even empty), as `split`
    /// of the whole text gives it.
    mutating func finish(_ body: (Substring, Int) throws -> Void) rethrows {
        try body(pending[...], line)
        pending = ""
    }

    private func nextCut(from start: String.Index) -> Range<String.Index>? {
        let rest = pending[start...]
        guard let search else {
            guard let index = rest.firstIndex(where: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) else { return nil }
            return index..<pending.index(after: index)
        }
        return search.firstRange(in: rest)
    }
}

/// Finds a separator in text as a search over characters does (leftmost first, characters
/// compared as Swift compares them), many times faster when the separator is ASCII: its
/// bytes are looked for, and a match counts only where a character starts and where one
/// ends (`;` followed by a combining accent is another character, not `;`). The text must
/// start and end where characters do.
struct TextSearch {
    /// The separator.
    let text: String
    /// Its bytes, when every one is ASCII.
    private let ascii: [UInt8]?

    init(_ text: String) {
        self.text = text
        ascii = !text.isEmpty && text.utf8.allSatisfy({ $0 < 0x80 }) ? Array(text.utf8) : nil
    }

    /// The first match in `haystack`, nil when there is none.
    func firstRange(in haystack: Substring) -> Range<String.Index>? {
        guard let ascii else { return haystack.firstRange(of: text) }
        let utf8 = haystack.utf8
        let base = haystack.base
        var from = utf8.startIndex
        while let found = utf8[from...].firstIndex(of: ascii[0]) {
            guard let end = utf8.index(found, offsetBy: ascii.count, limitedBy: utf8.endIndex) else { return nil }
            if ascii.count == 1 || utf8[found..<end].elementsEqual(ascii),
                found.samePosition(in: base) != nil, end.samePosition(in: base) != nil
            {
                return found..<end
            }
            from = utf8.index(after: found)
        }
        return nil
    }

    /// The line breaks in `text`: its characters that are one (`Character.isNewline`; CR
    /// LF is one), counted on its bytes when they are all ASCII. (Counting the characters
    /// of `filter(\.isNewline)` instead joined a CR and a later LF into one, and put every
    /// later line number one short, as lists cut as is were read before.)
    static func lineBreaks(in text: Substring) -> Int {
        var count = 0
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte >= 0x80 { return text.reduce(0) { $1.isNewline ? $0 + 1 : $0 } }
            if (0x0A...0x0D).contains(byte) && !(byte == 0x0A && previous == 0x0D) { count += 1 }
            previous = byte
        }
        return count
    }
}
