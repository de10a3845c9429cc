import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// The last imports read whole now stream (issue 12): a list cut as is (Quizlet's custom
/// card separator, or a separator of several characters) and an Anki plain-text export
/// are read a megabyte at a time while their words are written. They read exactly as the
/// whole text did, and a bad card or note anywhere still leaves nothing imported.
@Suite("A list with a card separator and an Anki text export import as they stream, as if read whole")
struct ImportingCardSeparatedListsAndAnkiTextTests {
    // MARK: - The cutting, against the way the whole text was cut before (`WholeList`)

    /// Random text from pieces chosen to trip a cut: the separators whole and in part,
    /// line breaks of every kind, an accent composed and decomposed (equal characters to
    /// Swift), combining marks right after a separator, emoji with modifiers, CJK,
    /// no-break spaces and Unicode line separators.
    private static func randomText(_ generator: inout SeededGenerator, parts: Int) -> String {
        let pieces = [
            "palabra", "significado", "é", "e\u{301}", ";;", ";", ";\u{301}", "\n", "\r\n", "\r", "\n\n", " ", "\t", "|",
            " - ", "-", "日本語", "👍🏽", "\u{00A0}", "\u{2028}", "x", ",", "\u{FEFF}", "🇪🇸",
        ]
        var text = ""
        for _ in 0..<parts { text += pieces[Int(generator.next() % UInt64(pieces.count))] }
        return text
    }

    /// `text`'s bytes in pieces of random sizes (1 to 9 bytes, or a few hundred), so cuts
    /// fall inside characters, between CR and LF, and inside a separator.
    private static func randomPieces(_ text: String, _ generator: inout SeededGenerator) -> () -> [UInt8]? {
        let bytes = Array(text.utf8)
        var sizes: [Int] = []
        var total = 0
        while total < bytes.count {
            let size = generator.next() % 4 == 0 ? Int(generator.next() % 300) + 1 : Int(generator.next() % 9) + 1
            sizes.append(size)
            total += size
        }
        var at = 0
        var index = 0
        return {
            guard at < bytes.count else { return nil }
            let end = min(bytes.count, at + sizes[index])
            defer {
                at = end
                index += 1
            }
            return Array(bytes[at..<end])
        }
    }

    @Test(
        "cards cut from pieces of every size are those the whole text was cut into",
        arguments: [(" - ", ";;"), ("|", "\n\n"), (";", ";;"), ("\t", "🇪🇸"), ("é", ";"), (" - ", nil)] as [(String, String?)])
    func cutsAsTheWholeText(separator: String, cardSeparator: String?) throws {
        var generator = SeededGenerator(seed: 12)
        for round in 0..<300 {
            let text = Self.randomText(&generator, parts: round % 50 == 0 ? 3_000 : Int(generator.next() % 120))
            var body = Substring(text)
            if body.unicodeScalars.first == "\u{FEFF}" { body = Substring(body.unicodeScalars.dropFirst()) }
            let expected = try WholeList.cards(body, separator: separator, cardSeparator: cardSeparator)
            let cutting = ListCutting.asIs(separator: separator, cardSeparator: cardSeparator)
            var streamed: [DelimitedRecord] = []
            try HeaderlessList.forEachCard(pieces: Self.randomPieces(text, &generator), cutting: cutting) { streamed.append($0) }
            #expect(streamed == expected, "round \(round): \(text.debugDescription)")
            guard let cardSeparator else { continue }
            let guess = WholeList.guessSeparator(body, cardSeparator: cardSeparator, preferComma: false)
            let layout = ListLayout(cardSeparator: cardSeparator)
            let pieces = Self.randomPieces(text, &generator)
            if guess == cardSeparator {
                #expect(throws: SheetError.self) {
                    try HeaderlessList.streamingCutting(head: "", pieces: { pieces }, layout: layout, preferComma: false)
                }
            } else {
                let guessed = try HeaderlessList.streamingCutting(head: "", pieces: { pieces }, layout: layout, preferComma: false)
                #expect(guessed.separator == guess, "round \(round): \(text.debugDescription)")
            }
        }
    }

    // MARK: - Imports

    private func write(_ text: String, named name: String, in fixture: TemporaryLibrary) throws -> String {
        let path = fixture.file(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Over a megabyte and a half of Quizlet-style cards (` - ` between fields, `;;` between
    /// cards), with a byte order mark, cards over several lines, accents, blank cards,
    /// and the one card with a third field near the end.
    private func largeQuizletList() -> String {
        var text = "\u{FEFF}"
        for index in 0..<28_000 {
            switch index {
            case 7_777: text += "palabra\(index) - dos líneas\ncon café;;"
            case 15_000: text += "  \n;;"
            case 27_990: text += "\npalabra\(index) - significado - una nota al final;;"
            default: text += "palabra\(index) - significado número \(index), ñandú y café;;"
            }
        }
        return text
    }

    private var quizletOptions: ImportOptions {
        var options = ImportOptions()
        options.format = .list
        options.layout = ListLayout(separator: " - ", cardSeparator: ";;")
        return options
    }

    /// Where an import failed, as `invalidImport` says it.
    private static func failure(_ error: LibraryError?) -> String? {
        guard case .invalidImport(_, let line, let message)? = error else { return nil }
        return "line \(line.map(String.init) ?? "-"): \(message)"
    }

    @Test("a list with a card separator: every card, the columns and the preview are those of the whole text")
    func cardSeparatedListStreams() throws {
        try withTemporaryLibrary { fixture in
            let text = largeQuizletList()
            #expect(text.utf8.count > 3 << 19)
            let path = try write(text, named: "quizlet.txt", in: fixture)
            let whole = try WholeList.read(text, layout: quizletOptions.layout)
            let report = try fixture.library.importWords(from: path, options: quizletOptions)

            #expect(report.added == 27_999 && whole.rows.count == 27_999)
            #expect(report.rowCount == whole.rows.count)
            #expect(report.separator == "\" - \"")
            #expect(report.columns == [ListColumn.term, .meaning, .notes])
            #expect(report.sampleFields == Array(whole.fields.prefix(quizletOptions.sampleSize)))
            #expect(report.sample == Array(whole.rows.prefix(quizletOptions.sampleSize)))
            let words = Dictionary(uniqueKeysWithValues: try fixture.library.list().map { ($0.term, $0) })
            for row in whole.rows {
                #expect(words[row.term]?.meaning == row.meaning && words[row.term]?.notes == row.notes, "line \(row.line)")
            }
            #expect(words["palabra7777"]?.meaning == "dos líneas\ncon café")
            #expect(words["palabra27990"]?.notes == "una nota al final")
        }
    }

    @Test("a list with a card separator: its field separator is guessed from its first cards, as read whole")
    func cardSeparatedListGuessesItsSeparator() throws {
        try withTemporaryLibrary { fixture in
            let text = (0..<40_000).map { "palabra\($0)|significado \($0)" }.joined(separator: "##")
            let path = try write(text, named: "cards.txt", in: fixture)
            var options = ImportOptions()
            options.format = .list
            options.layout = ListLayout(cardSeparator: "##")
            let report = try fixture.library.importWords(from: path, options: options)
            #expect(report.separator == "pipes")
            #expect(report.added == 40_000)
            #expect(try fixture.library.list().allSatisfy { $0.meaning.hasPrefix("significado") })
        }
    }

    @Test("a card without a term past the first megabyte names its line, and nothing is imported")
    func cardSeparatedBadCardLate() throws {
        try withTemporaryLibrary { fixture in
            let text = largeQuizletList() + "\n\n - un significado sin palabra;;"
            let path = try write(text, named: "quizlet.txt", in: fixture)
            // The lines before the bad card: those of the cards over two lines, and the two
            // line breaks that open it.
            let line = WholeList.lineBreaks(text[...]) + 1
            let error = #expect(throws: LibraryError.self) { try fixture.library.importWords(from: path, options: quizletOptions) }
            #expect(Self.failure(error) == "line \(line): term: is empty")
            #expect(try fixture.library.counts().words == 0)
        }
    }

    @Test("a card with a CR and, later, a LF spans three lines: the next card's line counts both")
    func crAndLaterLFAreTwoLineBreaks() throws {
        try withTemporaryLibrary { fixture in
            let path = try write("uno - one\rmás\n;;dos - two\r\n;; - sin término;;", named: "cr.txt", in: fixture)
            let error = #expect(throws: LibraryError.self) { try fixture.library.importWords(from: path, options: quizletOptions) }
            #expect(Self.failure(error) == "line 4: term: is empty")
        }
    }

    /// Over a megabyte and a half of an Anki export with HTML, a tags column, a quoted field over
    /// two lines, blank lines instead of one note, and one note with an extra field near the end (a column of
    /// its own for every note).
    private func largeAnkiText() -> String {
        var text = "#separator:tab\n#html:true\n#tags column:3\n"
        for index in 0..<22_000 {
            switch index {
            case 9_999: text += "palabra\(index)\t\"dos<br>líneas\nseguidas\"\tverbo\n"
            case 20_000: text += "\n\n"
            case 21_990: text += "palabra\(index)\tsignificado\tverbo\tuna nota <b>al final</b>\n"
            default: text += "palabra\(index)\tsignificado <i>número</i> \(index), ñandú y café\tnombre común\n"
            }
        }
        return text
    }

    @Test("an Anki text export: every note, its fields' places and the preview are those of the whole text")
    func ankiTextStreams() throws {
        try withTemporaryLibrary { fixture in
            let text = largeAnkiText()
            #expect(text.utf8.count > 3 << 19)
            let path = try write(text, named: "deck.txt", in: fixture)
            let whole = try WordSheet.read(text, format: nil)
            let report = try fixture.library.importWords(from: path)

            #expect(report.format == .ankiText)
            #expect(report.added == 21_999 && whole.count == 21_999)
            #expect(report.sample == Array(whole.prefix(ImportOptions().sampleSize)))
            let words = Dictionary(uniqueKeysWithValues: try fixture.library.list().map { ($0.term, $0) })
            for row in whole {
                let word = words[row.term]
                #expect(word?.meaning == row.meaning && word?.notes == row.notes && word?.tags == row.tags, "line \(row.line)")
            }
            #expect(words["palabra9999"]?.meaning == "dos\nlíneas\nseguidas")
            #expect(words["palabra21990"]?.notes == "una nota al final")
            #expect(words["palabra5"]?.tags == ["nombre", "común"])
        }
    }

    @Test("an Anki note without a term past the first megabyte names its line, and nothing is imported")
    func ankiTextBadNoteLate() throws {
        try withTemporaryLibrary { fixture in
            let text = largeAnkiText() + "\tun significado sin palabra\tetiqueta\n"
            let path = try write(text, named: "deck.txt", in: fixture)
            // Three header lines, 21,999 notes, two blank lines, and the quoted field's second line.
            let error = #expect(throws: LibraryError.self) { try fixture.library.importWords(from: path) }
            #expect(Self.failure(error) == "line 22006: term is empty")
            #expect(try fixture.library.counts().words == 0)
        }
    }

    @Test("an Anki export whose header the first megabyte does not hold is read whole, with the same words")
    func ankiTextHeaderPastTheFirstMegabyte() throws {
        try withTemporaryLibrary { fixture in
            let text =
                String(repeating: String(repeating: " ", count: 2_000) + "\n", count: 600)
                + "#separator:comma\n#html:false\nhola,hello\nadiós,goodbye\n"
            let path = try write(text, named: "late.txt", in: fixture)
            var options = ImportOptions()
            options.format = .ankiText
            let report = try fixture.library.importWords(from: path, options: options)
            #expect(report.added == 2)
            #expect(try fixture.library.list().map(\.meaning).sorted() == ["goodbye", "hello"])
        }
    }
}
