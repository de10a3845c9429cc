import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// A bulk write that brings more words than the library held (a first import, a new
/// device's first sync, a restore into an empty library) builds the search index without
/// merging its segments as it goes, and merges them all once at its end. A smaller bulk
/// write into a larger library leaves FTS5 merging as usual, so it never rewrites the
/// whole index of the words already there.
@Suite("A large import leaves the search index in one piece")
struct ALargeImportLeavesTheSearchIndexInOnePieceTests {
    /// A library whose bulk writes rebuild the indexes from one word, and whose search
    /// index writes a segment each time a kilobyte of entries is pending.
    static func library(_ directory: URL) throws -> WordLibrary {
        let library = try WordLibrary(
            path: directory.appendingPathComponent("library.sqlite").path,
            clock: ManualClock(start: Timestamp(milliseconds: 1_764_000_000_000)), environment: ["LANG": "es_ES.UTF-8"])
        library.deferredIndexesFrom = 1
        library.bulkSearchHashBytes = 1_024
        return library
    }

    /// Imports `count` words named from `first` on, from a TSV sheet in `directory`.
    static func importWords(_ library: WordLibrary, from first: Int, count: Int, in directory: URL) throws -> Int {
        var lines = ["term\tmeaning\texamples\ttags"]
        for index in first..<first + count {
            lines.append("palabra\(index)\tmeaning number \(index) of the word\tEjemplo \(index).\tt\(index % 7)")
        }
        let path = directory.appendingPathComponent("words-\(first).tsv").path
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        return try library.importSheet(from: path, format: .tsv).added
    }

    /// A setting the search index keeps in its own table, nil when it has its default.
    static func setting(_ key: String, _ library: WordLibrary) throws -> Int64? {
        try library.database.integer("SELECT v FROM words_fts_config WHERE k = ?", [.text(key)])
    }

    /// How an import of 400 words into an empty library writes its search index: the size
    /// of FTS5's table of pending entries, and how many segments the index ends in. A
    /// kilobyte makes many, which are merged into one at the end; 32 KB makes two or
    /// three, fewer than FTS5 merges, which stay as they are.
    static let emptyLibraryImports: [(hashBytes: Int, segments: ClosedRange<Int64>)] = [
        (1_024, 1...1), (32_000, 2...Int64(WordLibrary.searchMergeFrom - 1)),
    ]

    @Test(
        "an import into an empty library merges its segments at the end when FTS5 would have, with the usual merging after",
        arguments: emptyLibraryImports)
    func firstImport(hashBytes: Int, segments: ClosedRange<Int64>) throws {
        try withTemporaryDirectory { directory in
            let library = try Self.library(directory)
            library.bulkSearchHashBytes = hashBytes
            #expect(try Self.importWords(library, from: 0, count: 400, in: directory) == 400)
            let made = try library.searchIndexSegments()
            #expect(segments.contains(made), "\(made) segments")
            #expect(try Self.setting("automerge", library) == 4)
            #expect(try Self.setting("crisismerge", library) == 16)
            try BulkWritesMatchWordByWordTests.indexAgrees(library)
            #expect(try library.search("palabra123").map(\.term) == ["palabra123"])
            #expect(try library.search("number 399").map(\.term) == ["palabra399"])
            #expect(try library.countMatches(query: "ejemplo") == 400)
        }
    }

    @Test("a smaller import into a larger library merges as it goes and keeps every entry")
    func laterImport() throws {
        try withTemporaryDirectory { directory in
            let library = try Self.library(directory)
            #expect(try Self.importWords(library, from: 0, count: 400, in: directory) == 400)
            #expect(try Self.importWords(library, from: 400, count: 200, in: directory) == 200)
            // Built with merges as it went, from segments of a kilobyte: not one piece.
            #expect(try library.searchIndexSegments() > 1)
            #expect(try Self.setting("automerge", library) == 4)
            try BulkWritesMatchWordByWordTests.indexAgrees(library)
            #expect(try library.search("palabra450").map(\.term) == ["palabra450"])
            #expect(try library.countMatches(query: "ejemplo") == 600)
        }
    }

    @Test("a large import that fails after merging leaves the search index's settings and entries as they were")
    func failedImport() throws {
        try withTemporaryDirectory { directory in
            let library = try Self.library(directory)
            _ = try library.add(WordContent(term: "uno", meaning: "one"))
            // Fails the import at the very end of its search index: when the merge
            // settings are put back, after every segment was merged into one.
            try library.database.execute(
                """
                CREATE TEMP TRIGGER stop_at_the_end AFTER INSERT ON main.words_fts_config
                WHEN NEW.k = 'crisismerge' AND NEW.v = 16 BEGIN SELECT RAISE(ABORT, 'stopped at the end'); END
                """)
            #expect(throws: LibraryError.self) { try Self.importWords(library, from: 0, count: 300, in: directory) }
            #expect(try Self.setting("automerge", library) == nil)
            #expect(try Self.setting("crisismerge", library) == nil)
            try BulkWritesMatchWordByWordTests.indexAgrees(library)
            #expect(try library.countMatches(query: "ejemplo") == 0)
            #expect(try library.search("uno").map(\.term) == ["uno"])
            #expect(try library.counts().words == 1)
            // Without the trigger, the same import goes in whole, in one piece.
            try library.database.execute("DROP TRIGGER stop_at_the_end")
            #expect(try Self.importWords(library, from: 0, count: 300, in: directory) == 300)
            #expect(try library.searchIndexSegments() == 1)
            #expect(try library.countMatches(query: "ejemplo") == 300)
        }
    }
}
