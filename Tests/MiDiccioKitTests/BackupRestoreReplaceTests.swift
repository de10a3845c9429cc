import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Backup restore: replace")
struct BackupRestoreReplaceTests {
    @Test("after a replace the library's words are exactly the backup's; the rest are in the Trash")
    func libraryEqualsBackup() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let kept = try library.add(WordContent(term: "kept", meaning: "same")).word
            let changed = try library.add(WordContent(term: "changed", meaning: "local")).word
            let notInBackup = try library.add(WordContent(term: "only here")).word
            let trashedHere = try library.add(WordContent(term: "trashed here")).word
            try library.delete([trashedHere.id])
            // The backup was made before the local edit, and still wins.
            let changedInBackup = changed.edited(at: changed.updatedAt) {
                $0.meaning = "backup"
                $0.tags = ["restored"]
            }
            let added = Word(
                id: WordID.random(), term: "only in backup", createdAt: changed.createdAt,
                updatedAt: changed.createdAt)
            fixture.clock.advance(by: 60_000)
            try library.edit(changed.id, WordEdit(meaning: "local, edited later"))
            try writeBackup([kept, changedInBackup, added], to: fixture.file("backup.json"))

            let report = try library.restoreBackup(from: fixture.file("backup.json"), replace: true)
            #expect(report.added == 1)
            #expect(report.updated == 1)
            #expect(report.unchanged == 1)
            #expect(report.trashed == 1)

            #expect(Set(try library.list().map(\.id)) == [kept.id, changed.id, added.id])
            #expect(try library.word(changed.id)?.content == changedInBackup.content)
            #expect(try library.word(kept.id)?.content == kept.content)
            #expect(try library.word(added.id)?.content == added.content)
            #expect(Set(try library.trash().map(\.id)) == [notInBackup.id, trashedHere.id])
            #expect(try library.search("local").isEmpty)
            #expect(try library.search("restored").map(\.id) == [changed.id])
        }
    }

    @Test("restored words get a new updatedAt, newer than anything before, on every field, and are pending")
    func restoredWordsGetNewTimes() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "palabra", meaning: "word")).word
            fixture.clock.advance(by: 1_000)
            let edited = try library.edit(word.id, WordEdit(meaning: "a word"))
            try library.markAllUploaded()
            let before = try library.required(word.id)
            try writeBackup([word], to: fixture.file("backup.json"))
            fixture.clock.advance(by: 2_000)
            let now = fixture.clock.now()

            _ = try library.restoreBackup(from: fixture.file("backup.json"), replace: true)
            let stored = try library.required(word.id)
            #expect(stored.word.meaning == "word")
            #expect(stored.word.updatedAt == now)
            #expect(stored.word.updatedAt > edited.updatedAt)
            #expect(stored.word.createdAt == word.createdAt)
            #expect(WordField.allCases.allSatisfy { stored.times[$0] == now })
            #expect(stored.pending)
            #expect(stored.localChange > before.localChange)
        }
    }

    @Test("with the clock behind, restored words are still 1 ms newer than the library's copy")
    func restoreWithClockBehind() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let word = try library.add(WordContent(term: "palabra")).word
            fixture.clock.advance(by: 86_400_000)
            let edited = try library.edit(word.id, WordEdit(meaning: "edited tomorrow"))
            try writeBackup([word], to: fixture.file("backup.json"))
            fixture.clock.set(word.createdAt)

            _ = try library.restoreBackup(from: fixture.file("backup.json"), replace: true)
            let stored = try library.required(word.id)
            #expect(stored.word.updatedAt == edited.updatedAt.next)
            #expect(stored.word.meaning == "")
        }
    }

    @Test("a word the backup has in the Trash goes to the Trash, and one it has live comes back out")
    func trashStateFollowsBackup() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let live = try library.add(WordContent(term: "live here")).word
            let trashed = try library.add(WordContent(term: "trashed here")).word
            try library.delete([trashed.id])
            let liveInBackup = try #require(try library.word(trashed.id)).edited(at: trashed.updatedAt) { $0.deletedAt = nil }
            let trashedInBackup = live.edited(at: live.updatedAt) { $0.deletedAt = live.updatedAt }
            try writeBackup([liveInBackup, trashedInBackup], to: fixture.file("backup.json"))
            fixture.clock.advance(by: 1_000)

            let report = try library.restoreBackup(from: fixture.file("backup.json"), replace: true)
            #expect(report.trashed == 1)
            #expect(report.updated == 1)
            #expect(try library.list().map(\.id) == [trashed.id])
            #expect(try library.trash().map(\.id) == [live.id])
        }
    }

    @Test("a dry run of a replace reports and changes nothing")
    func dryRunChangesNothing() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a")).word
            try library.add(WordContent(term: "b"))
            let c = Word(id: WordID.random(), term: "c", createdAt: a.createdAt, updatedAt: a.createdAt)
            try writeBackup([a.edited(at: a.updatedAt) { $0.meaning = "new" }, c], to: fixture.file("backup.json"))
            let before = try library.snapshot()
            fixture.clock.advance(by: 1_000)

            let preview = try library.restoreBackup(from: fixture.file("backup.json"), replace: true, dryRun: true)
            #expect(preview.added == 1)
            #expect(preview.updated == 1)
            #expect(preview.trashed == 1)
            #expect(try library.snapshot() == before)
            #expect(try library.canUndoRestore() == false)

            #expect(try library.restoreBackup(from: fixture.file("backup.json"), replace: true) == preview)
        }
    }
}
