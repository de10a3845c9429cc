import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioFiles
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// A backup is written word by word as the words are read, a megabyte at a time (issue
/// 12: a backup of a million words held them all and its whole text, 1.35 GB). The file
/// is the one the whole-text encoder writes, byte for byte, and it restores.
@Suite("A large backup is written in pieces, as if written whole")
struct ALargeBackupIsWrittenInPiecesTests {
    @Test("a backup of several megabytes is byte for byte the whole text, leaves no temporary file, and restores")
    func piecesEqualWhole() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let long = String(repeating: "una nota larga con acentos, ñ y 漢字; ", count: 30)
            _ = try library.writingInBulk {
                for index in 0..<3_000 {
                    _ = try library.add(
                        WordContent(term: "palabra\(index)", meaning: "word \(index)", notes: long, tags: ["t\(index % 7)"]))
                }
            }
            let trashed = try library.add(WordContent(term: "papelera", meaning: "trash")).word
            _ = try library.delete([trashed.id])

            let path = fixture.file("backup.json")
            #expect(try library.exportBackup(to: path) == 3_001)
            let written = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(written.count > 3 << 20)
            let words = try library.database.cached("SELECT \(WordLibrary.columns) FROM words ORDER BY created_at, seq")
                .rows([], WordLibrary.storedWord).map(\.word)
            let whole = BackupFile.encode(words, reviews: try library.allReviewEvents(), exportedAt: fixture.clock.now())
            #expect(written == Data(whole.utf8))
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
            let whole = BackupFile.encode([], reviews: [], exportedAt: fixture.clock.now())
            #expect(exported == 0)
            #expect(written == Data(whole.utf8))
        }
    }
}
