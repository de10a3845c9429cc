import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: `purge` deletes words in the Trash permanently. A word not in the Trash cannot
/// be purged (the error says to delete it first). A purged word leaves a marker, its id
/// and the purge time, and nothing of its content: not its row, tags, search entry or
/// undo data, and not a byte in the SQLite file's pages or its write-ahead log.
@Suite("Only words in the Trash can be purged, and a purged word leaves nothing but a marker")
struct PurgeTests {
    /// A word whose every field holds its own unique string, and those strings.
    private struct PlantedWord {
        var id: WordID
        var term: String
        var meaning: String
        var example: String
        var notes: String
        var tag: String
        var all: [String] { [term, meaning, example, notes, tag] }
    }

    private func plant(in library: WordLibrary, longNotes: Bool = false) throws -> PlantedWord {
        let term = purgeUniqueToken("term"), meaning = purgeUniqueToken("meaning")
        let example = purgeUniqueToken("example"), notes = purgeUniqueToken("notes"), tag = purgeUniqueToken("tag")
        // Long notes spill onto overflow pages, which a purge must wipe too.
        let noteText = longNotes ? Array(repeating: "una nota \(notes) larga", count: 400).joined(separator: " ") : "nota \(notes)"
        let word = try library.add(
            WordContent(
                term: term, meaning: "significa \(meaning)", examples: ["un ejemplo \(example)"],
                notes: noteText, tags: [tag, "compartida"])
        ).word
        return PlantedWord(id: word.id, term: term, meaning: meaning, example: example, notes: notes, tag: tag)
    }

    @Test("a word not in the Trash cannot be purged: the error says to delete it first, and nothing changes")
    func wordNotInTrashIsRefused() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let live = try library.add(WordContent(term: "ventana", meaning: "window")).word
            let trashed = try library.add(WordContent(term: "puerta", meaning: "door")).word
            try library.delete([trashed.id])
            let before = try library.snapshot()

            let error = try #require(throws: LibraryError.self) { try library.purge([live.id]) }
            #expect(error.description.contains("delete it first"), "\(error)")
            #expect(error.description.contains("ventana"), "\(error)")

            // All or nothing: the word in the Trash named with it is not purged either.
            #expect(throws: LibraryError.self) { try library.purge([trashed.id, live.id]) }
            #expect(try library.snapshot() == before)
            #expect(try library.purgedCount() == 0)
            #expect(try library.isPurged(live.id) == false)
            #expect(try library.isPurged(trashed.id) == false)
            #expect(try library.trash().map(\.id) == [trashed.id])
        }
    }

    @Test("an id that names no word cannot be purged, and nothing changes")
    func unknownWordIsRefused() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let trashed = try library.add(WordContent(term: "puerta")).word
            try library.delete([trashed.id])
            let before = try library.snapshot()
            let missing = WordID.random()
            #expect(throws: LibraryError.self) { try library.purge([trashed.id, missing]) }
            #expect(try library.snapshot() == before)
            #expect(try library.purgedCount() == 0)
        }
    }

    @Test("a purged word leaves a marker with its id and the purge time, and nothing of its content")
    func purgeLeavesOnlyAMarker() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let planted = try plant(in: library)
            let kept = try library.add(WordContent(term: "mesa", meaning: "table", tags: ["compartida"])).word
            try library.delete([planted.id])
            temporary.clock.advance(by: 5 * 60_000)
            let purgeTime = temporary.clock.now()

            let purged = try library.purge([planted.id])
            #expect(purged.map(\.id) == [planted.id])
            #expect(try library.isPurged(planted.id))
            #expect(try library.purgedCount() == 1)
            #expect(try library.word(planted.id) == nil)
            #expect(try library.counts() == (words: 1, trash: 0))
            #expect(try library.word(kept.id) == kept, "other words are left alone")

            // Every column of the marker table, whatever it holds, read as text.
            let markers = try library.guarded {
                let columns = try library.database.prepare("SELECT name FROM pragma_table_info('purged')").rows { $0.text(0) }
                let select = columns.map { "CAST(\($0) AS TEXT)" }.joined(separator: ", ")
                return try library.database.prepare("SELECT \(select) FROM purged").rows { row in
                    (0..<Int32(columns.count)).map { row.text($0) }
                }
            }
            #expect(markers.count == 1)
            let marker = try #require(markers.first)
            #expect(marker.contains(planted.id.rawValue))
            #expect(marker.contains(String(purgeTime.milliseconds)), "the marker holds the purge time: \(marker)")
            for text in planted.all {
                #expect(!marker.contains { $0.contains(text) }, "the marker holds \(text): \(marker)")
            }
        }
    }

    @Test("a purged word's row, tags, search entry and undo data are gone")
    func purgeRemovesEveryTraceInTheLibrary() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let planted = try plant(in: library)
            let other = try library.add(WordContent(term: "mesa", meaning: "table", tags: ["compartida"])).word
            // A replace restore keeps the prior state of every word it changes as undo data.
            let backup = temporary.file("backup.json")
            try library.exportBackup(to: backup)
            temporary.clock.advance(by: 1_000)
            for id in [planted.id, other.id] { _ = try library.edit(id, WordEdit(reading: "changed after the backup")) }
            _ = try library.restoreBackup(from: backup, replace: true)
            let undoRows = { (text: String) in
                try library.guarded {
                    try library.database.integer(
                        "SELECT count(*) FROM restore_undo WHERE word_id = ? OR prior LIKE ?",
                        [.text(planted.id.rawValue), .text("%\(text)%")]) ?? 0
                }
            }
            #expect(try undoRows(planted.term) == 1, "the setup holds undo data for the word")
            #expect(try purgeSearchIndexMatches(library, planted.term) == 1, "the setup indexes the word")

            try library.delete([planted.id])
            try library.purge([planted.id])

            #expect(try library.word(planted.id) == nil)
            #expect(
                try library.guarded {
                    try library.database.integer("SELECT count(*) FROM words WHERE id = ?", [.text(planted.id.rawValue)])
                } == 0)
            #expect(try library.tags().map(\.tag) == ["compartida"], "the purged word's own tag is gone")
            #expect(try library.tags().first?.count == 1, "the shared tag counts only the word left")
            #expect(
                try library.guarded {
                    try library.database.integer("SELECT count(*) FROM word_tags WHERE tag_key = ?", [.text(TagSet.key(planted.tag))])
                } == 0)
            for text in planted.all {
                #expect(try library.search(text).isEmpty, "search finds \(text)")
                #expect(try purgeSearchIndexMatches(library, text) == 0, "the search index still matches \(text)")
                #expect(try undoRows(text) == 0, "undo data still holds \(text)")
            }
            #expect(try library.search("significa").isEmpty)

            // Undoing the restore now puts back the other word only; the purged one stays gone.
            #expect(try library.canUndoRestore())
            _ = try library.undoRestore()
            #expect(try library.word(planted.id) == nil)
            #expect(try library.word(other.id) != nil)
        }
    }

    @Test("after a purge, the library file and its write-ahead log hold no byte of the word's text", arguments: [false, true])
    func purgeLeavesNoBytesInTheFiles(longNotes: Bool) throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let planted = try plant(in: library, longNotes: longNotes)
            for index in 1...5 {
                try library.add(WordContent(term: "palabra \(index)", meaning: "word \(index)"))
            }
            // Older versions of the word, in the log and in the file once checkpointed.
            try library.edit(planted.id, WordEdit(reading: "lectura"))
            try library.guarded { try library.database.execute("PRAGMA wal_checkpoint(PASSIVE)") }
            try library.edit(planted.id, WordEdit(reading: "otra lectura"))
            let before = Set(planted.all.flatMap { purgeLibraryFiles(of: library, holding: $0) })
            #expect(before.contains(library.path), "the setup wrote the word's text into the file")

            try library.delete([planted.id])
            try library.purge([planted.id])

            for text in planted.all {
                #expect(purgeLibraryFiles(of: library, holding: text) == [], "\(text) is still in the library's files")
            }
            #expect(try library.list().count == 5, "the other words are intact")
            #expect(try library.search("palabra").count == 5)
        }
    }

    @Test("a word purged twice, or named twice in one purge, leaves one marker with the first purge time")
    func purgeIsIdempotentPerWord() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let word = try library.add(WordContent(term: "suelo")).word
            try library.delete([word.id])
            let time = temporary.clock.now()
            #expect(try library.purge([word.id, word.id]).count == 1)
            temporary.clock.advance(by: 1_000)
            #expect(throws: LibraryError.self) { try library.purge([word.id]) }
            #expect(try library.purgedCount() == 1)
            let stored = try library.guarded {
                try library.database.integer("SELECT purged_at FROM purged WHERE id = ?", [.text(word.id.rawValue)])
            }
            #expect(stored == time.milliseconds)
        }
    }
}
