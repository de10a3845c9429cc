import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Undoing a backup restore")
struct UndoRestoreTests {
    @Test("undo puts every word back as it was before a merge: content and Trash state")
    func undoMerge() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let changed = try library.add(
                WordContent(
                    term: "cambiado", meaning: "before", examples: ["Ej."],
                    notes: "n", tags: ["Keep", "x"])
            ).word
            let trashed = try library.add(WordContent(term: "en la papelera", meaning: "in the trash")).word
            try library.delete([trashed.id])
            let untouched = try library.add(WordContent(term: "intacto")).word
            let beforeRestore = try [changed.id, trashed.id, untouched.id].map { try #require(try library.word($0)) }
            fixture.clock.advance(by: 1_000)

            let later = fixture.clock.now().adding(500)
            let added = Word(id: WordID.random(), term: "nuevo", createdAt: later, updatedAt: later)
            try writeBackup(
                [
                    changed.edited(at: later) {
                        $0.meaning = "after"
                        $0.tags = ["other"]
                        $0.examples = []
                    },
                    beforeRestore[1].edited(at: later) {
                        $0.deletedAt = nil
                        $0.meaning = "restored"
                    },
                    added,
                ], to: fixture.file("backup.json"))
            let restore = try library.restoreBackup(from: fixture.file("backup.json"))
            #expect(restore.added == 1 && restore.updated == 2)
            #expect(try library.canUndoRestore())
            fixture.clock.advance(by: 1_000)

            let undo = try library.undoRestore()
            #expect(undo.updated == 1)
            #expect(undo.trashed == 2)
            for old in beforeRestore {
                let now = try #require(try library.word(old.id))
                #expect(now.content == old.content, "\(old.term)")
                #expect(now.tags == old.tags, "\(old.term)")
                #expect(now.isDeleted == old.isDeleted, "\(old.term)")
            }
            #expect(try library.word(untouched.id) == beforeRestore[2])
            #expect(try library.word(added.id)?.isDeleted == true)
            #expect(Set(try library.list().map(\.id)) == [changed.id, untouched.id])
            #expect(Set(try library.trash().map(\.id)) == [trashed.id, added.id])
        }
    }

    /// It said nothing of them, where `import undo` did (round 23B #8).
    @Test("a word the restore added and studied since goes to the Trash with its answers, and the undo says so")
    func studiedSinceIsTold() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let time = fixture.clock.now()
            let studied = Word(id: WordID.random(), term: "nuevo", meaning: "new", createdAt: time, updatedAt: time)
            let other = Word(id: WordID.random(), term: "otro", meaning: "other", createdAt: time, updatedAt: time)
            try writeBackup([studied, other], to: fixture.file("backup.json"))
            #expect(try library.restoreBackup(from: fixture.file("backup.json")).added == 2)
            fixture.clock.advance(by: 1_000)
            try library.review(studied.id, grade: .good)
            let undo = try library.undoRestore()
            #expect(undo.trashed == 2 && undo.trashedStudied == 1, "\(undo)")
            #expect(try library.reviewEvents(of: studied.id).count == 1, "the answer stays with the word")
        }
    }

    @Test("undo after a replace brings back the words the replace sent to the Trash")
    func undoReplace() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a", meaning: "alpha")).word
            let b = try library.add(WordContent(term: "b", meaning: "beta")).word
            try writeBackup([a.edited(at: a.updatedAt) { $0.meaning = "ALPHA" }], to: fixture.file("backup.json"))
            fixture.clock.advance(by: 1_000)
            _ = try library.restoreBackup(from: fixture.file("backup.json"), replace: true)
            #expect(try library.list().map(\.id) == [a.id])
            fixture.clock.advance(by: 1_000)

            _ = try library.undoRestore()
            #expect(try library.word(a.id)?.content == a.content)
            #expect(try library.word(b.id)?.content == b.content)
            #expect(try library.word(b.id)?.isDeleted == false)
            #expect(try library.trash().isEmpty)
        }
    }

    @Test("undone words, once a sync has sent the restore, are new edits: newer than the restore and pending")
    func undoIsANewEdit() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "a", meaning: "before")).word
            try writeBackup(
                [word.edited(at: word.updatedAt.adding(10_000)) { $0.meaning = "after" }],
                to: fixture.file("backup.json"))
            _ = try library.restoreBackup(from: fixture.file("backup.json"))
            let restored = try library.required(word.id)
            try library.markAllUploaded()
            try library.writing { try library.noteRestoreMetASync() }
            // The clock is behind the restored word's time: undo must still be newer.
            let undo = try library.undoRestore()
            #expect(undo.updated == 1)
            let stored = try library.required(word.id)
            #expect(stored.word.meaning == "before")
            #expect(stored.word.updatedAt == restored.word.updatedAt.next)
            #expect(stored.times.meaning == restored.word.updatedAt.next)
            #expect(stored.pending)
            #expect(stored.localChange > restored.localChange)
        }
    }

    @Test("undo is one step: a second undo has nothing to undo")
    func secondUndoThrows() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "a")).word
            try writeBackup([word.edited(at: word.updatedAt.adding(1)) { $0.meaning = "x" }], to: fixture.file("backup.json"))
            _ = try library.restoreBackup(from: fixture.file("backup.json"))
            _ = try library.undoRestore()
            #expect(try library.canUndoRestore() == false)
            let before = try library.snapshot()
            let error = #expect(throws: LibraryError.self) { try library.undoRestore() }
            guard case .nothingToUndo = error else {
                Issue.record("expected nothingToUndo, got \(String(describing: error))")
                return
            }
            #expect(error?.description == "there is no restore to undo")
            #expect(try library.snapshot() == before)
        }
    }

    @Test("with no restore ever made there is nothing to undo")
    func nothingRestoredYet() throws {
        try withTemporaryLibrary { fixture in
            try fixture.library.add(WordContent(term: "a"))
            #expect(try fixture.library.canUndoRestore() == false)
            let error = #expect(throws: LibraryError.self) { try fixture.library.undoRestore() }
            guard case .nothingToUndo = error else {
                Issue.record("expected nothingToUndo, got \(String(describing: error))")
                return
            }
        }
    }

    @Test("undo reverts only the last of two restores")
    func onlyLastRestoreIsUndone() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "a", meaning: "v0")).word
            try writeBackup([word.edited(at: word.updatedAt.adding(10)) { $0.meaning = "v1" }], to: fixture.file("one.json"))
            try writeBackup([word.edited(at: word.updatedAt.adding(20)) { $0.meaning = "v2" }], to: fixture.file("two.json"))
            _ = try library.restoreBackup(from: fixture.file("one.json"))
            _ = try library.restoreBackup(from: fixture.file("two.json"))
            #expect(try library.word(word.id)?.meaning == "v2")
            _ = try library.undoRestore()
            #expect(try library.word(word.id)?.meaning == "v1")
            #expect(throws: LibraryError.self) { try library.undoRestore() }
        }
    }

    @Test("a dry run does not replace what the last real restore can undo")
    func dryRunKeepsUndo() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "a", meaning: "v0")).word
            let other = try library.add(WordContent(term: "b")).word
            try writeBackup([word.edited(at: word.updatedAt.adding(10)) { $0.meaning = "v1" }], to: fixture.file("one.json"))
            try writeBackup([other], to: fixture.file("two.json"))
            _ = try library.restoreBackup(from: fixture.file("one.json"))
            let preview = try library.restoreBackup(from: fixture.file("two.json"), replace: true, dryRun: true)
            #expect(preview.trashed == 1)
            _ = try library.undoRestore()
            #expect(try library.word(word.id)?.meaning == "v0")
            #expect(try library.counts() == (words: 2, trash: 0))
        }
    }

    @Test("undo survives closing and reopening the library")
    func undoAfterReopen() throws {
        try withTemporaryLibrary { fixture in
            let word = try fixture.library.add(WordContent(term: "a", meaning: "v0")).word
            try writeBackup([word.edited(at: word.updatedAt.adding(10)) { $0.meaning = "v1" }], to: fixture.file("one.json"))
            _ = try fixture.library.restoreBackup(from: fixture.file("one.json"))
            let reopened = try WordLibrary(path: fixture.path, clock: fixture.clock, environment: [:])
            #expect(try reopened.canUndoRestore())
            _ = try reopened.undoRestore()
            #expect(try reopened.word(word.id)?.meaning == "v0")
        }
    }
}
