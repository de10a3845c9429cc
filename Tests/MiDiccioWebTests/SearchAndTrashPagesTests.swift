import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// The server answers searches and the Trash a page at a time, with true totals (issue
/// 13: results stopped at 200, and Settings drew a 100,000-word Trash at once).
@Suite("Search and Trash pages of the web app")
final class SearchAndTrashPagesTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    /// `count` words whose meaning holds "mean", every tenth tagged "verbs".
    func fill(_ count: Int) throws {
        let library = try web.library()
        for index in 0..<count {
            try library.add(WordContent(term: "w\(index)", meaning: "mean \(index)", tags: index % 10 == 0 ? ["verbs"] : []))
        }
    }

    @Test("a search says how many match in all, pages past the first, and hasMore is true while more follow")
    func searchPages() throws {
        try fill(293)
        let first = try web.send("GET", "/api/search?q=mean&limit=200")
        #expect(first.json["total"] as? Int == 293)
        #expect(first.json["hasMore"] as? Bool == true)
        #expect(first.words.count == 200)
        let second = try web.send("GET", "/api/search?q=mean&limit=200&offset=200")
        #expect(second.words.count == 93)
        #expect(second.json["hasMore"] as? Bool == false)
        let tagged = try web.send("GET", "/api/search?q=mean&tag=Verbs&sort=term&limit=5")
        #expect(tagged.json["total"] as? Int == 30)
        #expect(tagged.words.first?["term"] as? String == "w0")
        let bad = try web.send("GET", "/api/search?q=mean&sort=sideways")
        #expect(bad.status == 400)
        #expect(bad.json["field"] as? String == "sort")
    }

    @Test("while someone types the page comes without its total, and the count comes on its own")
    func pageThenCount() throws {
        try fill(293)
        let page = try web.send("GET", "/api/search?q=mean&limit=50&count=0")
        #expect(page.status == 200)
        #expect(page.words.count == 50)
        #expect(page.json["total"] is NSNull)
        #expect(page.json["hasMore"] as? Bool == true)
        let last = try web.send("GET", "/api/search?q=mean&limit=50&offset=250&count=0")
        #expect(last.words.count == 43)
        #expect(last.json["hasMore"] as? Bool == false)
        #expect(try web.send("GET", "/api/search/count?q=mean").json["total"] as? Int == 293)
        #expect(try web.send("GET", "/api/search/count?q=mean&tag=verbs").json["total"] as? Int == 30)
        #expect(try web.send("GET", "/api/search/count?q=zzz").json["total"] as? Int == 0)
        let bad = try web.send("GET", "/api/search?q=mean&count=maybe")
        #expect(bad.status == 400)
        #expect(bad.json["field"] as? String == "count")
    }

    @Test("the list with a tag has a total, and a page by key follows the last word shown")
    func listByKey() throws {
        try fill(120)
        let tagged = try web.send("GET", "/api/words?tag=verbs&limit=5")
        #expect(tagged.json["total"] as? Int == 12)
        let first = try web.send("GET", "/api/words?limit=50")
        let last = try #require(first.words.last?["id"] as? String)
        let next = try web.send("GET", "/api/words?limit=50&after=\(last)")
        let byOffset = try web.send("GET", "/api/words?limit=50&offset=50")
        #expect(next.words.map { $0["id"] as? String } == byOffset.words.map { $0["id"] as? String })
        #expect(next.words.count == 50)
        #expect(try web.send("GET", "/api/words?after=nonsense").status == 400)
    }

    @Test(
        "the next page follows the last word as it was shown, whatever became of it since (renamed, edited, moved to the Trash elsewhere)",
        arguments: ["term", "updated", "created"])
    func nextFollowsThePlaceShown(sort: String) throws {
        try fill(120)
        let library = try web.library()
        let first = try web.send("GET", "/api/words?sort=\(sort)&limit=50")
        let byOffset = try web.send("GET", "/api/words?sort=\(sort)&limit=50&offset=50")
        let next = try #require(first.json["next"] as? String)
        let lastText = try #require(first.words.last?["id"] as? String)
        let lastID = try #require(WordID(lastText))
        // Elsewhere (the command line, a sync) the last word shown changes: renamed to the
        // end of the A to Z, edited to the top of the newest changes, then moved to the Trash.
        _ = try library.edit(lastID, WordEdit(term: "zzz renamed", notes: "edited elsewhere"))
        let second = try web.send("GET", "/api/words?sort=\(sort)&limit=50&after=\(next)")
        #expect(second.status == 200)
        #expect(second.words.map { $0["id"] as? String } == byOffset.words.map { $0["id"] as? String })
        try library.delete([lastID])
        let third = try web.send("GET", "/api/words?sort=\(sort)&limit=50&after=\(next)")
        #expect(third.words.map { $0["id"] as? String } == byOffset.words.map { $0["id"] as? String })
        #expect(try web.send("GET", "/api/words?sort=\(sort)&after=1.x").status == 400)
    }

    @Test("the Trash comes a page at a time, searchable, and many entries are restored or purged at once")
    func trashPages() throws {
        try fill(120)
        let library = try web.library()
        let ids = try library.list().map(\.id)
        try library.delete(ids)
        let page = try web.send("GET", "/api/trash?limit=50")
        #expect(page.words.count == 50)
        #expect(page.json["total"] as? Int == 120)
        #expect(page.json["hasMore"] as? Bool == true)
        let found = try web.send("GET", "/api/trash?q=W11")
        #expect(
            Set(found.words.compactMap { $0["term"] as? String }) == [
                "w11", "w110", "w111", "w112", "w113", "w114", "w115", "w116", "w117", "w118", "w119",
            ])
        let some = page.words.prefix(3).compactMap { $0["id"] as? String }
        let restored = try web.send("POST", "/api/trash/restore", json: #"{"ids": ["\#(some.joined(separator: #"",""#))"]}"#)
        #expect(restored.json["restored"] as? Int == 3)
        #expect(try library.counts() == (words: 3, trash: 117))
        let purge = page.words.dropFirst(3).prefix(2).compactMap { $0["id"] as? String }
        let purged = try web.send("POST", "/api/trash/purge", json: #"{"ids": ["\#(purge.joined(separator: #"",""#))"]}"#)
        #expect(purged.json["purged"] as? Int == 2)
        #expect(try library.counts().trash == 115)
        // All or nothing: one word not in the Trash and none is restored.
        let mixed = try web.send("POST", "/api/trash/restore", json: #"{"ids": ["\#(some[0])", "\#(ids[50].rawValue)"]}"#)
        #expect(mixed.status == 409)
        #expect(try library.counts().trash == 115)
    }
}
