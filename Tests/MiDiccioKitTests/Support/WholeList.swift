@testable import MiDiccioLibrary

/// A list without a header read whole, as MiDiccio read every list before lists were
/// streamed (kept here as the reference the streamed imports are checked against): its
/// separator, columns, rows and each row's fields as the file had them. Kept word for word
/// but for one fix: line breaks are counted one by one (`lineBreaks`), where counting the
/// characters of `filter(\.isNewline)` joined a CR and a later LF into one.
struct WholeList {
    var separator: String
    var columns: [ListColumn]
    var rows: [SheetRow]
    var fields: [[String]]

    /// Reads `text` as cards of fields. `preferComma`: the file's name ends in `.csv`.
    static func read(_ text: String, layout: ListLayout, preferComma: Bool = false) throws -> WholeList {
        var body = Substring(text)
        if body.unicodeScalars.first == "\u{FEFF}" { body = Substring(body.unicodeScalars.dropFirst()) }
        let separator = layout.separator ?? guessSeparator(body, cardSeparator: layout.cardSeparator, preferComma: preferComma)
        if let cardSeparator = layout.cardSeparator, cardSeparator == separator {
            throw SheetError(line: 0, message: "the separator between fields and the one between cards are the same")
        }
        let records = try cards(body, separator: separator, cardSeparator: layout.cardSeparator)
        let width = records.map(\.fields.count).max() ?? 0
        let columns = layout.columns ?? HeaderlessList.defaultColumns(width: width)
        var list = WholeList(separator: separator, columns: columns, rows: [], fields: [])
        for record in records {
            let (row, fields) = try HeaderlessList.row(record, columns: columns)
            list.rows.append(row)
            list.fields.append(fields)
        }
        return list
    }

    /// The first candidate found on every non-blank line, or card, of the first twenty.
    static func guessSeparator(_ body: Substring, cardSeparator: String?, preferComma: Bool) -> String {
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

    /// Cards and their fields: a one-byte separator between lines through the CSV reader,
    /// anything else cut as is (blank cards left out; a card after a card separator starts
    /// on the line of its first visible character).
    static func cards(_ body: Substring, separator: String, cardSeparator: String?) throws -> [DelimitedRecord] {
        if cardSeparator == nil, separator.utf8.count == 1, let byte = separator.utf8.first, DelimitedText.isValidSeparator(byte) {
            return try DelimitedText.parse(body, separator: byte).filter { !WordSheet.isBlankRecord($0) }
        }
        var records: [DelimitedRecord] = []
        var line = 1
        let cards: [Substring]
        if let cardSeparator {
            cards = body.split(separator: cardSeparator, omittingEmptySubsequences: false)
        } else {
            cards = body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        }
        for card in cards {
            let fields = card.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
            if !WordSheet.isBlankRecord(DelimitedRecord(line: line, fields: fields)) {
                var start = line
                if cardSeparator != nil, let first = card.firstIndex(where: { !$0.isWhitespace }) {
                    start += lineBreaks(card[..<first])
                }
                records.append(DelimitedRecord(line: start, fields: fields))
            }
            line += cardSeparator.map { lineBreaks(card) + lineBreaks($0[...]) } ?? 1
        }
        return records
    }

    /// The characters of `text` that are line breaks (CR LF is one).
    static func lineBreaks(_ text: Substring) -> Int {
        text.reduce(0) { $1.isNewline ? $0 + 1 : $0 }
    }
}
