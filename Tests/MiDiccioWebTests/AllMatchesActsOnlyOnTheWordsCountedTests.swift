import Foundation
import MiDiccioKit
import Testing

@testable import MiDiccioWeb

/// "Select all 27 matches", then Move to Trash, moved 29 words: two had been added from
/// another window and the command line since the page counted, and the server chose the
/// matches when the action ran. The page now sends the count it showed (`expect`), and
/// the action is refused, changing nothing, when the library holds another number.
@Suite("A bulk action on all matches acts only on the words the page counted")
final class AllMatchesActsOnlyOnTheWordsCountedTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("words added elsewhere since the count: Move to Trash and a tag are refused, nothing changes, and the new count is named")
    func addedElsewhere() throws {
        let library = try web.library()
        for index in 0..<27 { try library.add(WordContent(term: "seen\(index)", meaning: "m", tags: ["basic"])) }
        // After the page counted 27: another window and the command line add two.
        try library.add(WordContent(term: "unseen_a", meaning: "m", tags: ["basic"]))
        try library.add(WordContent(term: "unseen_b", meaning: "m", tags: ["basic"]))

        let trashed = try web.send("POST", "/api/bulk/trash", json: #"{"select": "matches", "q": "", "filterTag": "basic", "expect": 27}"#)
        #expect(trashed.status == 409)
        let message = trashed.json["error"] as? String ?? ""
        #expect(message.contains("29 match now, not 27"), "\(message)")
        #expect(message.contains("nothing was changed"))
        #expect(try library.counts().trash == 0)
        #expect(try library.lastBulkAction() == nil)

        let tagged = try web.send(
            "POST", "/api/bulk/tag", json: #"{"select": "matches", "q": "", "filterTag": "basic", "expect": 27, "tag": "repaso"}"#)
        #expect(tagged.status == 409)
        #expect(try library.tagCount("repaso") == 0)

        // Counted again, the same action goes through.
        let again = try web.send("POST", "/api/bulk/trash", json: #"{"select": "matches", "q": "", "filterTag": "basic", "expect": 29}"#)
        #expect(again.status == 200)
        #expect(again.json["changed"] as? Int == 29)
    }

    @Test("a search's matches: one word edited elsewhere so it no longer matches refuses the action")
    func editedAway() throws {
        let library = try web.library()
        let words = try (0..<4).map { try library.add(WordContent(term: "casa\($0)", meaning: "house")).word }
        try library.edit(words[0].id, WordEdit(meaning: "home"))
        let answer = try web.send("POST", "/api/bulk/tag", json: #"{"select": "matches", "q": "house", "expect": 4, "tag": "x"}"#)
        #expect(answer.status == 409)
        #expect((answer.json["error"] as? String ?? "").contains("3 match now, not 4"))
        #expect(try library.tagCount("x") == 0)
    }

    @Test(
        "the Trash's entries: one purged elsewhere refuses Restore and Delete permanently of all entries; scripts without a count act on what is there"
    )
    func trashEntries() throws {
        let library = try web.library()
        let words = try (0..<3).map { try library.add(WordContent(term: "t\($0)", meaning: "m")).word }
        try library.moveToTrash(.words(words.map(\.id)))
        // The Trash page counted 3; the command line purges one.
        try library.purge([words[0].id])

        let purged = try web.send("POST", "/api/bulk/purge", json: #"{"select": "trash", "q": "", "expect": 3}"#)
        #expect(purged.status == 409)
        #expect(try library.counts().trash == 2)
        let restored = try web.send("POST", "/api/bulk/restore", json: #"{"select": "trash", "q": "", "expect": 3}"#)
        #expect(restored.status == 409)
        #expect(try library.counts().trash == 2)

        let script = try web.send("POST", "/api/bulk/restore", json: #"{"select": "trash", "q": ""}"#)
        #expect(script.status == 200)
        #expect(script.json["changed"] as? Int == 2)
        #expect(try library.counts().trash == 0)

        #expect(try web.send("POST", "/api/bulk/trash", json: #"{"select": "matches", "q": "", "expect": -1}"#).status == 400)
    }
}
