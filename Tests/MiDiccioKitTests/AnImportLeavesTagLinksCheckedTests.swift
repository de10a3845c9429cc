import Foundation
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// An import writes its tag rows with SQLite's foreign keys off, since every one of them
/// comes from a word it has just written (issue 12: the checks were a third of the time
/// of writing them). Afterwards, whether the import worked or not, the keys are on again:
/// a word deleted for good still takes its tag rows with it.
@Suite("An import leaves the links between words and tags checked")
struct AnImportLeavesTagLinksCheckedTests {
    /// A sheet of `rows` words with two tags each; `badAt` (1-based row) has no term.
    static func sheet(rows: Int, badAt: Int? = nil) -> String {
        var lines = ["term\tmeaning\treading\texamples\tnotes\ttags"]
        for row in 1...rows { lines.append("\(row == badAt ? "" : "palabra\(row)")\tword \(row)\t\t\t\tt\(row % 5) común") }
        return lines.joined(separator: "\n") + "\n"
    }

    static func foreignKeysOn(_ library: WordLibrary) throws -> Bool {
        try library.database.integer("PRAGMA foreign_keys") == 1
    }

    @Test("after an import the keys are on, every tag row has its word, and a purge takes its tag rows")
    func afterAnImport() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let path = temporary.directory.appendingPathComponent("words.tsv").path
            try Data(Self.sheet(rows: 500).utf8).write(to: URL(fileURLWithPath: path))
            #expect(try library.importSheet(from: path, format: .tsv).added == 500)
            #expect(try Self.foreignKeysOn(library))
            #expect(try library.database.prepare("PRAGMA foreign_key_check").rows { $0.text(0) }.isEmpty)
            #expect(try library.database.integer("SELECT count(*) FROM word_tags") == 1_000)

            let word = try #require(try library.search("palabra7", limit: 1).first)
            _ = try library.delete([word.id])
            try library.purge([word.id])
            #expect(try library.database.integer("SELECT count(*) FROM word_tags") == 998)
            #expect(try library.database.prepare("PRAGMA foreign_key_check").rows { $0.text(0) }.isEmpty)
        }
    }

    @Test("after an import refused for a bad row the keys are on and nothing was imported")
    func afterABadRow() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let path = temporary.directory.appendingPathComponent("words.tsv").path
            try Data(Self.sheet(rows: 500, badAt: 400).utf8).write(to: URL(fileURLWithPath: path))
            #expect(throws: LibraryError.self) { try library.importSheet(from: path, format: .tsv) }
            #expect(try Self.foreignKeysOn(library))
            #expect(try library.counts().words == 0)
            #expect(try library.database.integer("SELECT count(*) FROM word_tags") == 0)
        }
    }
}
