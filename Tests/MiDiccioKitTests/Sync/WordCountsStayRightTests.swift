import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// The word counts a steady sync reads (the mass-delete guard, the device record) are
/// kept up to date with every change, as the digest is, instead of counted each time
/// (issue 12, "Steady syncs in constant time"); they always equal what a count finds.
@Suite("The word counts stay right without counting")
struct WordCountsStayRightTests {
    /// What `count(*)` finds, outside and inside the Trash.
    static func counted(_ library: WordLibrary) throws -> (Int, Int) {
        let live = try library.database.integer("SELECT count(*) FROM words WHERE deleted_at IS NULL") ?? -1
        let trash = try library.database.integer("SELECT count(*) FROM words WHERE deleted_at IS NOT NULL") ?? -1
        return (Int(live), Int(trash))
    }

    static func check(_ library: WordLibrary, _ step: String) throws {
        let kept = try library.counts()
        let found = try counted(library)
        #expect(kept.words == found.0 && kept.trash == found.1, "\(step): kept \(kept), counted \(found)")
    }

    @Test("after adds, edits, deletes, restores, purges, an import, a backup restore and synced changes, the counts equal a count")
    func everyChange() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            var ids: [WordID] = []
            for index in 0..<12 { ids.append(try a.add("palabra \(index)", meaning: "word \(index)")) }
            try Self.check(a.library, "adds")
            _ = try a.library.edit(ids[0], WordEdit(meaning: "changed"))
            _ = try a.library.delete(Array(ids[1..<5]))
            try Self.check(a.library, "deletes")
            _ = try a.library.restore([ids[1]])
            _ = try a.library.purge([ids[2]])
            try Self.check(a.library, "restore and purge")
            let sheet = fixture.file("words.tsv")
            try Data("term\tmeaning\nuno\tone\ndos\ttwo\n".utf8).write(to: URL(fileURLWithPath: sheet))
            _ = try a.library.importSheet(from: sheet, format: .tsv)
            try Self.check(a.library, "import")
            let backup = fixture.file("backup.json")
            _ = try a.library.exportBackup(to: backup)
            _ = try a.library.delete([ids[6], ids[7]])
            _ = try a.library.restoreBackup(from: backup, replace: true)
            try Self.check(a.library, "backup restore")
            _ = try b.add("tres", meaning: "three")
            try fixture.syncRounds([a, b])
            try Self.check(a.library, "sync, a")
            try Self.check(b.library, "sync, b")
            _ = try b.library.delete([ids[8]])
            _ = try b.library.emptyTrash()
            try fixture.syncRounds([b, a])
            try Self.check(a.library, "a purge from b")
            try Self.check(b.library, "emptied Trash")
        }
    }

    @Test("counts saved by another program's change to the words (a digest that no longer matches) are counted again")
    func staleCountsAreCountedAgain() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            for index in 0..<5 { _ = try a.add("palabra \(index)", meaning: "word \(index)") }
            #expect(try a.library.counts() == (5, 0))
            // An older MiDiccio adds a word: it keeps the digest up to date but not the counts.
            _ = try a.add("seis", meaning: "six")
            try a.library.database.write {
                try a.library.database.run("UPDATE library_info SET value = 'ffff 5 0' WHERE key = 'words.counts'")
            }
            #expect(try a.library.counts() == (6, 0))
        }
    }
}
