import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// Rule: Empty Trash is asked about the words the person saw in the Trash (`trashKey`),
/// and that key is kept as words go in and out, so no page of the Trash reads every entry
/// to make it. Kept, it must still name exactly the words the Trash holds, whichever way
/// they came in or went out.
@Suite("The Trash knows which words it holds without reading them all")
struct TheTrashKnowsWhichWordsItHoldsTests {
    /// The key made from the Trash's entries, read one by one.
    private func keyReadFromEveryEntry(_ library: WordLibrary) throws -> (count: Int, key: String) {
        let words = try library.trash(includeHidden: true)
        return (words.count, words.reduce(0) { $0 ^ WordLibrary.trashEntryTerm($1) }.sixteenHexDigits)
    }

    private func expectKeptKeyIsTrue(_ library: WordLibrary, _ step: String) throws {
        let kept = try library.trashKey(), read = try keyReadFromEveryEntry(library)
        #expect(kept == read, "after \(step)")
    }

    @Test("deleting, restoring, purging and bulk actions keep the Trash's key true")
    func everyWayInAndOut() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let ids = try (1...12).map { try library.add(WordContent(term: "palabra \($0)", tags: ["t"])).word.id }
            try expectKeptKeyIsTrue(library, "adding")
            let empty = try library.trashKey()

            _ = try library.delete(Array(ids[0..<4]))
            try expectKeptKeyIsTrue(library, "deleting four")
            _ = try library.restore([ids[1]])
            try expectKeptKeyIsTrue(library, "restoring one")
            _ = try library.purge([ids[2]])
            try expectKeptKeyIsTrue(library, "purging one")
            let bulk = try library.moveToTrash(.words(Array(ids[6..<10])))
            try expectKeptKeyIsTrue(library, "a bulk move to the Trash")
            _ = try library.undoBulkAction(step: bulk.step)
            try expectKeptKeyIsTrue(library, "undoing it")
            _ = try library.moveToTrash(.matches(query: "palabra", tag: nil))
            try expectKeptKeyIsTrue(library, "moving every match to the Trash")
            _ = try library.restoreFromTrash(.trash(term: "palabra 1"))
            try expectKeptKeyIsTrue(library, "restoring the Trash entries that start alike")
            _ = try library.edit(ids[11], WordEdit(meaning: "cambiada"))
            try expectKeptKeyIsTrue(library, "editing a word in the Trash")

            try library.emptyTrash(expecting: library.trashKey().count, expectingKey: library.trashKey().key)
            try expectKeptKeyIsTrue(library, "emptying the Trash")
            #expect(try library.trashKey() == empty, "an empty Trash has the key it had before anything was deleted")
        }
    }

    @Test("a library reopened, or one saved before the key was kept, gives the Trash's true key")
    func keptAcrossOpeningAgain() throws {
        try withLibraryFile { path, clock in
            var library: WordLibrary? = try WordLibrary(path: path, clock: clock, environment: [:])
            let ids = try (1...5).map { try library!.add(WordContent(term: "vieja \($0)")).word.id }
            _ = try library!.delete(Array(ids[0..<3]))
            let before = try keyReadFromEveryEntry(library!)
            library = nil

            let reopened = try WordLibrary(path: path, clock: clock, environment: [:])
            #expect(try reopened.trashKey() == before)
            // An earlier MiDiccio kept the counts without the key: three parts.
            let digest = try #require(try reopened.info("sync.digest"))
            try reopened.writing { try reopened.setInfo("words.counts", "\(digest) 2 3") }
            #expect(try reopened.trashKey() == before)
            // One that kept the key of the ids alone: four parts.
            try reopened.writing {
                try reopened.setInfo("words.counts", "\(digest) 2 3 \(WordLibrary.fingerprint(ids[0..<3].map(\.rawValue)))")
            }
            #expect(try reopened.trashKey() == before)
            _ = try reopened.delete([ids[3]])
            try expectKeptKeyIsTrue(reopened, "deleting in a library whose counts had no key")
        }
    }

    @Test("words deleted, restored and purged on another device keep this device's Trash key true")
    func keptThroughASync() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let ids = try (1...8).map { try a.add("nube \($0)") }
            try fixture.syncRounds([a, b])
            _ = try b.library.delete(Array(ids[0..<5]))
            try fixture.syncRounds([a, b])
            try expectKeptKeyIsTrue(a.library, "pulling five deletions")
            _ = try b.library.restore([ids[0]])
            _ = try b.library.purge([ids[1]])
            try fixture.syncRounds([a, b])
            try expectKeptKeyIsTrue(a.library, "pulling a restore and a purge")
            #expect(try a.library.trashKey() == b.library.trashKey())
            #expect(try a.library.trashKey().count == 3)
        }
    }

    @Test("a kept key gone wrong is counted again once Empty Trash finds it out, so the Trash can still be emptied")
    func aWrongKeptKeyMendsItself() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let ids = try (1...3).map { try library.add(WordContent(term: "roto \($0)")).word.id }
            _ = try library.delete(ids)
            let digest = try #require(try library.info("sync.digest"))
            try library.writing { try library.setInfo("words.counts", "\(digest) 0 3 1234 2") }
            let wrong = try library.trashKey()
            #expect(wrong.key == "0000000000001234", "the kept key is read as kept")
            #expect(throws: LibraryError.self) { try library.emptyTrash(expecting: wrong.count, expectingKey: wrong.key) }
            let mended = try library.trashKey()
            #expect(mended == (try keyReadFromEveryEntry(library)) && mended.count == 3)
            #expect(try library.emptyTrash(expecting: mended.count, expectingKey: mended.key) == 3)
        }
    }

    /// A word this device moved to the Trash that another device had edited before the
    /// move reached it: the sync brings the edit into the Trash, and the id stays. Empty
    /// Trash in the web app, asked about the Trash as shown before that sync, purged the
    /// edit on every device (found by the exploratory helper, round 27B #1).
    @Test("a change pulled into a word in the Trash changes the Trash's key: Empty Trash asked about it as it was refuses")
    func aChangeInTheTrashChangesItsKey() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let word = try a.add("nube", meaning: "cloud")
            try fixture.syncRounds([a, b])
            // The edit is older than the deletion: the word's newest time stays the deletion's.
            _ = try b.library.edit(word, WordEdit(notes: "written on b"))
            fixture.advanceClocks(by: 1_000)
            _ = try a.library.delete([word])
            let shown = try a.library.trashKey()
            let before = try #require(try a.library.word(word))
            _ = try b.sync()
            _ = try a.sync()
            try expectKeptKeyIsTrue(a.library, "pulling an edit into the Trash")
            let now = try a.library.trashKey()
            #expect(now.count == shown.count && now.key != shown.key)
            #expect(throws: LibraryError.self) { try a.library.emptyTrash(expecting: shown.count, expectingKey: shown.key) }
            #expect(try a.word(word).notes == "written on b")
            #expect(try a.word(word).updatedAt == before.updatedAt, "the word's newest time did not change")
            #expect(try a.library.emptyTrash(expecting: now.count, expectingKey: now.key) == 1)
        }
    }
}
