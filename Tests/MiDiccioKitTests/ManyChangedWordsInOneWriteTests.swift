import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// A pull of more words than the library holds, that also changes many of the words it
/// holds, keeps the index of each word's tag rows while it builds the others again. The
/// library must end as word by word.
@Suite("Many changed words in one write leave the library true")
struct ManyChangedWordsInOneWriteTests {
    typealias Bulk = BulkWritesMatchWordByWordTests

    /// Searches that find the words these tests change, by id.
    static func searches(_ library: WordLibrary) throws -> [[String]] {
        try ["palabra", "nueva", "otra", "verde", "rojo", "t1", "zeta"].map { query in
            try library.search(query, limit: 500).map(\.id.rawValue)
        }
    }

    @Test("a bulk write that builds the words' indexes again keeps the one of each word's tag rows")
    func tagRowsKeepTheirIndex() throws {
        try withTemporaryDirectory { directory in
            let (bulk, _) = try Bulk.pair(directory, deferIndexesFrom: 1)
            _ = try bulk.add(WordContent(term: "uno", meaning: "one", tags: ["número"]))
            try bulk.writingInBulk(expectedWords: 10) {
                // The words' own indexes are gone for the write...
                let indexes = try bulk.database.prepare("SELECT name FROM sqlite_schema WHERE type = 'index'").rows { $0.text(0) }
                #expect(!indexes.contains("words_live_sort"))
                // ...but changing, trashing or purging a word already stored finds its tag
                // rows through their index, not by reading every tag row.
                for statement in [
                    "DELETE FROM word_tags WHERE word_seq = 1",
                    "SELECT tag_key FROM word_tags WHERE word_seq = 1",
                ] {
                    let plan = try bulk.database.prepare("EXPLAIN QUERY PLAN \(statement)").rows { $0.text(3) }
                    #expect(plan.contains { $0.contains("word_tags_word") }, "\(statement): \(plan)")
                    #expect(!plan.contains { $0.hasPrefix("SCAN") }, "\(statement): \(plan)")
                }
            }
        }
    }

    @Test("a pull of more words than a device holds, changing many it holds, merges as word by word")
    func largePullOverWordsHeld() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            var ids: [WordID] = []
            for index in 0..<60 { ids.append(try a.add("palabra \(index)", meaning: "rojo \(index)", tags: ["t\(index % 4)"])) }
            try a.sync()
            let bulk = try fixture.device("bulk"), wordByWord = try fixture.device("word-by-word")
            bulk.library.deferredIndexesFrom = 1
            bulk.library.recordsReadAsideFrom = 1
            wordByWord.library.usesBulkWrites = false
            wordByWord.library.recordsReadAsideFrom = Int.max
            try bulk.sync()
            try wordByWord.sync()
            // More new words than each device holds, and changes to most of the old ones:
            // tags, text, the Trash both ways, and purges.
            for index in 0..<80 { _ = try a.add("nueva \(index)", meaning: "verde \(index)", tags: ["t\(index % 5)"]) }
            try a.library.addTag("zeta", to: .words(Array(ids[0..<40])))
            try a.library.removeTag("t1", from: .words(Array(ids[20..<60])))
            for id in ids[40..<50] { _ = try a.library.edit(id, WordEdit(meaning: "otra cosa")) }
            _ = try a.library.delete(Array(ids[50..<58]))
            _ = try a.library.purge(Array(ids[54..<58]))
            _ = try a.library.restore(Array(ids[50..<52]))
            try a.sync()
            try bulk.sync()
            try wordByWord.sync()
            #expect(try bulk.library.list().count == 134)
            #expect(try bulk.everyWord() == wordByWord.everyWord())
            #expect(try bulk.everyWord() == a.everyWord())
            #expect(try Self.searches(bulk.library) == Self.searches(wordByWord.library))
            #expect(try bulk.library.libraryDigest() == wordByWord.library.libraryDigest())
            #expect(try Bulk.schema(bulk.library) == Bulk.schema(wordByWord.library))
            try Bulk.indexAgrees(bulk.library)
            try TagCountsStayTrueTests.expectTrue(bulk.library, "after the pull")
        }
    }
}
