import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// The tag list reads counts the library keeps (issue 13: counting 100,000 words took
/// 440 ms on every load). Whatever changes the words, the kept counts equal a recount.
@Suite("Tag counts stay true through every change to the words")
struct TagCountsStayTrueTests {
    /// The tags and counts as counted from the words themselves.
    static func recount(_ library: WordLibrary) throws -> [TagCount] {
        try library.database.prepare(
            """
            SELECT min(t.tag), count(*) FROM word_tags t JOIN words w ON w.seq = t.word_seq
            WHERE w.deleted_at IS NULL GROUP BY t.tag_key ORDER BY count(*) DESC, t.tag_key
            """
        ).rows { TagCount(tag: $0.text(0), count: Int($0.int64(1))) }
    }

    static func expectTrue(_ library: WordLibrary, _ step: String) throws {
        let kept = try library.tags()
        let counted = try recount(library)
        #expect(kept.map(\.count) == counted.map(\.count), "\(step)")
        #expect(kept.map { TagSet.key($0.tag) } == counted.map { TagSet.key($0.tag) }, "\(step)")
    }

    @Test("add, edit, delete, restore, purge, import, undo import, backup restore and its undo")
    func everyChange() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let casa = try library.add(WordContent(term: "casa", meaning: "house", tags: ["nouns", "home"])).word
            let ir = try library.add(WordContent(term: "ir", meaning: "to go", tags: ["verbs", "Nouns"])).word
            try Self.expectTrue(library, "add")
            #expect(try library.tagCount("NOUNS") == 2)
            try library.edit(ir.id, WordEdit(tags: ["verbs", "irregular"]))
            try Self.expectTrue(library, "edit")
            try library.delete([casa.id])
            try Self.expectTrue(library, "delete")
            #expect(try library.tagCount("nouns") == 0)
            #expect(try library.tags().allSatisfy { $0.count > 0 })
            try library.restore([casa.id])
            try Self.expectTrue(library, "restore")
            try library.delete([casa.id])
            _ = try library.purge([casa.id])
            try Self.expectTrue(library, "purge of a word in the Trash")

            let backup = temporary.file("backup.json")
            _ = try library.exportBackup(to: backup)
            // Changed after the backup, so its restore has something to undo.
            try library.edit(ir.id, WordEdit(tags: ["verbs", "after-the-backup"]))
            let sheet = temporary.file("words.tsv")
            let rows = (0..<3000).map { "w\($0)\tmeaning\t\($0 % 3 == 0 ? "verbs" : "bulk")" }
            try Data(("term\tmeaning\ttags\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: sheet))
            _ = try library.importWords(from: sheet)
            try Self.expectTrue(library, "import")
            #expect(try library.tagCount("bulk") == 2000)
            _ = try library.undoImport()
            try Self.expectTrue(library, "undo import")
            _ = try library.restoreBackup(from: backup, replace: true)
            try Self.expectTrue(library, "restore a backup, replacing")
            _ = try library.undoRestore()
            try Self.expectTrue(library, "undo the restore")
            _ = try library.emptyTrash()
            try Self.expectTrue(library, "empty the Trash")
        }
    }
}
