import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Trash round trips")
struct TrashRoundTripTests {
    @Test("deleting a word moves it to the Trash: deletedAt set, updatedAt bumped, gone from list and search")
    func deleteMovesToTrash() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "palabra", meaning: "word")).word
            let other = try library.add(WordContent(term: "palabras")).word
            fixture.clock.advance(by: 60_000)
            let deleteTime = fixture.clock.now()

            let deleted = try library.delete([word.id])
            #expect(deleted.map(\.id) == [word.id])
            let stored = try #require(try library.word(word.id))
            #expect(stored.deletedAt == deleteTime)
            #expect(stored.updatedAt == deleteTime)
            #expect(stored.createdAt == word.createdAt)
            #expect(stored.content == word.content)
            #expect(try library.list().map(\.id) == [other.id])
            #expect(try library.search("palabra").map(\.id) == [other.id])
            #expect(try library.search("word").isEmpty)
            #expect(try library.trash().map(\.id) == [word.id])
            #expect(try library.counts() == (words: 1, trash: 1))
        }
    }

    @Test("the Trash lists the newest deletion first")
    func trashIsNewestDeletionFirst() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a")).word
            let b = try library.add(WordContent(term: "b")).word
            let c = try library.add(WordContent(term: "c")).word
            fixture.clock.advance(by: 10)
            let first = try library.delete([a.id])[0].deletedAt
            fixture.clock.advance(by: 10)
            let second = try library.delete([c.id])[0].deletedAt
            fixture.clock.advance(by: 10)
            let third = try library.delete([b.id])[0].deletedAt
            #expect(try library.trash().map(\.id) == [b.id, c.id, a.id])
            #expect(try library.trash().map(\.deletedAt) == [third, second, first])
            #expect(first != nil && first! < second! && second! < third!)
        }
    }

    @Test("restoring a word clears deletedAt, bumps updatedAt and brings it back to list and search")
    func restoreBringsWordBack() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "palabra", tags: ["es"])).word
            fixture.clock.advance(by: 1_000)
            let deleted = try library.delete([word.id])[0]
            fixture.clock.advance(by: 1_000)

            let restored = try library.restore([word.id])
            #expect(restored.map(\.id) == [word.id])
            let stored = try #require(try library.word(word.id))
            #expect(stored.deletedAt == nil)
            #expect(stored.updatedAt == fixture.clock.now())
            #expect(stored.updatedAt > deleted.updatedAt)
            #expect(stored.content == word.content)
            #expect(try library.trash().isEmpty)
            #expect(try library.list().map(\.id) == [word.id])
            #expect(try library.list(ListQuery(tag: "es")).map(\.id) == [word.id])
            #expect(try library.search("pal").map(\.id) == [word.id])
        }
    }

    @Test("restore bumps updatedAt even when the clock is behind the deletion")
    func restoreWithClockBehind() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "palabra")).word
            fixture.clock.advance(by: 10_000)
            let deleted = try library.delete([word.id])[0]
            fixture.clock.set(word.createdAt)
            let restored = try library.restore([word.id])[0]
            #expect(restored.updatedAt == deleted.updatedAt.next)
            #expect(try library.word(word.id) == restored)
        }
    }

    @Test("deleting several words is all or nothing when one is already in the Trash")
    func deleteSeveralIsAllOrNothing() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a")).word
            let b = try library.add(WordContent(term: "b")).word
            let c = try library.add(WordContent(term: "c")).word
            try library.delete([b.id])
            let before = try library.snapshot()
            fixture.clock.advance(by: 1_000)

            let error = #expect(throws: LibraryError.self) { try library.delete([a.id, b.id, c.id]) }
            guard case .alreadyInTrash(let id, let term) = error else {
                Issue.record("expected alreadyInTrash, got \(String(describing: error))")
                return
            }
            #expect(id == b.id)
            #expect(term == "b")
            #expect(try library.snapshot() == before)
            #expect(try library.list().map(\.id).sorted() == [a.id, c.id].sorted())
        }
    }

    @Test("a word named twice in one delete goes to the Trash once")
    func sameWordTwice() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a")).word
            let before = try library.required(a.id)
            fixture.clock.advance(by: 100)
            let deleted = try library.delete([a.id, a.id])
            #expect(deleted.map(\.id) == [a.id])
            let after = try library.required(a.id)
            #expect(after.word.deletedAt == fixture.clock.now())
            #expect(after.localChange == before.localChange + 1)
            #expect(try library.counts() == (words: 0, trash: 1))
        }
    }

    @Test("deleting several words is all or nothing when one id is unknown")
    func deleteWithUnknownIDChangesNothing() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a")).word
            let before = try library.snapshot()
            let stranger = WordID.random()
            let error = #expect(throws: LibraryError.self) { try library.delete([a.id, stranger]) }
            guard case .wordNotFound(let text) = error else {
                Issue.record("expected wordNotFound, got \(String(describing: error))")
                return
            }
            #expect(text == stranger.rawValue)
            #expect(try library.snapshot() == before)
        }
    }

    @Test("several words can be restored at once, and restoring a live word is refused without changes")
    func restoreSeveral() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a")).word
            let b = try library.add(WordContent(term: "b")).word
            let c = try library.add(WordContent(term: "c")).word
            try library.delete([a.id, b.id])
            #expect(try library.counts() == (words: 1, trash: 2))

            let before = try library.snapshot()
            let error = #expect(throws: LibraryError.self) { try library.restore([a.id, c.id]) }
            guard case .wrongTrashState(let id, _, let inTrash) = error else {
                Issue.record("expected wrongTrashState, got \(String(describing: error))")
                return
            }
            #expect(id == c.id)
            #expect(!inTrash)
            #expect(try library.snapshot() == before)

            try library.restore([a.id, b.id])
            #expect(try library.counts() == (words: 3, trash: 0))
        }
    }

    @Test("a word survives any number of trips to the Trash and back with its content")
    func manyRoundTrips() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(
                WordContent(
                    term: "ida", meaning: "going", examples: ["Ida y vuelta."],
                    notes: "n", tags: ["viaje"])
            ).word
            var last = word.updatedAt
            for _ in 0..<5 {
                let deleted = try library.delete([word.id])[0]
                #expect(deleted.updatedAt > last)
                let restored = try library.restore([word.id])[0]
                #expect(restored.updatedAt > deleted.updatedAt)
                last = restored.updatedAt
            }
            let final = try #require(try library.word(word.id))
            #expect(final.content == word.content)
            #expect(final.tags == word.tags)
            #expect(final.deletedAt == nil)
            #expect(final.updatedAt == last)
        }
    }
}
