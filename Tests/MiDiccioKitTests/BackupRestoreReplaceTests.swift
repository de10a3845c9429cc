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

    @Test("a replace confirmed from its preview moves no word to the Trash that the preview did not: one added since is refused")
    func aReplaceTrashesOnlyWhatItsPreviewListed() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let kept = try library.add(WordContent(term: "kept")).word
            let old = try library.add(WordContent(term: "not in the backup")).word
            let backup = fixture.file("backup.json")
            try writeBackup([kept], to: backup)
            let preview = try library.restoreBackup(from: backup, replace: true, dryRun: true)
            #expect(preview.trashed == 1 && preview.sweptKey.count == 16)
            // Another device's word arrives between the preview and the confirm.
            let arrived = try library.add(WordContent(term: "added on the phone")).word
            do {
                _ = try library.restoreBackup(from: backup, replace: true, expectingSwept: preview.sweptKey)
                Issue.record("the replace went ahead")
            } catch LibraryError.restoreChangedSincePreview(let trashedNow) {
                #expect(trashedNow == 2)
            }
            #expect(Set(try library.list().map(\.id)) == [kept.id, old.id, arrived.id], "nothing was changed")
            // The same set, however it is reached, gives the same key: the confirm of a new preview goes ahead.
            let again = try library.restoreBackup(from: backup, replace: true, dryRun: true)
            #expect(again.sweptKey != preview.sweptKey)
            let done = try library.restoreBackup(from: backup, replace: true, expectingSwept: again.sweptKey)
            #expect(done.trashed == 2)
            #expect(try library.list().map(\.id) == [kept.id])
        }
    }
}
