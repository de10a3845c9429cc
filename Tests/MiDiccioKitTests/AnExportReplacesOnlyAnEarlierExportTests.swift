import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// Rule: an export (a backup, a CSV or TSV sheet) replaces an earlier export of its own
/// kind and no other file: not another library, not a backup with a sheet, not a folder
/// or a device; it writes through a symbolic link and makes no folder. Exports replaced
/// whatever file was there without a word (found by the exploratory helpers, round 11:
/// `midiccio export other.sqlite` emptied another library, and a backup became a CSV).
@Suite("An export replaces only an earlier export of its kind")
struct AnExportReplacesOnlyAnEarlierExportTests {
    private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    private func expectRefused(_ path: String, saying words: String, _ export: () throws -> Int) throws {
        let before = try? bytes(path)
        do {
            _ = try export()
            Issue.record("the export to \(path) was not refused")
        } catch let error as LibraryError {
            #expect("\(error)".contains(words), "\(error)")
        }
        #expect((try? bytes(path)) == before, "the file is as it was")
    }

    @Test("another library, a backup and other files are not replaced, unless asked to")
    func otherFilesAreKept() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            _ = try library.add(WordContent(term: "hola", meaning: "hello"))
            let (other, _) = try temporary.sibling("other.sqlite")
            _ = try other.add(WordContent(term: "adiós", meaning: "goodbye"))
            let otherPath = temporary.file("other.sqlite")
            try expectRefused(otherPath, saying: "is an SQLite database") {
                try library.exportSheet(to: otherPath, format: .csv, studyColumns: false)
            }
            try expectRefused(otherPath, saying: "is an SQLite database") { try library.exportBackup(to: otherPath) }
            #expect(try other.list().map(\.term) == ["adiós"], "the other library still holds its word")

            let backup = temporary.file("backup.json"), sheet = temporary.file("words.csv")
            try library.exportBackup(to: backup)
            try library.exportSheet(to: sheet, format: .csv, studyColumns: false)
            try expectRefused(backup, saying: "is a MiDiccio backup, not a MiDiccio CSV or TSV export") {
                try library.exportSheet(to: backup, format: .csv, studyColumns: false)
            }
            try expectRefused(sheet, saying: "is a MiDiccio CSV or TSV export, not a MiDiccio backup") {
                try library.exportBackup(to: sheet)
            }
            let notes = temporary.file("notes.txt")
            try Data("my own notes\n".utf8).write(to: URL(fileURLWithPath: notes))
            try expectRefused(notes, saying: "is another file") { try library.exportBackup(to: notes) }

            #expect(try library.exportSheet(to: notes, format: .csv, studyColumns: false, overwrite: true) == 1)
            #expect(String(decoding: try bytes(notes), as: UTF8.self).hasPrefix("term,meaning"))
        }
    }

    @Test("an earlier export of the same kind, or an empty file, is replaced")
    func earlierExportsAreReplaced() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            _ = try library.add(WordContent(term: "uno"))
            let backup = temporary.file("nightly.json"), sheet = temporary.file("words.tsv")
            try library.exportBackup(to: backup)
            try library.exportSheet(to: sheet, format: .tsv, studyColumns: true)
            _ = try library.add(WordContent(term: "dos"))
            #expect(try library.exportBackup(to: backup) == 2)
            #expect(try library.exportSheet(to: sheet, format: .csv, studyColumns: false) == 2, "a TSV export is an export")
            let empty = temporary.file("empty.csv")
            #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
            #expect(try library.exportSheet(to: empty, format: .csv, studyColumns: false) == 2)
        }
    }

    @Test("a symbolic link is written through and stays a link; a missing folder is not made")
    func linksAndFolders() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            _ = try library.add(WordContent(term: "enlace"))
            let synced = temporary.file("Dropbox")
            try FileManager.default.createDirectory(atPath: synced, withIntermediateDirectories: true)
            let real = synced + "/words.csv", link = temporary.file("words.csv")
            try library.exportSheet(to: real, format: .csv, studyColumns: false)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
            _ = try library.add(WordContent(term: "nuevo"))
            #expect(try library.exportSheet(to: link, format: .csv, studyColumns: false) == 2)
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == real, "the link is still a link")
            #expect(String(decoding: try bytes(real), as: UTF8.self).contains("nuevo"), "the file it leads to is written")

            let missing = temporary.file("no such folder/words.csv")
            try expectRefused(missing, saying: "does not exist") {
                try library.exportSheet(to: missing, format: .csv, studyColumns: false)
            }
            #expect(!FileManager.default.fileExists(atPath: temporary.file("no such folder")))
            try expectRefused(synced, saying: "is a folder") { try library.exportBackup(to: synced) }
        }
    }
}
