import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Backup restore: merge")
struct BackupRestoreMergeTests {
    /// A library with four words, all uploaded, and a backup that, for each of them and
    /// one more, holds a different case of the merge rules.
    struct Scenario {
        var newerInBackup: Word
        var newerLocally: Word
        var identical: Word
        var trashedInBackup: Word
        var missingLocally: Word
        var backup: [Word]
    }

    private func makeScenario(_ fixture: TemporaryLibrary) throws -> Scenario {
        let library = fixture.library
        let uno = try library.add(WordContent(term: "uno", meaning: "one", tags: ["num"])).word
        let dos = try library.add(WordContent(term: "dos", meaning: "two")).word
        let tres = try library.add(WordContent(term: "tres", meaning: "three")).word
        let cuatro = try library.add(WordContent(term: "cuatro", meaning: "four")).word
        let base = fixture.clock.now()
        fixture.clock.advance(by: 60_000)
        // Edited here after the backup's copy was made.
        let dosLocal = try library.edit(dos.id, WordEdit(meaning: "two (local)"))
        try library.markAllUploaded()

        let unoBackup = uno.edited(at: base.adding(30_000)) {
            $0.meaning = "one (backup)"
            $0.examples = ["Uno, dos, tres."]
            $0.tags = ["num", "a1"]
        }
        let dosBackup = dos.edited(at: base.adding(10_000)) { $0.meaning = "two (backup)" }
        let cuatroBackup = cuatro.edited(at: base.adding(20_000)) { $0.deletedAt = base.adding(20_000) }
        let cinco = Word(
            id: WordID.random(), term: "cinco", meaning: "five", reading: "SEEN-ko",
            examples: ["Cinco dedos."], notes: "from the backup", tags: ["num"],
            createdAt: base.adding(-5_000), updatedAt: base.adding(-1_234))
        let backup = [unoBackup, dosBackup, tres, cuatroBackup, cinco]
        try writeBackup(backup, to: fixture.file("backup.json"))
        return Scenario(
            newerInBackup: unoBackup, newerLocally: dosLocal, identical: tres,
            trashedInBackup: cuatroBackup, missingLocally: cinco, backup: backup)
    }

    @Test("the report counts words added, updated, unchanged and trashed")
    func reportCounts() throws {
        try withTemporaryLibrary { fixture in
            _ = try makeScenario(fixture)
            let report = try fixture.library.restoreBackup(from: fixture.file("backup.json"))
            #expect(report.added == 1)
            #expect(report.updated == 1)
            #expect(report.unchanged == 2)
            #expect(report.trashed == 1)
        }
    }

    /// It said "1 unchanged" and nothing of the values it left out (round 23A #3).
    @Test("a backup edited by hand, its times left alone, is told: the library's values are kept")
    func handEditedAtTheSameTimeIsTold() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let casa = try library.add(WordContent(term: "casa", meaning: "house")).word
            _ = try library.add(WordContent(term: "perro", meaning: "dog"))
            let path = fixture.file("backup.json")
            try library.exportBackup(to: path)
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("\"house\""))
            try Data(text.replacingOccurrences(of: "\"house\"", with: "\"home\"").utf8).write(to: URL(fileURLWithPath: path))

            let report = try library.restoreBackup(from: path)
            #expect(report.differingAtSameTime == 1 && report.unchanged == 1 && report.updated == 0, "\(report)")
            #expect(report.differingAtSameTimeNote?.contains("“casa”") == true, "\(report.differingAtSameTimeNote ?? "")")
            #expect(try library.word(casa.id)?.meaning == "house")
        }
    }

    @Test("a backup word newer than the library's copy replaces it and is pending")
    func newerBackupWordWins() throws {
        try withTemporaryLibrary { fixture in
            let scenario = try makeScenario(fixture)
            let library = fixture.library
            let before = try library.required(scenario.newerInBackup.id)
            _ = try library.restoreBackup(from: fixture.file("backup.json"))

            let stored = try library.required(scenario.newerInBackup.id)
            #expect(stored.word == scenario.newerInBackup)
            #expect(stored.pending)
            #expect(stored.localChange > before.localChange)
            // The changed fields carry the backup's time; the others keep theirs.
            let time = scenario.newerInBackup.updatedAt
            #expect(stored.times.meaning == time)
            #expect(stored.times.examples == time)
            #expect(stored.times.tags == time)
            #expect(stored.times.term == before.times.term)
            #expect(stored.times.notes == before.times.notes)
            #expect(stored.times.newest == stored.word.updatedAt)
        }
    }

    @Test("a library word newer than the backup's copy stays as it is")
    func newerLocalWordStays() throws {
        try withTemporaryLibrary { fixture in
            let scenario = try makeScenario(fixture)
            let library = fixture.library
            let before = try library.required(scenario.newerLocally.id)
            _ = try library.restoreBackup(from: fixture.file("backup.json"))
            #expect(try library.required(scenario.newerLocally.id) == before)
            #expect(try library.word(scenario.newerLocally.id)?.meaning == "two (local)")
            #expect(try library.required(scenario.identical.id).pending == false)
        }
    }

    @Test("a word missing from the library is added with its own times and is pending")
    func missingWordIsAdded() throws {
        try withTemporaryLibrary { fixture in
            let scenario = try makeScenario(fixture)
            let library = fixture.library
            _ = try library.restoreBackup(from: fixture.file("backup.json"))
            let stored = try library.required(scenario.missingLocally.id)
            #expect(stored.word == scenario.missingLocally)
            #expect(stored.pending)
            #expect(try library.search("cinco").map(\.id) == [scenario.missingLocally.id])
            #expect(try library.list(ListQuery(tag: "NUM")).map(\.id).contains(scenario.missingLocally.id))
        }
    }

    @Test("a word the backup has in the Trash, deleted later than the local edit, goes to the Trash")
    func newerDeletionTrashes() throws {
        try withTemporaryLibrary { fixture in
            let scenario = try makeScenario(fixture)
            let library = fixture.library
            _ = try library.restoreBackup(from: fixture.file("backup.json"))
            let stored = try library.required(scenario.trashedInBackup.id)
            #expect(stored.word.deletedAt == scenario.trashedInBackup.deletedAt)
            #expect(stored.pending)
            #expect(try library.trash().map(\.id) == [scenario.trashedInBackup.id])
            #expect(try library.search("cuatro").isEmpty)
        }
    }

    @Test("restoring a library's own backup changes nothing")
    func ownBackupChangesNothing() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(WordContent(term: "a", tags: ["x"])).word
            try library.add(WordContent(term: "b", examples: ["b b"]))
            try library.delete([a.id])
            try library.markAllUploaded()
            try library.exportBackup(to: fixture.file("own.json"))
            let words = try library.allStored()
            fixture.clock.advance(by: 1_000)

            let report = try library.restoreBackup(from: fixture.file("own.json"))
            #expect(report.unchanged == 2)
            #expect(report.added + report.updated + report.trashed == 0)
            #expect(try library.allStored() == words)
        }
    }

    @Test("a dry run reports what a merge would do and changes nothing")
    func dryRunChangesNothing() throws {
        try withTemporaryLibrary { fixture in
            _ = try makeScenario(fixture)
            let library = fixture.library
            let before = try library.snapshot()
            let canUndoBefore = try library.canUndoRestore()

            let preview = try library.restoreBackup(from: fixture.file("backup.json"), dryRun: true)
            #expect(try library.snapshot() == before)
            #expect(try library.canUndoRestore() == canUndoBefore)

            let real = try library.restoreBackup(from: fixture.file("backup.json"))
            #expect(preview == real)
            #expect(try library.snapshot() != before)
        }
    }

    @Test("an exported backup restored into an empty library reproduces it word for word")
    func restoreIntoEmptyLibrary() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let a = try library.add(
                WordContent(
                    term: "hola", meaning: "hello", reading: "O-la", examples: ["¡Hola!"],
                    notes: "greeting\nsecond line", tags: ["Basics", "es"])
            ).word
            fixture.clock.advance(by: 5)
            let b = try library.add(WordContent(term: "adiós \"quoted\" \\ back\tslash 👋")).word
            fixture.clock.advance(by: 5)
            try library.delete([b.id])
            try library.exportBackup(to: fixture.file("b.json"))

            let (other, _) = try fixture.sibling("other.sqlite")
            let report = try other.restoreBackup(from: fixture.file("b.json"))
            #expect(report.added == 2)
            #expect(try other.list() == library.list())
            #expect(try other.trash() == library.trash())
            #expect(try other.word(a.id) == library.word(a.id))
            #expect(try other.search("hello").map(\.id) == [a.id])
        }
    }
}
