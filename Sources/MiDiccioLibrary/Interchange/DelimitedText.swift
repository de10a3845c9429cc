import MiDiccioModel

// MARK: - Records and errors

/// One record of delimited text, with the physical line it started on.
///
/// `line` is 1-based and counts CR, LF and CRLF each as one line break, so a quoted
/// field that spans lines pushes the line numbers of later records forward.
struct DelimitedRecord: Sendable, Equatable {
    var line: Int
    var fields: [String]
}

/// A structural problem in delimited text that makes its records unknowable.
///
/// Only an unterminated quote qualifies: every other oddity is read leniently
/// (see `DelimitedText`).
struct DelimitedTextError: Error, Sendable, Equatable {
    /// The line where the offending field began, not where the input ran out,
    /// because that is where a person has to look to fix it.
    var line: Int
    var message: String
}

// MARK: - Reader and writer

/// RFC 4180-style delimited text over UTF-8 bytes, with any one-byte ASCII separator.
///
/// Parsing walks bytes rather than `Character`s: the separator, quote, CR and LF are all
/// ASCII, so they can never occur inside a multi-byte scalar, and every field boundary is
/// also a valid UTF-8 boundary. Grapheme breaking would cost an order of magnitude more
/// and would also fuse CRLF with neighbouring text.
///
/// Leniency choices, modelled on what Anki and common spreadsheet exports tolerate:
/// - A quote is only special at the very start of a field. A quote anywhere inside an
///   unquoted field (`5" screen`) is kept literally instead of being an error, because
///   hand-written and Anki files contain such text and rejecting the whole file over it
///   helps no one.
/// - A field is quoted only when its closing quote ends it: the separator, a line break or
///   the end of the text follows. Otherwise (`"Hola" means hello`, written by a program or
///   a person that quotes nothing) the quote is text and the field is read as unquoted, to
///   the next separator or line break. Read as Python's and Rust's CSV readers do, that
///   lost the quotes, and a quote closed lines later swallowed the rows between into one
///   field (found by the exploratory helper, round 11).
/// - A line that is completely empty becomes a record with one empty field; callers
///   that want to skip blank lines decide that themselves.
/// - A final line break does not start an extra, empty record.
enum DelimitedText {
    static let quote = UInt8(ascii: "\"")
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")

    /// Whether `byte` can separate fields: it must be ASCII and must not be the quote
    /// or a line break, or records would be ambiguous.
    static func isValidSeparator(_ byte: UInt8) -> Bool {
        byte < 0x80 && byte != quote && byte != cr && byte != lf
    }

    /// Splits `text` into records; a leading UTF-8 byte order mark is ignored.
    ///
    /// `firstLine` is the physical line number of the first byte of `text`, for callers
    /// that have already consumed some lines (such as Anki's `#` headers).
    static func parse<S: StringProtocol>(
        _ text: S,
        separator: UInt8,
        firstLine: Int = 1
    ) throws(DelimitedTextError) -> [DelimitedRecord] {
        var records: [DelimitedRecord] = []
        do {
            try forEachRecord(text, separator: separator, firstLine: firstLine) { records.append($0) }
        } catch let error as DelimitedTextError {
            throw error
        } catch {
            preconditionFailure("only the reader throws while records are collected: \(error)")
        }
        return records
    }

    /// Calls `body` with each record of `text` as it is read, so a large file is never
    /// held as records; a structural problem throws `DelimitedTextError`, and whatever
    /// `body` throws ends the reading.
    static func forEachRecord<S: StringProtocol>(
        _ text: S,
        separator: UInt8,
        firstLine: Int = 1,
        _ body: (DelimitedRecord) throws -> Void
    ) throws {
        precondition(isValidSeparator(separator), "separator must be ASCII and not a quote or line break")
        let contiguous: Bool? = try text.utf8.withContiguousStorageIfAvailable { bytes in
            _ = try parseBytes(bytes, separator: separator, firstLine: firstLine, atStart: true, final: true, body)
            return true
        }
        if contiguous == nil {
            _ = try Array(text.utf8).withUnsafeBufferPointer { bytes in
                try parseBytes(bytes, separator: separator, firstLine: firstLine, atStart: true, final: true, body)
            }
        }
    }

    /// Like `forEachRecord`, over text that arrives in pieces: `next` gives the next bytes
    /// of the text, nil at its end. Only the piece being read and a record it cuts short
    /// are held, so a file of any size is read in little memory. The records, their lines
    /// and the errors are those of the whole text read at once.
    static func forEachRecord(
        pieces next: () throws -> [UInt8]?,
        separator: UInt8,
        firstLine: Int = 1,
        _ body: (DelimitedRecord) throws -> Void
    ) throws {
        precondition(isValidSeparator(separator), "separator must be ASCII and not a quote or line break")
        var buffer: [UInt8] = []
        var line = firstLine
        var atStart = true
        var ended = false
        while !ended {
            if let piece = try next() { buffer += piece } else { ended = true }
            // A byte order mark is only looked for once three bytes (or all) are here.
            if atStart && buffer.count < 3 && !ended { continue }
            let (used, lineAfter) = try buffer.withUnsafeBufferPointer { bytes in
                try parseBytes(bytes, separator: separator, firstLine: line, atStart: atStart, final: ended, body)
            }
            atStart = false
            line = lineAfter
            buffer.removeFirst(used)
        }
    }

    /// Reads the records of `bytes` and returns how many bytes they took and the line the
    /// next record starts on. `atStart` skips a byte order mark. Unless `final`, more text
    /// follows: a record that `bytes` may cut short (one not yet ended by a line break)
    /// is left unread for the next call, with its bytes.
    private static func parseBytes(
        _ bytes: UnsafeBufferPointer<UInt8>,
        separator: UInt8,
        firstLine: Int,
        atStart: Bool,
        final: Bool,
        _ body: (DelimitedRecord) throws -> Void
    ) throws -> (used: Int, line: Int) {
        let count = bytes.count
        var index = 0
        if atStart, count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            index = 3
        }
        guard index < count else { return (count, firstLine) }

        var fields: [String] = []
        var line = firstLine
        var recordLine = firstLine
        var recordStart = index
        // Reused across fields so that only fields needing unescaping pay for a copy.
        var scratch: [UInt8] = []

        func decode(_ start: Int, _ end: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        while true {
            // At the start of a field.
            var quoted = index < count && bytes[index] == quote
            if quoted {
                let fieldStart = index, fieldLine = line
                index += 1
                var segmentStart = index
                var escaped = false
                var closed = false
                while index < count {
                    let byte = bytes[index]
                    if byte == quote {
                        if index + 1 < count, bytes[index + 1] == quote {
                            // Keep the first quote of the pair and skip the second.
                            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart...index]))
                            index += 2
                            segmentStart = index
                            escaped = true
                            continue
                        }
                        closed = true
                        break
                    } else if byte == cr {
                        line += 1
                        if index + 1 < count, bytes[index + 1] == lf { index += 1 }
                    } else if byte == lf {
                        line += 1
                    }
                    index += 1
                }
                guard closed else {
                    if !final { return (recordStart, recordLine) }
                    throw DelimitedTextError(line: fieldLine, message: "unterminated quoted field")
                }
                // What follows the closing quote is not known yet.
                if index + 1 == count && !final { return (recordStart, recordLine) }
                let next = index + 1 < count ? bytes[index + 1] : lf
                if next == separator || next == lf || next == cr {
                    fields.append(
                        escaped ? String(decoding: scratch + bytes[segmentStart..<index], as: UTF8.self) : decode(segmentStart, index))
                    index += 1
                } else {
                    // Text follows the closing quote: the field was not quoted.
                    index = fieldStart
                    line = fieldLine
                    quoted = false
                }
                scratch.removeAll(keepingCapacity: true)
            }
            if !quoted {
                let start = index
                while index < count {
                    let byte = bytes[index]
                    if byte == separator || byte == lf || byte == cr { break }
                    index += 1
                }
                fields.append(decode(start, index))
            }
            // The piece ends inside the record, or between its CR and a possible LF.
            if !final && (index >= count || (bytes[index] == cr && index + 1 == count)) {
                return (recordStart, recordLine)
            }

            if index < count, bytes[index] == separator {
                // A separator at the very end still announces one more (empty) field.
                index += 1
                continue
            }

            let width = fields.count
            try body(DelimitedRecord(line: recordLine, fields: fields))
            fields = []
            fields.reserveCapacity(width)
            guard index < count else { break }
            if bytes[index] == cr, index + 1 < count, bytes[index + 1] == lf {
                index += 2
            } else {
                index += 1
            }
            line += 1
            recordLine = line
            recordStart = index
            guard index < count else { break }
        }
        return (count, line)
    }

    /// Renders records with `separator` between fields and LF after every record.
    ///
    /// A field is quoted only when it must be: when it holds the separator, a quote, CR or
    /// LF. A field that merely starts with a quote also contains one, so it is quoted and
    /// cannot be misread as a quoted field. Line breaks inside fields are written as they
    /// are, so CRLF inside a value survives a round trip. A record's first field is quoted
    /// too when it starts with `#`: Anki's text import skips such a line as a comment, and
    /// the words `#1` and `#hashtag` of a TSV export were missing there (found by the
    /// exploratory helper, round 11). Work is done on bytes because a
    /// quote followed by a combining mark is a single `Character` and would slip past a
    /// `Character`-based search.
    static func write(_ records: [[String]], separator: UInt8) -> String {
        precondition(isValidSeparator(separator), "separator must be ASCII and not a quote or line break")
        var output: [UInt8] = []
        for record in records {
            appendRecord(record, separator: separator, to: &output)
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends one record and its terminating LF to `output` as UTF-8.
    static func appendRecord(_ fields: [String], separator: UInt8, to output: inout [UInt8]) {
        for (position, field) in fields.enumerated() {
            if position > 0 { output.append(separator) }
            appendField(field, separator: separator, quoting: position == 0 && field.utf8.first == UInt8(ascii: "#"), to: &output)
        }
        output.append(lf)
    }

    private static func appendField(_ field: String, separator: UInt8, quoting: Bool, to output: inout [UInt8]) {
        let needsQuotes =
            quoting
            || field.utf8.contains { byte in
                byte == separator || byte == quote || byte == cr || byte == lf
            }
        guard needsQuotes else {
            output.append(contentsOf: field.utf8)
            return
        }
        output.append(quote)
        for byte in field.utf8 {
            output.append(byte)
            if byte == quote { output.append(quote) }
        }
        output.append(quote)
    }
}
