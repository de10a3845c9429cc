import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// "café" can be written composed (é as one character) or decomposed (e and an accent,
/// as macOS often pastes it). Swift takes the two as one string, but the tag rows that
/// the tag list and `list --tag` read hold the bytes: a word whose tag changed from one
/// form to the other kept the old row, so the tag list showed a tag the word no longer
/// had, and the tag as the word now had it found nothing (found syncing with a Mac).
@Suite("A tag spelled two ways keeps its index right")
struct ATagSpelledTwoWaysKeepsItsIndexTests {
    @Test("a tag changed from composed to decomposed moves its row, and taking it off leaves none")
    func rowsFollowTheBytes() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
            let id = try library.add(WordContent(term: "cortado", tags: [composed])).word.id
            let stored = try #require(try library.stored(id))
            var word = stored.word
            word.tags = [decomposed]
            var times = stored.times
            times.tags = times.tags.next
            word.updatedAt = times.newest
            try library.writing { try library.save(word, times: times, previous: stored, pending: true) }
            let rows = try library.database.cached("SELECT tag FROM word_tags").rows([]) { $0.text(0) }
            #expect(rows.map { Array($0.utf8) } == [Array(decomposed.utf8)], "the row holds the word's bytes")
            #expect(try library.list(ListQuery(tag: decomposed)).map(\.id) == [id])

            try library.edit(id, WordEdit(tags: []))
            #expect(try library.tags().isEmpty, "no tag left in the tag list")
            #expect(try library.list(ListQuery(tag: composed)).isEmpty)
        }
    }
}
