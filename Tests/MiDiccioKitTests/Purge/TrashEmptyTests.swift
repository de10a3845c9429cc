import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: emptying the Trash purges every word in it, and the purges sync to every device.
@Suite("Emptying the Trash purges everything in it, on every device")
struct TrashEmptyTests {
    @Test("emptying the Trash purges every word in it and leaves the other words alone")
    func emptyTrashPurgesEverything() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let kept = try (1...3).map { try library.add(WordContent(term: "vivo \($0)")).word.id }
            let trashed = try (1...4).map { try library.add(WordContent(term: "papelera \($0)", tags: ["vieja"])).word.id }
            try library.delete(trashed)

            #expect(try library.emptyTrash() == 4)
            #expect(try library.trash(includeHidden: true).isEmpty)
            #expect(try library.counts() == (words: 3, trash: 0))
            #expect(Set(try library.list().map(\.id)) == Set(kept))
            for id in trashed {
                #expect(try library.isPurged(id))
                #expect(try library.word(id) == nil)
            }
            #expect(try library.tags().isEmpty, "the Trash's only tag went with it")
            #expect(try library.search("papelera").isEmpty)
            #expect(try purgeSearchIndexMatches(library, "papelera") == 0)
        }
    }

    /// It said "... is not in the Trash; delete it first, then purge it" of the word the
    /// person had just restored, and not that nothing was purged (round 21B #7).
    @Test("a word taken out of the Trash by another program as the Trash is emptied: nothing is purged, and it says so")
    func aWordRestoredAsTheTrashIsEmptied() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let trashed = try (1...3).map { try library.add(WordContent(term: "papelera \($0)")).word.id }
            try library.delete(trashed)
            let other = try WordLibrary(path: library.path, environment: [:])
            #expect {
                try library.emptyTrash(expecting: nil, expectingKey: nil, progress: nil) { try other.restore([trashed[0]]) }
            } throws: { error in
                "\(error)".contains("nothing was changed") && "\(error)".contains("2 match now, not 3")
            }
            #expect(try library.trash().count == 2 && !library.isPurged(trashed[1]))
        }
    }

    @Test("emptying a Trash that holds other words than the person saw counted purges nothing")
    func emptyingATrashThatChanged() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let seen = try library.add(WordContent(term: "seen")).word.id
            try library.delete([seen])
            // Another device moves five words to the Trash; the sync before the purge pulls them.
            let unseen = try (1...5).map { try library.add(WordContent(term: "unseen \($0)")).word.id }
            try library.delete(unseen)
            do {
                _ = try library.emptyTrash(expecting: 1)
                Issue.record("the Trash was emptied")
            } catch LibraryError.selectionChanged(let expected, let found) {
                #expect(expected == 1 && found == 6)
            }
            #expect(try library.counts() == (words: 0, trash: 6), "nothing was purged")
            #expect(try library.emptyTrash(expecting: 6) == 6)
        }
    }

    @Test("emptying a Trash that holds as many words as the person saw, but other ones, purges nothing")
    func emptyingATrashOfOtherWords() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let alpha = try library.add(WordContent(term: "alpha")).word.id
            let beta = try library.add(WordContent(term: "beta")).word.id
            let important = try library.add(WordContent(term: "important")).word.id
            try library.delete([alpha, beta])
            let seen = try library.trashKey()
            #expect(seen.count == 2)
            // Another device takes alpha out of the Trash and deletes "important"; the
            // sync before the purge pulls both (found by the exploratory helper, round 9).
            try library.restore([alpha])
            try library.delete([important])
            do {
                _ = try library.emptyTrash(expecting: seen.count, expectingKey: seen.key)
                Issue.record("the Trash was emptied")
            } catch LibraryError.selectionChanged(let expected, let found) {
                #expect(expected == 2 && found == 2)
            }
            #expect(try !library.isPurged(important) && !library.isPurged(beta), "nothing was purged")
            let now = try library.trashKey()
            #expect(now.key != seen.key)
            #expect(try library.emptyTrash(expecting: now.count, expectingKey: now.key) == 2)
            #expect(try library.isPurged(important) && library.isPurged(beta) && !library.isPurged(alpha))
        }
    }

    @Test("a word purged and another put in the Trash in its row is other words to Empty Trash")
    func emptyingATrashWhoseRowWasTakenAgain() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let typo = try library.add(WordContent(term: "typo")).word.id
            try library.delete([typo])
            let seen = try library.trashKey()
            // On the phone: "typo" purged, "important" added and deleted; the sync before
            // the purge brings both. SQLite gives the new row the purged row's number.
            _ = try library.purge([typo])
            let important = try library.add(WordContent(term: "important")).word.id
            try library.delete([important])
            #expect(try library.trashKey().count == seen.count)
            #expect(throws: LibraryError.self) { try library.emptyTrash(expecting: seen.count, expectingKey: seen.key) }
            #expect(try !library.isPurged(important))
        }
    }

    @Test("emptying an empty Trash purges nothing and leaves no marker")
    func emptyingAnEmptyTrash() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            try library.add(WordContent(term: "vivo"))
            let before = try library.snapshot()
            #expect(try library.emptyTrash() == 0)
            #expect(try library.purgedCount() == 0)
            #expect(try library.snapshot() == before)
        }
    }

    @Test("emptying the Trash on one device purges those words on the others, and only those")
    func emptyTrashSyncs() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b"), c = try fixture.device("c")
            let kept = try (1...3).map { try a.add("vivo \($0)") }
            let trashed = try (1...5).map { try b.add("papelera \($0)") }
            try fixture.syncRounds([a, b, c])
            try a.library.delete(trashed)
            try fixture.syncRounds([a, b, c])
            #expect(try c.library.counts().trash == 5)

            #expect(try b.library.emptyTrash() == 5)
            var purgedOnC = 0
            for _ in 0..<2 {
                for device in [a, b, c] {
                    fixture.advanceClocks(by: 1_000)
                    let report = try device.sync()
                    if device === c { purgedOnC += report.purgedElsewhere }
                }
            }
            for device in [a, b, c] {
                #expect(try device.library.counts() == (words: 3, trash: 0), "\(device.name)")
                #expect(Set(try device.library.list().map(\.id)) == Set(kept), "\(device.name)")
                #expect(try device.library.purgedCount() == 5, "\(device.name)")
                for id in trashed { #expect(try !device.has(id), "\(device.name)") }
            }
            #expect(purgedOnC == 5)
            #expect(try a.status().purgedElsewhere == 5)
            #expect(try b.status().purgedElsewhere == 0)
            #expect(try a.everyWord() == b.everyWord())
            #expect(try b.everyWord() == c.everyWord())
        }
    }

    @Test("a word moved to the Trash on another device after this one emptied its Trash is not purged")
    func laterTrashIsNotPurged() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let old = try a.add("vieja")
            let later = try a.add("nueva")
            try a.library.delete([old])
            try fixture.syncRounds([a, b])
            #expect(try a.library.emptyTrash() == 1)
            try b.library.delete([later])
            try fixture.syncRounds([a, b], 3)
            for device in [a, b] {
                #expect(try !device.has(old))
                #expect(try device.library.trash().map(\.id) == [later], "\(device.name): still restorable")
            }
            try b.library.restore([later])
            try fixture.syncRounds([a, b])
            #expect(try a.library.list().map(\.id) == [later])
        }
    }
}
