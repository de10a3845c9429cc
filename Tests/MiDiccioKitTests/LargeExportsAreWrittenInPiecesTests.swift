import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioFiles
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// A backup or a CSV/TSV export is written word by word as the words are read, a
/// megabyte at a time (issue 12: a backup of a million words held them all and its whole
/// text, 1.35 GB; a CSV export 673 MB). The file is the one the whole-text writer makes,
/// byte for byte, and a backup restores.
@Suite("Large exports are written in pieces, as if written whole")
struct LargeExportsAreWrittenInPiecesTests {
    /// Adds 3,000 words, `word(index)` each, in one transaction.
    private func addWords(to library: WordLibrary, _ word: (Int) -> WordContent) throws {
        _ = try library.writingInBulk {
            for index in 0..<3_000 { _ = try library.add(word(index)) }
        }
    }

    @Test("a backup of several megabytes is byte for byte the whole text, leaves no temporary file, and restores")
    func piecesEqualWhole() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let long = String(repeating: "una nota larga con acentos, ñ y 漢字; ", count: 30)
            try addWords(to: library) { WordContent(term: "palabra\($0)", meaning: "word \($0)", notes: long, tags: ["t\($0 % 7)"]) }
            let trashed = try library.add(WordContent(term: "papelera", meaning: "trash")).word
            _ = try library.delete([trashed.id])

            let path = fixture.file("backup.json")
            #expect(try library.exportBackup(to: path) == 3_001)
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written.count > 3 << 20)
            let stored = try library.database.cached("SELECT \(WordLibrary.columns) FROM words ORDER BY created_at, seq")
                .rows([], WordLibrary.storedWord)
            let whole = BackupFile.encode(
                stored.map(\.word), times: stored.map(\.times), reviews: try library.allReviewEvents(), exportedAt: fixture.clock.now(),
                exportedBy: library.deviceID)
            // Compared as a whole: a failed comparison of megabytes would be diffed for hours.
            let same = written == Data(whole.utf8)
            #expect(same, "the pieces differ from the whole text (\(written.count) and \(whole.utf8.count) bytes)")
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter(FileSystem.isTemporaryName).isEmpty)

            let restored = try WordLibrary(path: fixture.file("restored.sqlite"), environment: [:])
            _ = try restored.restoreBackup(from: path)
            let (restoredCounts, counts) = (try restored.counts(), try library.counts())
            #expect(restoredCounts == counts)
            #expect(restoredCounts.trash == 1)
        }
    }

    @Test("an empty library's backup is the whole text too")
    func emptyLibrary() throws {
        try withTemporaryLibrary { fixture in
            let path = fixture.file("backup.json")
            let exported = try fixture.library.exportBackup(to: path)
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            let whole = BackupFile.encode([], reviews: [], exportedAt: fixture.clock.now(), exportedBy: fixture.library.deviceID)
            #expect(exported == 0)
            #expect(written == Data(whole.utf8))
        }
    }

    @Test("a CSV or TSV export of several megabytes is byte for byte the whole text, with and without the study columns")
    func sheetPiecesEqualWhole() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let long = String(repeating: "un ejemplo, con \"comillas\" y comas; ", count: 25)
            try addWords(to: library) {
                WordContent(term: "palabra\($0)", meaning: "word, \($0)", examples: [long, "otro"], tags: ["t\($0 % 7)"])
            }
            let words = try library.list(ListQuery(sort: .created)).reversed().filter { !$0.isDeleted }
            let rows = words.map {
                SheetRow(term: $0.term, meaning: $0.meaning, reading: $0.reading, examples: $0.examples, notes: $0.notes, tags: $0.tags)
            }
            for format in [SheetFormat.csv, .tsv] {
                let path = fixture.file("words.\(format.rawValue)")
                let exported = try library.exportSheet(to: path, format: format)
                let written = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(exported == 3_000)
                #expect(written.count > 2 << 20)
                let same = written == Data(WordSheet.write(rows, format: format).utf8)
                #expect(same, "\(format): the pieces differ from the whole text")
                let withStudy = try library.exportSheet(to: path, format: format, studyColumns: true)
                let writtenWithStudy = try Data(contentsOf: URL(fileURLWithPath: path))
                let study = Array(repeating: (due: "", state: "new"), count: rows.count)
                #expect(withStudy == 3_000)
                let sameWithStudy = writtenWithStudy == Data(WordSheet.write(rows, format: format, study: study).utf8)
                #expect(sameWithStudy, "\(format) with the study columns: the pieces differ from the whole text")
            }
        }
    }
}
