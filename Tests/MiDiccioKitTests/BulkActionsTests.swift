import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// Issue 13: a tag added to or removed from many words, many words moved to or out of the
/// Trash, each as one transaction that sync carries and that one undo takes back.
@Suite("Bulk actions change many words at once and undo in one step")
struct BulkActionsTests {
    static func add(_ library: WordLibrary, _ term: String, tags: [String] = [], meaning: String = "") throws -> Word {
        try library.add(WordContent(term: term, meaning: meaning, tags: tags)).word
    }

    static func pendingIDs(_ library: WordLibrary) throws -> Set<String> {
        Set(try library.database.prepare("SELECT id FROM words WHERE pending = 1").rows { $0.text(0) })
    }

    static func clearPending(_ library: WordLibrary) throws {
        try library.database.execute("UPDATE words SET pending = 0")
    }

    @Test("a tag added to chosen words marks them pending, and one undo removes it from each")
    func addTagAndUndo() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let casa = try Self.add(library, "casa", tags: ["nouns"])
            let perro = try Self.add(library, "perro", tags: ["Verbs"])
            let gato = try Self.add(library, "gato")
            try Self.clearPending(library)
            temporary.clock.advance(by: 1000)
            let result = try library.addTag("verbs", to: .words([casa.id, perro.id, casa.id]))
            #expect(result.changed == 1)
            #expect(result.unchanged == 1)
            #expect(try library.word(casa.id)?.tags == ["nouns", "verbs"])
            #expect(try library.word(perro.id)?.tags == ["Verbs"])
            #expect(try library.word(gato.id)?.tags == [])
            #expect(try Self.pendingIDs(library) == [casa.id.rawValue])
            #expect(try library.word(casa.id)!.updatedAt > casa.updatedAt)
            #expect(try library.tagCount("verbs") == 2)
            #expect(try library.lastBulkAction()?.step == result.step)

            temporary.clock.advance(by: 1000)
            let undone = try library.undoBulkAction(step: result.step)
            #expect(undone.changed == 1)
            #expect(try library.word(casa.id)?.tags == ["nouns"])
            #expect(try library.word(perro.id)?.tags == ["Verbs"])
            #expect(try library.tagCount("verbs") == 1)
            #expect(throws: LibraryError.self) { try library.undoBulkAction() }
            #expect(try library.lastBulkAction() == nil)
        }
    }

    @Test("a tag with spaces around it is the tag itself: no second spelling, and removing it works")
    func tagIsTrimmed() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let casa = try Self.add(library, "casa", tags: ["foo", "done"])
            let perro = try Self.add(library, "perro")
            let added = try library.addTag("  Foo ", to: .words([casa.id, perro.id]))
            #expect(added.changed == 1)
            #expect(try library.word(casa.id)?.tags == ["foo", "done"])
            #expect(try library.word(perro.id)?.tags == ["Foo"])
            let removed = try library.removeTag(" done ", from: .words([casa.id]))
            #expect(removed.changed == 1)
            #expect(try library.word(casa.id)?.tags == ["foo"])
        }
    }

    @Test("a tag removed comes back in its place and spelling with the undo")
    func removeTagAndUndo() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let casa = try Self.add(library, "casa", tags: ["a", "Done", "b"])
            let perro = try Self.add(library, "perro", tags: ["done"])
            let gato = try Self.add(library, "gato", tags: ["b"])
            let result = try library.removeTag("DONE", from: .words([casa.id, perro.id, gato.id]))
            #expect(result.changed == 2)
            #expect(try library.word(casa.id)?.tags == ["a", "b"])
            #expect(try library.word(perro.id)?.tags == [])
            #expect(try library.tagCount("done") == 0)
            try library.undoBulkAction()
            #expect(try library.word(casa.id)?.tags == ["a", "Done", "b"])
            #expect(try library.word(perro.id)?.tags == ["done"])
            #expect(try library.word(gato.id)?.tags == ["b"])
        }
    }

    @Test("every match of a search with a tag is changed, and no other word")
    func allMatches() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            var houses: [Word] = []
            for number in 0..<30 {
                houses.append(try Self.add(library, "casa\(number)", tags: number % 2 == 0 ? ["nouns"] : [], meaning: "house"))
            }
            let other = try Self.add(library, "perro", tags: ["nouns"], meaning: "dog")
            let total = try library.find(SearchRequest(query: "house", tag: "nouns")).total
            #expect(total == 15)
            let result = try library.addTag("review", to: .matches(query: "house", tag: "nouns"))
            #expect(result.changed == 15)
            #expect(try library.tagCount("review") == 15)
            #expect(try library.word(other.id)?.tags == ["nouns"])
            #expect(try library.word(houses[1].id)?.tags == [])
            // Prefixes mean what they mean in `find`.
            let excluded = try library.moveToTrash(.matches(query: "meaning:house -tag:review", tag: nil))
            #expect(excluded.changed == 15)
            #expect(try library.counts().trash == 15)
            #expect(try library.word(houses[1].id)?.isDeleted == true)
            #expect(try library.word(houses[0].id)?.isDeleted == false)
        }
    }

    @Test("words moved to the Trash at once come back with one undo, and a restore goes back to the Trash")
    func trashAndUndo() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let words = try (0..<5).map { try Self.add(library, "w\($0)", tags: ["t"]) }
            try library.delete([words[0].id])
            try Self.clearPending(library)
            let moved = try library.moveToTrash(.words(words.map(\.id)))
            #expect(moved.changed == 4)
            #expect(moved.unchanged == 1)
            #expect(try library.counts() == (words: 0, trash: 5))
            #expect(try Self.pendingIDs(library).count == 4)
            #expect(try library.tagCount("t") == 0)
            let undone = try library.undoBulkAction()
            #expect(undone.changed == 4)
            #expect(try library.counts() == (words: 4, trash: 1))
            #expect(try library.word(words[0].id)?.isDeleted == true)

            let restored = try library.restoreFromTrash(.trash(term: ""))
            #expect(restored.changed == 1)
            #expect(try library.counts() == (words: 5, trash: 0))
            try library.undoBulkAction()
            #expect(try library.word(words[0].id)?.isDeleted == true)
            #expect(try library.counts() == (words: 4, trash: 1))
        }
    }

    @Test("the undo of a restore from the Trash says how many of the words it moved back had been studied")
    func undoOfARestoreCountsStudiedWords() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let words = try (0..<3).map { try Self.add(library, "w\($0)", tags: []) }
            try library.delete(words.map(\.id))
            let restored = try library.restoreFromTrash(.trash(term: ""))
            #expect(restored.changed == 3)
            // Studied since the restore: one of the three.
            try library.review(words[1].id, grade: .good)
            let undone = try library.undoBulkAction()
            #expect(undone.changed == 3)
            #expect(undone.trashedStudied == 1)
            #expect(try library.counts() == (words: 0, trash: 3))
            // An undo of a move to the Trash moves nothing there.
            _ = try library.restoreFromTrash(.trash(term: ""))
            _ = try library.moveToTrash(.words(words.map(\.id)))
            #expect(try library.undoBulkAction().trashedStudied == 0)
        }
    }

    @Test("a later bulk action replaces the one an old undo names")
    func staleUndo() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let casa = try Self.add(library, "casa")
            let first = try library.addTag("one", to: .words([casa.id]))
            let second = try library.addTag("two", to: .words([casa.id]))
            #expect(second.step == first.step + 1)
            #expect(throws: LibraryError.self) { try library.undoBulkAction(step: first.step) }
            #expect(try library.word(casa.id)?.tags == ["one", "two"])
            try library.undoBulkAction(step: second.step)
            #expect(try library.word(casa.id)?.tags == ["one"])
        }
    }

    @Test("a bulk action is all or nothing: an unknown word, a word in the Trash or a bad tag changes nothing")
    func allOrNothing() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let casa = try Self.add(library, "casa")
            let full = try Self.add(library, "lleno", tags: (0..<WordLimits.tagCount).map { "t\($0)" })
            let gone = try Self.add(library, "ido")
            try library.delete([gone.id])
            let digest = try library.libraryDigest()
            #expect(throws: LibraryError.self) { try library.addTag("x", to: .words([casa.id, WordID.random()])) }
            #expect(throws: LibraryError.self) { try library.addTag("x", to: .words([casa.id, gone.id])) }
            // A word that holds the most tags it can is left out, not a reason to refuse.
            #expect(try library.addTag("x", to: .words([full.id])).leftOut == 1)
            #expect(throws: LibraryError.self) { try library.addTag("two words", to: .words([casa.id])) }
            #expect(throws: LibraryError.self) { try library.addTag("  ", to: .words([casa.id])) }
            #expect(try library.libraryDigest() == digest)
            #expect(try library.word(casa.id)?.tags == [])
            #expect(try library.lastBulkAction() == nil)
        }
    }

    @Test(
        "an action on more words than it reads at once changes every one and undoes every one, and names a word it leaves out in its last read"
    )
    func manyReads() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            library.bulkWordsPerRead = 3
            let words = try (0..<10).map { try Self.add(library, "casa\($0)", meaning: "house") }
            let full = try Self.add(library, "casona", tags: (0..<WordLimits.tagCount).map { "t\($0)" }, meaning: "house")
            let perro = try Self.add(library, "perro", meaning: "dog")
            // The full word is the eleventh match, alone in the fourth read: left out.
            let crowded = try library.addTag("x", to: .matches(query: "house", tag: nil))
            #expect(crowded.changed == 10 && crowded.leftOut == 1 && crowded.leftOutTerms == ["casona"])
            #expect(try library.word(full.id)?.tags.count == WordLimits.tagCount)
            #expect(try library.undoBulkAction().changed == 10)
            try Self.clearPending(library)

            temporary.clock.advance(by: 1000)
            let trashed = try library.moveToTrash(.matches(query: "house", tag: nil))
            #expect(trashed.changed == 11)
            #expect(try Self.pendingIDs(library) == Set((words + [full]).map(\.id.rawValue)))
            #expect(try library.word(perro.id)?.deletedAt == nil)
            temporary.clock.advance(by: 1000)
            let restored = try library.restoreFromTrash(.trash(term: "cas"))
            #expect(restored.changed == 11)
            #expect(try (words + [full, perro]).allSatisfy { try library.word($0.id)?.deletedAt == nil })
            #expect(try library.bulkIDs(.matches(query: "house", tag: nil)).count == 11)

            let tagged = try library.addTag("x", to: .matches(query: "casa", tag: nil))
            #expect(tagged.changed == 10)
            #expect(try words.allSatisfy { try library.word($0.id)?.tags == ["x"] })
            #expect(try library.word(full.id)?.tags.count == WordLimits.tagCount)
            #expect(try library.undoBulkAction().changed == 10)
            #expect(try words.allSatisfy { try library.word($0.id)?.tags == [] })
        }
    }

    @Test("a bulk action and its undo say how far they have come: 0 first, then after every read, and the total last")
    func progress() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            library.bulkWordsPerRead = 3
            let words = try (0..<8).map { try Self.add(library, "casa\($0)", meaning: "house") }
            _ = try Self.add(library, "perro", meaning: "dog")
            var heard: [[Int]] = []
            let tagged = try library.addTag("x", to: .matches(query: "house", tag: nil)) { heard.append([$0, $1]) }
            #expect(tagged.changed == 8)
            #expect(heard == [[0, 8], [3, 8], [6, 8], [8, 8]])
            heard = []
            #expect(try library.undoBulkAction { heard.append([$0, $1]) }.changed == 8)
            #expect(heard == [[0, 8], [3, 8], [6, 8], [8, 8]])
            // Named words count once each, a read at a time too.
            heard = []
            let named = Array(words.prefix(6)).map(\.id)
            #expect(try library.moveToTrash(.words(named + [named[0]])) { heard.append([$0, $1]) }.changed == 6)
            #expect(heard == [[0, 6], [3, 6], [6, 6]])
            heard = []
            #expect(try library.restoreFromTrash(.trash(term: "casa")) { heard.append([$0, $1]) }.changed == 6)
            #expect(heard == [[0, 6], [3, 6], [6, 6]])
        }
    }

    @Test("purging all matches in the Trash leaves markers, removes the undo data, and refuses live words")
    func purgeMatches() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let words = try ["casa", "cama", "perro"].map { try Self.add(library, $0) }
            try library.moveToTrash(.words(words.map(\.id)))
            #expect(try library.purge(.trash(term: "CA")) == 2)
            #expect(try library.isPurged(words[0].id))
            #expect(try library.isPurged(words[1].id))
            #expect(try library.counts() == (words: 0, trash: 1))
            #expect(try library.database.integer("SELECT count(*) FROM bulk_undo") == 1)
            let live = try Self.add(library, "gato")
            #expect(throws: LibraryError.self) { try library.purge(.words([words[2].id, live.id])) }
            #expect(try library.counts() == (words: 1, trash: 1))
        }
    }

    @Test("the Trash pages by key: following pages meet every entry once")
    func trashByKey() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let words = try (0..<23).map { try Self.add(library, "w\($0)") }
            try library.moveToTrash(.words(words.map(\.id)))
            var seen: [WordID] = []
            var after: WordID?
            while true {
                let page = try library.trashPage(limit: 5, after: after)
                #expect(page.total == 23)
                if page.words.isEmpty { break }
                seen += page.words.map(\.id)
                after = page.words.last?.id
            }
            #expect(seen.count == 23)
            #expect(Set(seen) == Set(words.map(\.id)))
            #expect(seen == (try library.trashPage(limit: 50).words.map(\.id)))
        }
    }
}
