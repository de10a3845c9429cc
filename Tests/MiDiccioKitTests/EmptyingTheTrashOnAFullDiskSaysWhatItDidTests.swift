import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// Emptying the Trash when the library's disk has little room left either changes nothing
/// and says so, or purges and says so. Before, a purge that committed and then had no
/// room to rewrite the search index without the purged text threw "the disk … is full;
/// nothing was changed" while every word of the Trash was gone (found by the exploratory
/// helper, round 12B). The disk is made full with SQLite's `max_page_count`, which fails a
/// write that would grow the file past it with the same error a full disk gives.
@Suite("Emptying the Trash on a full disk says what it did")
struct EmptyingTheTrashOnAFullDiskSaysWhatItDidTests {
    @Test("at every amount of room left, the Trash is either emptied without an error or left whole with one")
    func allOrNothingAsSaid() throws {
        var purgedWithTextLeft = 0
        for room in stride(from: 0, through: 120, by: 4) {
            try withTemporaryDirectory { directory in
                let path = directory.appendingPathComponent("library.sqlite").path
                let library = try WordLibrary(path: path, environment: [:])
                try library.add(WordContent(term: "casa", meaning: "house"))
                let rows = (0..<1_500).map { "palabra\($0)\tmeaning number \($0) with several words to index" }
                let sheet = directory.appendingPathComponent("words.tsv").path
                try Data(("term\tmeaning\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: sheet))
                _ = try library.importWords(from: sheet)
                // A few words in the Trash of many: their purge needs little room, while the
                // rewrite of the whole search index after it needs much.
                let few = try library.list(ListQuery(limit: 20)).filter { $0.term != "casa" }.map(\.id)
                _ = try library.moveToTrash(.words(few))
                try library.database.execute("VACUUM")  // no free pages left inside the file
                try library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                let pages = try #require(try library.database.integer("PRAGMA page_count"))
                _ = try library.database.integer("PRAGMA max_page_count = \(pages + Int64(room))")
                do {
                    let purged = try library.emptyTrash()
                    #expect(purged == few.count, "room \(room)")
                    #expect(try library.trash().isEmpty, "room \(room)")
                    if try library.purgedTextRemains() { purgedWithTextLeft += 1 }
                } catch let error as LibraryError {
                    guard case .storage(let storage) = error, storage.isFull else { throw error }
                    #expect(try library.trash().count == few.count, "room \(room): \(error) said, yet the Trash changed")
                }
                #expect(try library.list().count == 1_501 - few.count, "room \(room)")
                // With room again, the next purge or sync scrubs what a full disk left.
                _ = try library.database.integer("PRAGMA max_page_count = 1073741823")
                #expect(try library.scrubIfOwed())
                #expect(try !library.purgedTextRemains())
            }
        }
        // Among the rooms tried, some let the purge commit and not the rewrite after it:
        // the case that was misreported. (The purge itself needs so little room that none
        // fails it here.)
        #expect(purgedWithTextLeft > 0)
    }
}
