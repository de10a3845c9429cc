import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// A list without a header, split by one character with a card per line, is imported as
/// it streams (issue 12: a million-line list was read whole, 536 MB at its peak): a
/// megabyte at a time, with its columns taken from its widest card in a first pass. It
/// reads exactly as the whole text does, and a bad card anywhere still leaves nothing.
@Suite("A large list without a header imports as it streams, as if read whole")
struct ImportingALargeListWithoutAHeaderTests {
    /// Over two megabytes: a byte order mark, CRLF line ends, blank lines, a quoted
    /// meaning holding a line break and a tab, accents, and the one card with a third
    /// field (so a notes column) near the end.
    private func largeList() -> String {
        var text = "\u{FEFF}"
        for index in 0..<40_000 {
            switch index {
            case 12_345: text += "palabra\(index)\t\"dos líneas\r\ncon\tun tab\"\r\n"
            case 20_000: text += "\r\n\r\n"
            case 39_990: text += "palabra\(index)\tsignificado\tuna nota al final\r\n"
            default: text += "palabra\(index)\tsignificado número \(index), ñandú y café\r\n"
            }
        }
        return text
    }

    private func write(_ text: String, in fixture: TemporaryLibrary) throws -> String {
        let path = fixture.file("list.txt")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Where an import failed, as `invalidImport` says it.
    private struct Failure: Equatable {
        var file: String
        var line: Int?
        var message: String
    }

    private static func `where`(_ error: LibraryError?) -> Failure? {
        guard case .invalidImport(let file, let line, let message)? = error else { return nil }
        return Failure(file: file, line: line, message: message)
    }

    private var listOptions: ImportOptions {
        var options = ImportOptions()
        options.format = .list
        return options
    }

    @Test("every card, its fields, the columns and the preview are those of the whole text")
    func streamedEqualsWhole() throws {
        try withTemporaryLibrary { fixture in
            let text = largeList()
            #expect(text.utf8.count > 2 << 20)
            let path = try write(text, in: fixture)
            let whole = try WholeList.read(text, layout: ListLayout())
            let report = try fixture.library.importWords(from: path, options: listOptions)

            #expect(report.added == whole.rows.count)
            #expect(report.rowCount == whole.rows.count)
            #expect(report.separator == "tabs")
            #expect(report.columns == whole.columns)
            #expect(report.columns == [ListColumn.term, .meaning, .notes])
            #expect(report.sampleFields == Array(whole.fields.prefix(listOptions.sampleSize)))
            #expect(report.sample == Array(whole.rows.prefix(listOptions.sampleSize)))
            let words = Dictionary(uniqueKeysWithValues: try fixture.library.list().map { ($0.term, $0) })
            #expect(words.count == whole.rows.count)
            for row in whole.rows {
                let word = words[row.term]
                #expect(word?.meaning == row.meaning && word?.notes == row.notes, "line \(row.line)")
            }
            // The line break inside quotes is kept as the file wrote it (CRLF), as read whole.
            #expect(words["palabra12345"]?.meaning == "dos líneas\r\ncon\tun tab")
            #expect(words["palabra39990"]?.notes == "una nota al final")
        }
    }

    @Test("a card without a term past the first megabyte names its line, and nothing is imported")
    func badCardLateLeavesNothing() throws {
        try withTemporaryLibrary { fixture in
            let text = largeList() + "\tun significado sin palabra\r\n"
            let path = try write(text, in: fixture)
            let line = text.split(separator: "\r\n", omittingEmptySubsequences: false).count - 1
            let error = #expect(throws: LibraryError.self) { try fixture.library.importWords(from: path, options: listOptions) }
            #expect(Self.where(error) == .init(file: path, line: line, message: "term: is empty"))
            #expect(try fixture.library.counts().words == 0)
        }
    }

    @Test("with --columns given, a card with more fields than named fails at its line, and nothing is imported")
    func tooManyFieldsWithColumnsGiven() throws {
        try withTemporaryLibrary { fixture in
            let path = try write(largeList(), in: fixture)
            var options = listOptions
            options.layout = ListLayout(columns: [.term, .meaning])
            // palabra39990's card has three fields: line 39,993 (after the two blank lines
            // and the line the quoted meaning spans).
            let error = #expect(throws: LibraryError.self) { try fixture.library.importWords(from: path, options: options) }
            #expect(Self.where(error) == .init(file: path, line: 39_993, message: "the row has 3 fields but --columns names 2"))
            #expect(try fixture.library.counts().words == 0)
        }
    }
}
