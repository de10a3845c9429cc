import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// Sync merges a word's tags one tag at a time, so two devices that each put 30 tags on
/// one word give it 60, past the 50 a word is given. Such a word could then not be
/// edited at all (not even to take a tag off), and a backup or a CSV export of the
/// library was refused whole when restored or imported: a backup that said it was made,
/// and could not be used (found by the exploratory helper, round 4).
@Suite("A word merged past the tag limit can still be edited, backed up, restored and exported")
struct AWordMergedPastTheTagLimitStaysUsableTests {
    /// A word that a laptop and a phone each gave 30 tags of their own, offline, then
    /// synced: both hold it with 60.
    private func mergedWord(_ fixture: SyncFixture) throws -> (laptop: TestDevice, phone: TestDevice, id: WordID) {
        let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
        let id = try laptop.add("palabra", meaning: "m0")
        try fixture.syncRounds([laptop, phone])
        fixture.advanceClocks(by: 1_000)
        try laptop.library.edit(id, WordEdit(tags: (1...30).map { "l\($0)" }))
        try phone.library.edit(id, WordEdit(tags: (1...30).map { "p\($0)" }))
        try fixture.syncRounds([laptop, phone])
        return (laptop, phone, id)
    }

    @Test("both devices hold the 60 tags, and an edit of another field or one that takes tags off is saved")
    func edits() throws {
        try withSyncFixture { fixture in
            let (laptop, phone, id) = try mergedWord(fixture)
            #expect(try laptop.word(id).tags.count == 60)
            #expect(try phone.word(id).tags.count == 60)

            try laptop.library.edit(id, WordEdit(meaning: "otro"))
            #expect(try laptop.word(id).meaning == "otro")
            #expect(try laptop.word(id).tags.count == 60)
            var fewer = try laptop.word(id).tags
            fewer.removeLast()
            try laptop.library.edit(id, WordEdit(tags: fewer))
            #expect(try laptop.word(id).tags == fewer)

            // Putting one more on is refused, and says why.
            do {
                try laptop.library.edit(id, WordEdit(tags: fewer + ["otra", "más"]))
                Issue.record("an edit put a tag on a word past the limit")
            } catch let LibraryError.invalidWord(error) {
                #expect(error.field == "tags")
                #expect(error.message.contains("holds 59 tags") && error.message.contains("(got 61)"), "\(error.message)")
            }
            #expect(try laptop.word(id).tags == fewer)

            try fixture.syncRounds([laptop, phone])
            #expect(try phone.word(id) == laptop.word(id))
        }
    }

    @Test("a bulk action takes a tag off it, and one that puts a tag on many leaves it out, names it, and tags the others")
    func bulkActions() throws {
        try withSyncFixture { fixture in
            let (laptop, _, id) = try mergedWord(fixture)
            #expect(try laptop.library.removeTag("l1", from: .words([id])).changed == 1)
            #expect(try laptop.word(id).tags.count == 59)
            // A tag it already has changes nothing and is no reason to leave it out.
            let had = try laptop.library.addTag("p1", to: .words([id]))
            #expect(had.changed == 0 && had.unchanged == 1 && had.leftOut == 0)

            // Among others, one of them given the 50 tags a word can be given.
            let others = try (1...3).map { try laptop.add("otra\($0)", meaning: "m") }
            let full = try laptop.add("llena", meaning: "m", tags: (1...50).map { "t\($0)" })
            let result = try laptop.library.addTag("nueva", to: .words([others[0], id, full, others[1], others[2]]))
            #expect(result.changed == 3 && result.unchanged == 0)
            #expect(result.leftOut == 2 && result.leftOutTerms == ["palabra", "llena"])
            for other in others { #expect(try laptop.word(other).tags == ["nueva"]) }
            #expect(try laptop.word(id).tags.count == 59 && !laptop.word(id).tags.contains("nueva"))
            #expect(try laptop.word(full).tags.count == 50)

            // The undo takes the tag off the words it was put on, and leaves the others be.
            #expect(try laptop.library.undoBulkAction().changed == 3)
            for other in others { #expect(try laptop.word(other).tags.isEmpty) }
            #expect(try laptop.word(id).tags.count == 59 && laptop.word(full).tags.count == 50)

            // Only so many are named; all are counted.
            let many = try (1...7).map { try laptop.add("llena\($0)", meaning: "m", tags: (1...50).map { "t\($0)" }) }
            let crowded = try laptop.library.addTag("nueva", to: .words(many))
            #expect(crowded.changed == 0 && crowded.leftOut == 7 && crowded.leftOutTerms.count == BulkResult.leftOutNamed)
        }
    }

    @Test("a backup of it restores, merged or replacing, and a CSV export of it imports")
    func backupAndExport() throws {
        try withSyncFixture { fixture in
            let (laptop, _, id) = try mergedWord(fixture)
            let tags = try laptop.word(id).tags
            let backup = fixture.file("backup.json")
            try laptop.library.exportBackup(to: backup)
            for replace in [false, true] {
                let fresh = try fixture.device("fresh-\(replace)")
                let report = try fresh.library.restoreBackup(from: backup, replace: replace)
                #expect(report.added == 1)
                #expect(try fresh.word(id).tags == tags)
            }
            let sheet = fixture.file("words.csv")
            try laptop.library.exportSheet(to: sheet, format: .csv)
            let other = try fixture.device("other")
            #expect(try other.library.importSheet(from: sheet).added == 1)
            #expect(try other.library.find(SearchRequest(query: "palabra")).words.first?.tags == tags)
        }
    }
}
