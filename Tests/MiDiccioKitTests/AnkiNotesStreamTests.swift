import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioStore

/// An Anki package's notes are read one at a time while the import writes them (issue 12:
/// a package of 300,000 notes read whole took 290 MB): the notes and their cards are two
/// queries read side by side, both in note order. Each note still gets the decks of its
/// cards as reading every card first gave them.
@Suite("An Anki collection's notes are read one at a time, each with its cards' decks")
struct AnkiNotesStreamTests {
    /// A collection of the legacy layout (schema 11) with `notes` notes, written in a
    /// shuffled order, and cards that reach every case: none, several in one deck, several
    /// decks, a filtered deck (its home deck counts), and cards of notes that do not exist.
    private func collection(at path: String, notes: Int, generator: inout SeededGenerator) throws -> [Int64: [Int64]] {
        let database = try Database(path: path, create: true)
        let models = #"{"1": {"name": "Basic", "flds": [{"name": "Front", "ord": 0}, {"name": "Back", "ord": 1}]}}"#
        let decks = #"{"10": {"name": "A"}, "11": {"name": "B"}, "12": {"name": "Filtered"}}"#
        try database.execute(
            """
            CREATE TABLE col (ver INTEGER, models TEXT, decks TEXT);
            CREATE TABLE notes (id INTEGER PRIMARY KEY, mid INTEGER, tags TEXT, flds TEXT);
            CREATE TABLE cards (id INTEGER PRIMARY KEY, nid INTEGER, did INTEGER, ord INTEGER, odid INTEGER);
            """)
        var expected: [Int64: [Int64]] = [:]
        try database.write {
            try database.run("INSERT INTO col VALUES (11, ?, ?)", [.text(models), .text(decks)])
            var cardID: Int64 = 1
            for note in (0..<Int64(notes)).shuffled(using: &generator) {
                let id = 1_000 + note * 3
                try database.run("INSERT INTO notes VALUES (?, 1, ' t ', ?)", [.integer(id), .text("word\(note)\u{1F}meaning")])
                var homes: [Int64] = []
                for ord in (0..<Int.random(in: 0...3, using: &generator)).shuffled(using: &generator) {
                    let deck = Int64.random(in: 10...11, using: &generator)
                    let filtered = Bool.random(using: &generator)
                    try database.run(
                        "INSERT INTO cards VALUES (?, ?, ?, ?, ?)",
                        [
                            .integer(cardID), .integer(id), .integer(filtered ? 12 : deck), .integer(Int64(ord)),
                            .integer(filtered ? deck : 0),
                        ])
                    cardID += 1
                    homes.append(deck)
                }
                // Cards of a note that is not there (a deck package may leave it out).
                try database.run("INSERT INTO cards VALUES (?, ?, 10, 0, 0)", [.integer(cardID), .integer(id + 1)])
                cardID += 1
                expected[id] = homes
            }
        }
        // The decks as reading every card first, ordered by note and card number, gave them.
        let cards = try database.prepare("SELECT nid, did, odid FROM cards ORDER BY nid, ord").rows([]) {
            ($0.int64(0), $0.int64(1), $0.int64(2))
        }
        var decksOfNote: [Int64: [Int64]] = [:]
        for (note, deck, home) in cards where expected[note] != nil {
            let counted = home != 0 ? home : deck
            if !(decksOfNote[note]?.contains(counted) ?? false) { decksOfNote[note, default: []].append(counted) }
        }
        return decksOfNote
    }

    @Test("every note comes once, in id order, with the decks of its cards")
    func notesWithTheirDecks() throws {
        try withTemporaryDirectory { directory in
            var generator = SeededGenerator(seed: 31)
            let path = directory.appendingPathComponent("collection.anki2").path
            let decks = try collection(at: path, notes: 2_000, generator: &generator)
            let collection = try AnkiCollection(path: path, name: "collection.anki2")
            #expect(collection.noteCount == 2_000)
            var seen: [Int64] = []
            try collection.forEachNote { note in
                seen.append(note.id)
                #expect(note.deckIDs == decks[note.id] ?? [], "note \(note.id)")
                #expect(note.fields == ["word\((note.id - 1_000) / 3)", "meaning"])
                #expect(note.tags == ["t"])
            }
            #expect(seen == (0..<2_000).map { 1_000 + Int64($0) * 3 })
        }
    }

    @Test("an error of the one reading the notes stops the reading and comes through as it is")
    func readersErrorPassesThrough() throws {
        struct Stop: Error, Equatable {}
        try withTemporaryDirectory { directory in
            var generator = SeededGenerator(seed: 32)
            let path = directory.appendingPathComponent("collection.anki2").path
            _ = try collection(at: path, notes: 50, generator: &generator)
            let collection = try AnkiCollection(path: path, name: "collection.anki2")
            var read = 0
            #expect(throws: Stop()) {
                try collection.forEachNote { _ in
                    read += 1
                    if read == 10 { throw Stop() }
                }
            }
            #expect(read == 10)
        }
    }
}
