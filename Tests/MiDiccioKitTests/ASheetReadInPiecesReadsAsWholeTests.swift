import Foundation
import Testing

@testable import MiDiccioLibrary

/// A MiDiccio CSV or TSV is imported from its file a megabyte at a time (issue 12:
/// an import of a million words must not hold the file whole). Wherever the pieces are
/// cut, inside a quoted field, between a CR and its LF, inside a multi-byte character or
/// a byte order mark, the rows, their lines and the errors are those of the whole text.
@Suite("A sheet read in pieces reads as the whole text does")
struct ASheetReadInPiecesReadsAsWholeTests {
    /// Texts that cross every kind of boundary a cut can fall on.
    static let texts: [(String, SheetFormat)] = [
        ("\u{FEFF}term,meaning,examples,tags\r\n\"say \"\"hi\"\"\",\"a, b\",\"one\ntwo\r\nthree\",x y\r\nñandú,ave,,\r\n", .csv),
        ("term\tmeaning\tnotes\n\n  \ncafé\tcoffee\t\"line\rbreak\"\n日本語\tJapanese\t\nlast\tno final break\tx", .tsv),
        ("term,meaning\r\nuno,one\r\r\ndos,\"two\"\"s\"\r\n\"tres\",three\r", .csv),
        ("term,meaning\n5\" screen,size\n\"ab\"cd,tail after the quote\n", .csv),
        ("term\tmeaning\ncita\t\"Cita, as in a date\nfecha\tdate\nhora\t\"hour\" or time\n\"q\"\t\"x\"", .tsv),
    ]

    /// The rows `read` hands out, or the sheet error that ended it.
    static func collect(_ read: (_ body: (SheetRow) throws -> Void) throws -> Void) -> Result<[SheetRow], SheetError> {
        var rows: [SheetRow] = []
        do {
            try read { rows.append($0) }
            return .success(rows)
        } catch let error as SheetError {
            return .failure(error)
        } catch {
            Issue.record("unexpected \(error)")
            return .success([])
        }
    }

    static func rowsWhole(_ text: String, _ format: SheetFormat) -> Result<[SheetRow], SheetError> {
        collect { body in try WordSheet.forEachRow(text, format: format, body) }
    }

    static func rowsInPieces(_ text: String, _ format: SheetFormat, cut size: Int) -> Result<[SheetRow], SheetError> {
        var bytes = Array(text.utf8)[...]
        return collect { body in
            try WordSheet.forEachRow(
                pieces: {
                    guard !bytes.isEmpty else { return nil }
                    defer { bytes = bytes.dropFirst(size) }
                    return Array(bytes.prefix(size))
                }, format: format, body)
        }
    }

    @Test("every cut of awkward texts gives the same rows and lines", arguments: [1, 2, 3, 5, 7, 16, 64, 4096])
    func sameRowsWhereverCut(size: Int) throws {
        for (text, format) in Self.texts {
            let whole = Self.rowsWhole(text, format)
            guard case .success(let rows) = whole else {
                Issue.record("the whole text failed: \(whole)")
                continue
            }
            #expect(!rows.isEmpty)
            #expect(Self.rowsInPieces(text, format, cut: size) == whole, "cut every \(size) bytes: \(text.debugDescription)")
        }
    }

    @Test("errors name the same line wherever the text is cut", arguments: [1, 3, 8, 4096])
    func sameErrorsWhereverCut(size: Int) {
        let broken: [(String, SheetFormat)] = [
            ("term,meaning\nuno,one\ndos,\"never closed\nthree,3\n", .csv),
            ("term\tmeaning\nuno\tone\tthird field\n", .tsv),
            ("meaning,notes\nx,y\n", .csv),
            ("", .csv),
            ("\n\n", .tsv),
            ("term,meaning\n,no term\n", .csv),
        ]
        for (text, format) in broken {
            let whole = Self.rowsWhole(text, format)
            guard case .failure = whole else {
                Issue.record("expected an error for \(text.debugDescription)")
                continue
            }
            #expect(Self.rowsInPieces(text, format, cut: size) == whole, "cut every \(size) bytes: \(text.debugDescription)")
        }
    }

    @Test("a large generated sheet in one-megabyte pieces")
    func largeSheet() {
        var text = "term\tmeaning\texamples\n"
        for index in 0..<40_000 {
            text += "palabra\(index)\t\"meaning \(index)\nsecond line ñ\"\texample \(index)\n"
        }
        let whole = Self.rowsWhole(text, .tsv)
        #expect(Self.rowsInPieces(text, .tsv, cut: 1 << 20) == whole)
        #expect(Self.rowsInPieces(text, .tsv, cut: 1_000_003) == whole)
        if case .success(let rows) = whole { #expect(rows.count == 40_000 && rows.last?.line == 80_000) }
    }
}
