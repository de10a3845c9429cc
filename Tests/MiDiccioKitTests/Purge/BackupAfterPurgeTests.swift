import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a backup restore never brings a purged word back unless `--replace` is used, in
/// which case the restored word gets a new id (the purged id stays gone everywhere).
@Suite("A backup restore never brings a purged word back under its old id")
struct BackupAfterPurgeTests {
    @Test("a merge restore leaves a purged word out and counts it as skipped")
    func mergeSkipsPurgedWords() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let purged = try library.add(WordContent(term: "murciélago", meaning: "bat")).word
            let kept = try library.add(WordContent(term: "gato", meaning: "cat")).word
            let backup = temporary.file("backup.json")
            try library.exportBackup(to: backup)
            try library.delete([purged.id])
            try library.purge([purged.id])
            try library.delete([kept.id])
            temporary.clock.advance(by: 1_000)

            let report = try library.restoreBackup(from: backup)
            #expect(report.skippedPurged == 1)
            #expect(report.skippedPurgedTerms == ["murciélago"], "named, for the preview")
            #expect(report.added == 0)
            #expect(try library.word(purged.id) == nil)
            #expect(try library.search("murciélago").isEmpty)
            #expect(try library.isPurged(purged.id))
            #expect(try library.counts() == (words: 0, trash: 1), "the merge left the newer Trash entry of gato as it is")
        }
    }

    @Test("a dry run reports the purged word as skipped and changes nothing")
    func dryRunReportsSkipped() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let purged = try library.add(WordContent(term: "murciélago")).word
            let backup = temporary.file("backup.json")
            try library.exportBackup(to: backup)
            try library.delete([purged.id])
            try library.purge([purged.id])
            let before = try library.snapshot()
            #expect(try library.restoreBackup(from: backup, dryRun: true).skippedPurged == 1)
            #expect(try library.snapshot() == before)
        }
    }

    @Test("a replace restore brings a purged word back as a new word with a new id, not in the Trash")
    func replaceGivesANewID() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let purged = try library.add(WordContent(term: "murciélago", meaning: "bat", notes: "vuela de noche", tags: ["animales"])).word
            let kept = try library.add(WordContent(term: "gato", meaning: "cat")).word
            let backup = temporary.file("backup.json")
            try library.exportBackup(to: backup)
            try library.delete([purged.id])
            try library.purge([purged.id])
            temporary.clock.advance(by: 1_000)

            let report = try library.restoreBackup(from: backup, replace: true)
            #expect(report.skippedPurged == 0)
            #expect(report.added == 1)
            #expect(report.trashed == 0, "no word the backup holds goes to the Trash")
            #expect(try library.word(purged.id) == nil, "the purged id stays gone")
            #expect(try library.isPurged(purged.id))
            let back = try #require(try library.search("murciélago").first, "the word is back and not in the Trash")
            #expect(back.id != purged.id)
            #expect(back.id != kept.id)
            #expect(back.content == purged.content)
            #expect(Set(try library.list().map(\.term)) == ["murciélago", "gato"])
            #expect(try library.trash(includeHidden: true).isEmpty)
        }
    }

    @Test("a word brought back by a replace restore reaches other devices under its new id; the old id stays purged there")
    func replacedWordSyncsUnderNewID() throws {
        try withSyncFixture { fixture in
            let (a, b, id, backup) = try purgedAfterBackup(fixture, "murciélago")
            #expect(try !b.has(id))

            fixture.advanceClocks(by: 1_000)
            let report = try a.library.restoreBackup(from: backup, replace: true)
            #expect(report.added == 1)
            try fixture.syncRounds([a, b])
            for device in [a, b] {
                #expect(try !device.has(id), "\(device.name)")
                #expect(try device.library.list().map(\.term) == ["murciélago"], "\(device.name): back, not in the Trash")
            }
            #expect(try a.everyWord() == b.everyWord())
        }
    }

    @Test("one backup restored with replace on two devices, or twice on one, brings a purged word back once, not a copy each time")
    func replaceTwiceMakesOneWord() throws {
        try withSyncFixture { fixture in
            let (a, b, _, backup) = try purgedAfterBackup(fixture, "gato", alsoKept: "perro")

            fixture.advanceClocks(by: 1_000)
            _ = try a.library.restoreBackup(from: backup, replace: true)
            _ = try b.library.restoreBackup(from: backup, replace: true)
            try fixture.syncRounds([a, b])
            fixture.advanceClocks(by: 1_000)
            let again = try a.library.restoreBackup(from: backup, replace: true)
            #expect(again.added == 0 && again.trashed == 0, "the word already back is the one replaced")
            try fixture.syncRounds([a, b])
            for device in [a, b] {
                #expect(try device.library.list().map(\.term).sorted() == ["gato", "perro"], "\(device.name): one gato")
                #expect(try device.library.counts().trash == 0, "\(device.name): no copies in the Trash")
            }
            #expect(try a.everyWord() == b.everyWord())
        }
    }

    @Test("the id a purged word comes back under is the same everywhere, differs from the old one, and is a version 4 UUID")
    func restoredIDIsDerived() {
        let old = WordID("3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b")!
        let new = old.restoredAfterPurge
        #expect(new == old.restoredAfterPurge)
        #expect(new != old && new.restoredAfterPurge != new)
        #expect(WordID(new.rawValue) == new)
        let digits = Array(new.rawValue.utf8)
        #expect(digits[14] == UInt8(ascii: "4") && [UInt8]("89ab".utf8).contains(digits[19]))
    }

    @Test("a merge restore on a device that learned of the purge from another device skips the word too")
    func mergeSkipsWordsPurgedElsewhere() throws {
        try withSyncFixture { fixture in
            let (a, b, id, backup) = try purgedAfterBackup(fixture, "murciélago", backupOfSecond: true)

            fixture.advanceClocks(by: 1_000)
            #expect(try b.library.restoreBackup(from: backup).skippedPurged == 1)
            try fixture.syncRounds([a, b])
            for device in [a, b] { #expect(try !device.has(id), "\(device.name)") }
        }
    }

    /// Two devices that synced `term` (and `alsoKept`), a backup taken then (of the first
    /// device, or of the second), and `term` purged on the first and synced: the devices,
    /// the purged word's id and the backup's path.
    private func purgedAfterBackup(
        _ fixture: SyncFixture, _ term: String, alsoKept: String? = nil, backupOfSecond: Bool = false
    ) throws -> (TestDevice, TestDevice, WordID, String) {
        let a = try fixture.device("a"), b = try fixture.device("b")
        let id = try a.add(term, meaning: "meaning of \(term)")
        if let alsoKept { _ = try a.add(alsoKept, meaning: "meaning of \(alsoKept)") }
        try fixture.syncRounds([a, b])
        let backup = fixture.file("backup.json")
        try (backupOfSecond ? b : a).library.exportBackup(to: backup)
        try a.library.delete([id])
        try a.library.purge([id])
        try fixture.syncRounds([a, b])
        return (a, b, id, backup)
    }
}
