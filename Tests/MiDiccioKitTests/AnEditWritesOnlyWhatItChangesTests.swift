import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// Saving a word already stored sets the columns that indexes and triggers read only
/// when they change (`HotStatements.IndexedColumns`): a tag put on a word, here or
/// pulled, rewrites two indexes' entries instead of ten, runs no trigger and keeps no
/// statement journal. The row must still end as if the word were saved new.
@Suite("An edit writes only what it changes")
struct AnEditWritesOnlyWhatItChangesTests {
    /// The tables and indexes the program of `sql` opens for writing, by name, and
    /// whether it runs a trigger's program.
    static func written(by sql: String, in database: Database) throws -> (names: Set<String>, runsTriggers: Bool) {
        let roots = Dictionary(
            uniqueKeysWithValues: try database.prepare("SELECT rootpage, name FROM sqlite_schema WHERE rootpage > 0").rows([]) {
                ($0.int64(0), $0.text(1))
            })
        let program = try database.prepare("EXPLAIN \(sql)").rows([]) { (opcode: $0.text(1), p2: $0.int64(3)) }
        let names = Set(program.filter { $0.opcode == "OpenWrite" }.compactMap { roots[$0.p2] })
        return (names, program.contains { $0.opcode == "Program" })
    }

    @Test("a change no index reads rewrites no index and runs no trigger; the Trash flag and the term reach theirs")
    func updatesTouchOnlyTheirIndexes() throws {
        try withTemporaryLibrary { temporary in
            let database = temporary.library.database
            func written(_ columns: HotStatements.IndexedColumns) throws -> (names: Set<String>, runsTriggers: Bool) {
                try Self.written(by: HotStatements.updateSQL(setting: columns), in: database)
            }
            // A meaning or the tags pulled from another device: the row only.
            #expect(try written([]) == (["words"], false))
            // A tag put on a word here: its time and its pending change as well.
            #expect(try written([.updatedAt, .pending, .localChange]) == (["words", "words_live_updated", "words_pending"], false))
            // A new term: the indexes of its keys.
            #expect(
                try written([.termKeys]) == (["words", "words_live_sort", "words_live_term_key", "words_trash_term_key"], false))
            // Into the Trash or out of it: every index whose condition reads it, and the
            // triggers that keep the tag counts.
            let trash = try written([.deletedAt])
            #expect(trash.runsTriggers)
            #expect(trash.names.isSuperset(of: ["words_trash", "words_trash_seen", "words_live_sort", "words_live_updated", "words_new"]))
        }
    }

    /// The row of the word `id` with every column but its row number and its change
    /// counter, and whether the time it was seen entering the Trash is set.
    static func row(_ id: WordID, in library: WordLibrary) throws -> [String] {
        try library.database.prepare(
            """
            SELECT id, term, meaning, reading, examples, notes, tags, created_at, updated_at, deleted_at, term_time,
                meaning_time, reading_time, examples_time, notes_time, tags_time, deleted_time, pending, term_key,
                hex(sort_key), term_by, meaning_by, reading_by, examples_by, notes_by, tags_by, deleted_by,
                trash_seen_at IS NOT NULL, studied
            FROM words WHERE id = ?
            """
        ).rows([.text(id.rawValue)]) { row in (0..<Int32(29)).map { row.isNull($0) ? "NULL" : row.text($0) } }.first ?? []
    }

    @Test("after edits, Trash moves, restores and merges, each row is what saving its word new would make")
    func rowsEndAsNewWords() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library, clock = temporary.clock
            var ids: [WordID] = []
            for (term, tags) in [("árbol", ["bosque"]), ("Casa", []), ("perro", ["animal", "Animal"]), ("zeta", ["letra"]), ("nube", [])] {
                ids.append(try library.add(WordContent(term: term, meaning: "m", tags: tags)).word.id)
            }
            // Uploaded: an edit makes a word pending again.
            try library.database.execute("UPDATE words SET pending = 0")
            clock.advance(by: 10)
            _ = try library.edit(ids[0], WordEdit(term: "Árbol grande"))
            _ = try library.edit(ids[1], WordEdit(meaning: "hogar", addTags: ["lugar"]))
            _ = try library.edit(ids[2], WordEdit(removeTags: ["animal"]))
            clock.advance(by: 10)
            _ = try library.delete([ids[2], ids[3]])
            let entered = clock.now()
            clock.advance(by: 10)
            _ = try library.restore([ids[3]])
            // Tag rows change one by one: a spelling that comes first now, a tag added, one
            // written twice, one removed.
            _ = try library.edit(ids[3], WordEdit(tags: ["Letra", "letra", "griega"]))
            _ = try library.edit(ids[0], WordEdit(tags: ["árboles", "bosque", "BOSQUE"]))
            // Changes pulled from another device: written as received, not pending here,
            // over a word that is pending (it stays pending), over one in the Trash (it
            // keeps the time it was seen entering) and over one not pending.
            try library.writing {
                for (index, id) in [ids[1], ids[2], ids[4]].enumerated() {
                    let previous = try #require(try library.stored(id))
                    var word = previous.word
                    var times = previous.times
                    word.notes = "pulled \(index)"
                    word.updatedAt = Timestamp(milliseconds: word.updatedAt.milliseconds + 5)
                    times[.notes] = word.updatedAt
                    try library.save(word, times: times, writers: [1, 1, 1, 1, 2, 1, 1], previous: previous, pending: false)
                }
                // The same word, received first with an older creation time.
                let previous = try #require(try library.stored(ids[0]))
                var word = previous.word
                word.createdAt = Timestamp(milliseconds: word.createdAt.milliseconds - 1000)
                try library.save(word, times: previous.times, writers: previous.writers, previous: previous, pending: false)
            }
            #expect(try library.database.text("PRAGMA integrity_check") == "ok")
            #expect(try ids.map { try library.stored($0)?.pending } == [true, true, true, true, false])
            #expect(
                try library.database.integer("SELECT trash_seen_at FROM words WHERE id = ?", [.text(ids[2].rawValue)])
                    == entered.milliseconds)
            #expect(try library.database.integer("SELECT trash_seen_at IS NULL FROM words WHERE id = ?", [.text(ids[3].rawValue)]) == 1)
            #expect(try library.search("árbol grande").map(\.id) == [ids[0]])
            #expect(try library.list(ListQuery(sort: .term)).map(\.term) == ["Árbol grande", "Casa", "nube", "zeta"])

            // Each word saved new into another library makes the same row.
            try withTemporaryLibrary { fresh in
                try fresh.library.writing {
                    for id in ids {
                        let stored = try #require(try library.stored(id))
                        try fresh.library.save(
                            stored.word, times: stored.times, writers: stored.writers, previous: nil, pending: stored.pending)
                    }
                }
                for id in ids {
                    let edited = try Self.row(id, in: library)
                    #expect(!edited.isEmpty)
                    #expect(edited == (try Self.row(id, in: fresh.library)), "\(id)")
                }
                let tagRows = "SELECT w.id, t.tag_key, t.tag FROM word_tags t JOIN words w ON w.seq = t.word_seq ORDER BY 1, 2"
                let tagCounts = "SELECT tag_key, tag, count FROM tag_counts ORDER BY 1"
                for sql in [tagRows, tagCounts] {
                    let read: (WordLibrary) throws -> [String] = {
                        try $0.database.prepare(sql).rows([]) { row in "\(row.text(0)) \(row.text(1)) \(row.text(2))" }
                    }
                    #expect(try read(library) == read(fresh.library), "\(sql)")
                }
            }
        }
    }
}
