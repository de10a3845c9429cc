import Foundation
import MiDiccioKit
import MiDiccioStore
import Testing

/// A search lists the words whose term holds the query's words before those that hold
/// them elsewhere. It finds those terms in an index of terms of its own (`terms_fts`),
/// which every change to a word keeps in step with the whole search index.
@Suite("A search finds terms by any of their words, after every kind of change")
struct ASearchFindsTermsByAnyOfTheirWordsTests {
    @Test("a term holding the query's words comes first, through edits, the Trash, a purge and an import")
    func termsFirstThroughChanges() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let house = try library.add(WordContent(term: "casa grande", meaning: "a big house")).word
            // Newer words holding "grande" in their meaning only: the newest matches come
            // first among those, so only the term tier puts "casa grande" ahead of them.
            for index in 0..<30 {
                fixture.clock.advance(by: 10)
                try library.add(WordContent(term: "palabra\(index)", meaning: "grande \(index)"))
            }
            #expect(try library.search("grande", limit: 5).first?.id == house.id)
            #expect(try library.search("casa gran", limit: 5).first?.id == house.id)
            try BulkWritesMatchWordByWordTests.indexAgrees(library)

            _ = try library.edit(house.id, WordEdit(term: "casa pequeña"))
            #expect(try !library.search("grande", limit: 50).contains { $0.id == house.id })
            #expect(try library.search("pequena", limit: 5).first?.id == house.id, "found without its accent, as in the whole index")
            try BulkWritesMatchWordByWordTests.indexAgrees(library)

            // The meaning alone changes: the index of terms is left as it is.
            _ = try library.edit(house.id, WordEdit(meaning: "a small house"))
            #expect(try library.search("pequeña", limit: 5).first?.id == house.id)
            try BulkWritesMatchWordByWordTests.indexAgrees(library)

            try library.delete([house.id])
            #expect(try library.search("pequeña", limit: 5).isEmpty)
            try BulkWritesMatchWordByWordTests.indexAgrees(library)
            try library.restore([house.id])
            #expect(try library.search("pequeña", limit: 5).first?.id == house.id)

            try library.delete([house.id])
            try library.purge([house.id])
            #expect(try library.search("pequeña", limit: 5).isEmpty)
            try BulkWritesMatchWordByWordTests.indexAgrees(library)
            #expect(try tokens(in: library, startingWith: "peque").isEmpty, "the purge scrubbed the index of terms too")

            // An import writes its rows' search entries at its end, in one statement.
            let rows = ["gato negro\tblack cat"] + (0..<20).map { "w\($0)\tnegro \($0)" }
            let list = fixture.directory.appendingPathComponent("words.tsv")
            try Data(("term\tmeaning\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: list)
            let imported = try library.importWords(from: list.path)
            #expect(imported.added == 21)
            #expect(try library.search("negro", limit: 5).first?.term == "gato negro")
            try BulkWritesMatchWordByWordTests.indexAgrees(library)
        }
    }

    @Test("a library made before the index of terms gets it when opened, and finds terms by their words")
    func olderLibraryGetsTheIndex() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let house = try library.add(WordContent(term: "casa grande", meaning: "a big house")).word
            for index in 0..<30 { try library.add(WordContent(term: "palabra\(index)", meaning: "grande \(index)")) }
            // As a library of the release before: no index of terms, that migration not applied.
            try SearchFindsWordsInEveryScriptTests.makeLikeBefore(library.database, termsIndex: false)
            let reopened = try WordLibrary(path: fixture.path, clock: fixture.clock, environment: [:])
            #expect(try reopened.search("grande", limit: 5).first?.id == house.id)
            try BulkWritesMatchWordByWordTests.indexAgrees(reopened)
        }
    }

    /// The words the index of terms holds that start with `prefix`, deleted entries
    /// still in its segments included.
    private func tokens(in library: WordLibrary, startingWith prefix: String) throws -> [String] {
        try library.database.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.terms_vocab USING fts5vocab(main, terms_fts, 'row')")
        return try library.database.prepare("SELECT term FROM temp.terms_vocab WHERE term >= ? AND term < ?")
            .rows([.text(prefix), .text(prefix + "\u{10FFFF}")]) { $0.text(0) }
    }
}
