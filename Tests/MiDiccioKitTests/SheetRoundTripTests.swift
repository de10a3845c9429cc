import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("MiDiccio CSV and TSV sheets")
struct SheetRoundTripTests {
    // MARK: - Fixtures

    /// Rows chosen to break naive CSV handling; all are already in normalised form.
    static let awkwardRows: [SheetRow] = [
        SheetRow(
            term: "say \"hi\"",
            meaning: "a, b, and c",
            reading: "tab\there",
            examples: ["He said \"no\", twice.", "Tab\tinside"],
            notes: "line one\r\nline two\nline three",
            tags: ["quotes", "commas"]
        ),
        SheetRow(term: "👩‍👩‍👧", meaning: "family", notes: "emoji with zero-width joiners"),
        SheetRow(term: "cafe\u{301}", meaning: "caf\u{E9}", reading: "ka-FE"),
        SheetRow(term: "=SUM(A1:A2)", meaning: "", reading: "", examples: [], notes: "", tags: []),
        SheetRow(term: "\"quoted start", meaning: "ends with a quote\"", notes: "\"\"", tags: ["a"]),
        SheetRow(term: "\"\u{301}odd", meaning: "a quote carrying a combining accent"),
        SheetRow(term: "x", meaning: "multi\nline\nmeaning", reading: "r", notes: "CR\rLF\nCRLF\r\nend"),
    ]

    /// Compares code units, because `String ==` treats "é" and "e\u{301}" as equal and
    /// so cannot notice normalisation or a lost CR.
    private static func codeUnits(_ row: SheetRow) -> [[UInt8]] {
        [row.term, row.meaning, row.reading, row.notes].map { Array($0.utf8) }
            + row.examples.map { Array($0.utf8) }
            + [[0xFF]]
            + row.tags.map { Array($0.utf8) }
    }

    private static func withoutLines(_ rows: [SheetRow]) -> [SheetRow] {
        rows.map { row in
            var copy = row
            copy.line = 0
            return copy
        }
    }

    // MARK: - Round trip

    @Test("awkward text survives writing and reading back unchanged", arguments: SheetFormat.allCases)
    func awkwardRoundTrip(format: SheetFormat) throws {
        let text = WordSheet.write(Self.awkwardRows, format: format)
        let back = try WordSheet.read(text, format: format)

        #expect(Self.withoutLines(back) == Self.awkwardRows)
        #expect(back.map(Self.codeUnits) == Self.awkwardRows.map(Self.codeUnits))
    }

    /// Cells a spreadsheet would run as formulas, and cells that only look close to one.
    static let formulaRows: [SheetRow] = [
        SheetRow(term: "=HYPERLINK(\"http://example.invalid\",\"x\")", meaning: "+1+cmd|' /C calc'!A0", tags: ["@tag"]),
        SheetRow(term: "-ción", meaning: "@SUM(1)", examples: ["-first line", "second"], notes: "=1+1"),
        SheetRow(term: "'=already quoted", meaning: "''+twice", reading: "'plain", notes: "it's = not a formula"),
        SheetRow(term: "'", meaning: "''", reading: "x=y"),
    ]

    @Test("in CSV a cell a spreadsheet would run as a formula starts with an apostrophe, and reads back exactly")
    func formulasAreShownAsText() throws {
        let text = WordSheet.write(Self.formulaRows, format: .csv)
        let records = try DelimitedText.parse(text, separator: UInt8(ascii: ","))
        for record in records.dropFirst() {
            for cell in record.fields where !cell.isEmpty {
                let past = cell.drop { $0 == "'" }.first
                #expect(cell.first == "'" || !["=", "+", "-", "@"].contains(past), "a spreadsheet would run \(cell)")
            }
        }
        #expect(text.contains("'=HYPERLINK(") && text.contains("'-ción") && text.contains("''=already quoted"))
        #expect(text.contains(",'plain,") && text.contains(",it's = not a formula"), "\(text)")
        let back = try WordSheet.read(text, format: .csv)
        #expect(back.map(Self.codeUnits) == Self.formulaRows.map(Self.codeUnits))
        // TSV, for Anki and other apps, is written as it is.
        let tsv = WordSheet.write(Self.formulaRows, format: .tsv)
        #expect(tsv.contains("=HYPERLINK(") && !tsv.contains("'=HYPERLINK(") && tsv.contains("\n-ción") && !tsv.contains("'-ción"))
        #expect(try WordSheet.read(tsv, format: .tsv).map(Self.codeUnits) == Self.formulaRows.map(Self.codeUnits))
        // A CSV made elsewhere, with a header of its own, keeps its apostrophes.
        let other = try WordSheet.read("term,meaning\n'=x,'-y\n", format: .csv)
        #expect(other.first?.term == "'=x" && other.first?.meaning == "'-y")
    }

    @Test("written text is recognised without being told its format", arguments: SheetFormat.allCases)
    func roundTripWithDetection(format: SheetFormat) throws {
        let text = WordSheet.write(Self.awkwardRows, format: format)
        let back = try WordSheet.read(text, format: nil)
        #expect(back.map(Self.codeUnits) == Self.awkwardRows.map(Self.codeUnits))
    }

    @Test("rows read back report the physical lines their records start on")
    func roundTripLines() throws {
        let text = WordSheet.write(Self.awkwardRows, format: .csv)
        let back = try WordSheet.read(text, format: .csv)
        // The first row's examples and notes hold three line breaks between them, so every
        // later row starts three lines further down than its index suggests.
        #expect(back.map(\.line) == [2, 6, 7, 8, 9, 10, 11])
    }

    // MARK: - Writer

    @Test("the writer emits the fixed header, joins lists and ends with a newline")
    func writerShape() {
        let rows = [
            SheetRow(term: "perro", meaning: "dog", examples: ["Un perro.", "Dos perros."], tags: ["animal", "a1"])
        ]
        #expect(
            WordSheet.write(rows, format: .csv)
                == "term,meaning,reading,examples,notes,tags\nperro,dog,,\"Un perro.\nDos perros.\",,animal a1\n"
        )
        #expect(
            WordSheet.write(rows, format: .tsv)
                == "term\tmeaning\treading\texamples\tnotes\ttags\n"
                + "perro\tdog\t\t\"Un perro.\nDos perros.\"\t\tanimal a1\n"
        )
    }

    @Test("TSV quotes tabs but leaves commas alone, and CSV does the opposite")
    func writerQuotesOnlyWhatItMust() {
        let rows = [SheetRow(term: "a, b", meaning: "c\td")]
        #expect(WordSheet.write(rows, format: .tsv).hasSuffix("a, b\t\"c\td\"\t\t\t\t\n"))
        #expect(WordSheet.write(rows, format: .csv).hasSuffix("\"a, b\",c\td,,,,\n"))
    }

    @Test("writing no rows gives just the header")
    func writerEmpty() throws {
        let text = WordSheet.write([], format: .csv)
        #expect(text == "term,meaning,reading,examples,notes,tags\n")
        #expect(try WordSheet.read(text, format: nil).isEmpty)
    }

    // MARK: - Header

    @Test("columns may come in any order and any letter case")
    func headerOrder() throws {
        let text = "Tags,NOTES,Term,reading,Meaning\nverb a1,irregular,ir,iʁ,to go\n"
        let rows = try WordSheet.read(text, format: .csv)
        #expect(
            rows == [
                SheetRow(line: 2, term: "ir", meaning: "to go", reading: "iʁ", notes: "irregular", tags: ["verb", "a1"])
            ])
    }

    @Test("only the term column is required")
    func termOnly() throws {
        let rows = try WordSheet.read("term\nuno\ndos\n", format: nil)
        #expect(rows == [SheetRow(line: 2, term: "uno"), SheetRow(line: 3, term: "dos")])
    }

    @Test("an unknown column is named along with the valid ones")
    func unknownColumn() {
        #expect(
            throws: SheetError(
                line: 1,
                message: "unknown column \"colour\"; valid columns are term, meaning, reading, examples, notes, tags"
            )
        ) {
            try WordSheet.read("term,meaning,Colour\nrojo,red,red\n", format: .csv)
        }
    }

    @Test("a column named twice is rejected")
    func duplicateColumn() {
        #expect(throws: SheetError(line: 1, message: "column \"term\" appears more than once")) {
            try WordSheet.read("term,Term\na,b\n", format: .csv)
        }
    }

    @Test("text without a term header or Anki header fails at line 1 saying what was expected")
    func neitherFormat() throws {
        let error = #expect(throws: SheetError.self) {
            try WordSheet.read("word,definition\nuno,one\n", format: nil)
        }
        #expect(error?.line == 1)
        #expect(error?.message.contains("header row naming the columns (term") == true)
        #expect(error?.message.contains("#separator:tab") == true)
        #expect(error?.description.hasPrefix("line 1: expected") == true)
    }

    @Test("reading a TSV as CSV hints at the mix-up")
    func wrongFormatHint() {
        let error = #expect(throws: SheetError.self) {
            try WordSheet.read("term\tmeaning\nuno\tone\n", format: .csv)
        }
        #expect(error?.line == 1)
        #expect(error?.message.hasSuffix("(the first row contains tabs; is it TSV?)") == true)
    }

    @Test("empty or blank text is an error at line 1", arguments: ["", "\n\n", "  \r\n\t\n"])
    func emptyText(text: String) {
        let error = #expect(throws: SheetError.self) {
            try WordSheet.read(text, format: nil)
        }
        #expect(error?.line == 1)
        #expect(error?.message.hasPrefix("the text is empty") == true)
    }

    // MARK: - Rows

    @Test("a row with the wrong number of fields names its line and both counts")
    func fieldCount() {
        #expect(throws: SheetError(line: 3, message: "the row has 3 fields but the header has 2")) {
            try WordSheet.read("term,meaning\nuno,one\ndos,two,extra\n", format: .csv)
        }
    }

    @Test("an unterminated quote is reported at the line where the field opened")
    func unterminatedQuote() {
        let text = "term,meaning\nuno,one\ndos,\"two\nthree\nfour\n"
        #expect(throws: SheetError(line: 3, message: "unterminated quoted field")) {
            try WordSheet.read(text, format: .csv)
        }
    }

    @Test("a term that is empty after trimming is an error naming its line")
    func emptyTerm() {
        #expect(throws: SheetError(line: 4, message: "term is empty")) {
            try WordSheet.read("term,meaning\nuno,one\n\n \u{A0} ,two\n", format: .csv)
        }
    }

    @Test("a byte order mark does not become part of the first column name")
    func byteOrderMark() throws {
        let rows = try WordSheet.read("\u{FEFF}term,meaning\r\nuno,one\r\n", format: nil)
        #expect(rows == [SheetRow(line: 2, term: "uno", meaning: "one")])
    }

    @Test("blank lines and rows of empty cells are skipped without disturbing line numbers")
    func blankLines() throws {
        let text = "\n term , meaning\n\nuno,one\n   \n,\n\t,  \ndos,two\n\n"
        let rows = try WordSheet.read(text, format: .csv)
        #expect(
            rows == [
                SheetRow(line: 4, term: "uno", meaning: "one"),
                SheetRow(line: 8, term: "dos", meaning: "two"),
            ])
    }

    @Test("a multi-line quoted field moves the line numbers of later rows")
    func multiLineField() throws {
        let text = "term\tnotes\r\na\t\"first\nsecond\r\nthird\rfourth\"\r\nb\tx\nc\ty\n"
        let rows = try WordSheet.read(text, format: nil)
        #expect(rows.map(\.line) == [2, 6, 7])
        #expect(rows.first?.notes == "first\nsecond\r\nthird\rfourth")
    }

    @Test("cells are trimmed, examples split per line and tags split on whitespace")
    func cellSplitting() throws {
        let text =
            "term,meaning,examples,tags\n"
            + "  hola ,\" hello \n\",\"  Hola, amigo. \n\n¿Qué tal?\r\n\r  Bien.\",\" saludo  a1\tcasual \"\n"
        let rows = try WordSheet.read(text, format: .csv)
        #expect(rows.count == 1)
        #expect(rows.first?.term == "hola")
        #expect(rows.first?.meaning == "hello")
        #expect(rows.first?.examples == ["Hola, amigo.", "¿Qué tal?", "Bien."])
        #expect(rows.first?.tags == ["saludo", "a1", "casual"])
    }

    // MARK: - Delimited text

    @Test("fields split on any one-byte separator", arguments: [",", "\t", ";", "|", " "])
    func separators(separator: String) throws {
        let byte = try #require(separator.utf8.first)
        let text = "a\(separator)\"b\(separator)c\"\(separator)\nd\(separator)e\(separator)f"
        let records = try DelimitedText.parse(text, separator: byte)
        #expect(
            records == [
                DelimitedRecord(line: 1, fields: ["a", "b\(separator)c", ""]),
                DelimitedRecord(line: 2, fields: ["d", "e", "f"]),
            ])
    }

    @Test("stray quotes inside unquoted fields are kept literally")
    func strayQuote() throws {
        let records = try DelimitedText.parse("5\" screen,it's \"fine\"\n", separator: UInt8(ascii: ","))
        #expect(records == [DelimitedRecord(line: 1, fields: ["5\" screen", "it's \"fine\""])])
    }

    @Test("a record whose first field starts with # is quoted, so Anki does not skip it as a comment, and reads back")
    func hashAtTheStartIsQuoted() throws {
        let text = DelimitedText.write([["#1", "number one"], ["#hashtag", "#kept as it is"]], separator: UInt8(ascii: "\t"))
        #expect(text == "\"#1\"\tnumber one\n\"#hashtag\"\t#kept as it is\n")
        let records = try DelimitedText.parse(text, separator: UInt8(ascii: "\t"))
        #expect(records.map(\.fields) == [["#1", "number one"], ["#hashtag", "#kept as it is"]])
    }

    @Test("text after a closing quote means the field was not quoted: its quotes are text")
    func textAfterClosingQuote() throws {
        let records = try DelimitedText.parse("\"ab\"cd,\"x\"\"y\"z,\"q\"\n", separator: UInt8(ascii: ","))
        #expect(records == [DelimitedRecord(line: 1, fields: ["\"ab\"cd", "\"x\"\"y\"z", "q"])])
    }

    @Test("a list that quotes nothing keeps its quotes, and a quote closed lines later swallows no rows")
    func listsThatQuoteNothing() throws {
        let tab = UInt8(ascii: "\t")
        let records = try DelimitedText.parse(
            "hola\t\"Hola\" means hello\ncita\t\"Cita, as in a date\nfecha\tdate\nhora\t\"hour\" or time\nperro\tdog\n",
            separator: tab)
        #expect(
            records == [
                DelimitedRecord(line: 1, fields: ["hola", "\"Hola\" means hello"]),
                DelimitedRecord(line: 2, fields: ["cita", "\"Cita, as in a date"]),
                DelimitedRecord(line: 3, fields: ["fecha", "date"]),
                DelimitedRecord(line: 4, fields: ["hora", "\"hour\" or time"]),
                DelimitedRecord(line: 5, fields: ["perro", "dog"]),
            ])
        // A field quoted as it must be still spans its lines.
        let quoted = try DelimitedText.parse("a\t\"one\ntwo\"\tz\nb\t\"x\"\"y\"\n", separator: tab)
        #expect(quoted == [DelimitedRecord(line: 1, fields: ["a", "one\ntwo", "z"]), DelimitedRecord(line: 3, fields: ["b", "x\"y"])])
    }

    @Test("empty lines become single empty records and a final newline adds nothing")
    func delimitedBlankLines() throws {
        let records = try DelimitedText.parse("a\n\nb\r\n", separator: UInt8(ascii: ","))
        #expect(
            records == [
                DelimitedRecord(line: 1, fields: ["a"]),
                DelimitedRecord(line: 2, fields: [""]),
                DelimitedRecord(line: 3, fields: ["b"]),
            ])
    }

    @Test("a substring parses with the line number it starts on")
    func substringFirstLine() throws {
        let text = "skip me\nx,\"y\ny\"\nz,w"
        let rest = text[text.firstIndex(of: "x")!...]
        let records = try DelimitedText.parse(rest, separator: UInt8(ascii: ","), firstLine: 2)
        #expect(records.map(\.line) == [2, 4])
        #expect(records.last?.fields == ["z", "w"])
    }

    @Test("the writer and parser agree on raw records", arguments: [UInt8(ascii: ","), UInt8(ascii: "\t")])
    func delimitedRoundTrip(separator: UInt8) throws {
        let records: [[String]] = [["", "\"", "a\"b"], ["\r", "\n", "\r\n"], [",\t", "👩‍👩‍👧", "e\u{301}"]]
        let text = DelimitedText.write(records, separator: separator)
        let back = try DelimitedText.parse(text, separator: separator)
        #expect(back.map { $0.fields.map { Array($0.utf8) } } == records.map { $0.map { Array($0.utf8) } })
    }
}
