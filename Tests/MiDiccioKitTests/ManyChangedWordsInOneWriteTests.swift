import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// A write that changes many words already stored (a pull of another device's bulk tag, a
/// bulk action in the web app, its undo) holds their search-index changes back and makes
/// them together (`SearchChanges`), and a pull of more words than the library holds keeps
/// the index of each word's tag rows. Either way the library must end as word by word.
@Suite("Many changed words in one write leave the library true")
struct ManyChangedWordsInOneWriteTests {
    typealias Bulk = BulkWritesMatchWordByWordTests

    /// Searches that find the words these tests change, by id.
    static func searches(_ library: WordLibrary) throws -> [[String]] {
        try ["palabra", "nueva", "otra", "verde", "rojo", "t1", "zeta"].map { query in
            try library.search(query, limit: 500).map(\.id.rawValue)
        }
    }

    /// Adds words "palabra 0" ... meaning "rojo", each tagged `t(index % tagKinds)` (no tag
    /// when `tagKinds` is 0), and gives their ids.
    static func addWords(_ count: Int, to library: WordLibrary, tagKinds: Int) throws -> [WordID] {
        try (0..<count).map { index in
            let tags = tagKinds > 0 ? ["t\(index % tagKinds)"] : []
            return try library.add(WordContent(term: "palabra \(index)", meaning: "rojo", tags: tags)).word.id
        }
    }

    @Test("one write that changes words several times, removes one and reuses its row, and searches midway")
    func manyChangesInOneWrite() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            // Three words' changes at a time, so they are made several times in the write.
            library.searchChangesHeldBack = 3
            let ids = try Self.addWords(12, to: library, tagKinds: 3)
            let last = try #require(ids.last)
            try library.delete([last])
            try library.writing {
                // The same word edited three times, then moved to the Trash and back.
                try library.edit(ids[0], WordEdit(meaning: "verde"))
                try library.edit(ids[0], WordEdit(meaning: "azul"))
                try library.edit(ids[0], WordEdit(meaning: "verde otra vez"))
                try library.delete([ids[1]])
                try library.restore([ids[1]])
                try library.edit(ids[1], WordEdit(term: "otra palabra"))
                // A search inside the write sees every change before it.
                #expect(try library.search("verde").map(\.id) == [ids[0]])
                #expect(try library.search("azul").isEmpty)
                #expect(try library.countMatches(query: "otra") == 2)
                // The newest row removed for good, as a pulled purge does: the next word
                // added takes its number.
                let stored = try #require(try library.stored(last))
                try library.removePermanently(stored)
                let added = try library.add(WordContent(term: "nueva", meaning: "rojo"))
                #expect(try library.database.integer("SELECT seq FROM words WHERE id = ?", [.text(added.word.id.rawValue)]) == stored.seq)
                // A tag on many words, and an edit that changes nothing searched.
                try library.addTag("zeta", to: .words(Array(ids[2..<10])))
                try library.edit(ids[3], WordEdit(reading: ""))
            }
            try Bulk.indexAgrees(library)
            #expect(try library.search("verde").map(\.id) == [ids[0]])
            #expect(try library.search("azul").isEmpty)
            #expect(try Set(library.search("otra").map(\.id)) == [ids[0], ids[1]])
            #expect(try library.search("nueva").count == 1)
            #expect(try library.countMatches(query: "zeta") == 8)
            #expect(try library.countMatches(query: "rojo") == 11)
            try TagCountsStayTrueTests.expectTrue(library, "after the write")
        }
    }

    @Test("a write that fails drops the changes it held back, and the next write makes its own")
    func failedWrite() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            library.searchChangesHeldBack = 2
            let ids = try Self.addWords(6, to: library, tagKinds: 0)
            struct Stop: Error {}
            #expect(throws: Stop.self) {
                try library.writing {
                    for id in ids[0..<5] { try library.edit(id, WordEdit(meaning: "verde")) }
                    throw Stop()
                }
            }
            try Bulk.indexAgrees(library)
            #expect(try library.countMatches(query: "verde") == 0)
            #expect(try library.countMatches(query: "rojo") == 6)
            try library.edit(ids[5], WordEdit(meaning: "verde"))
            try Bulk.indexAgrees(library)
            #expect(try library.search("verde").map(\.id) == [ids[5]])
        }
    }

    @Test("a bulk tag, its undo and a bulk Trash move leave the search index true")
    func bulkActions() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            library.searchChangesHeldBack = 5
            _ = try Self.addWords(40, to: library, tagKinds: 4)
            try library.addTag("verde", to: .matches(query: "palabra", tag: "t1"))
            try Bulk.indexAgrees(library)
            #expect(try library.countMatches(query: "verde") == 10)
            try library.removeTag("t1", from: .matches(query: "verde", tag: nil))
            try Bulk.indexAgrees(library)
            #expect(try library.countMatches(query: "t1") == 0)
            try library.undoBulkAction()
            try Bulk.indexAgrees(library)
            #expect(try library.countMatches(query: "t1") == 10)
            try library.moveToTrash(.matches(query: "verde", tag: nil))
            try Bulk.indexAgrees(library)
            #expect(try library.countMatches(query: "palabra") == 30)
            try library.undoBulkAction()
            try Bulk.indexAgrees(library)
            #expect(try library.countMatches(query: "palabra") == 40)
            try TagCountsStayTrueTests.expectTrue(library, "after the bulk actions")
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
            bulk.library.searchChangesHeldBack = 7
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
