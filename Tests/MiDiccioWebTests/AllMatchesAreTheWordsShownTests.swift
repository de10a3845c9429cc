import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioKit
@testable import MiDiccioWeb

/// "Select all N matches" carried only the count the person saw: a match renamed out of the
/// search and another word added into it left the count the same, and Move to Trash took the
/// word nobody saw (found by the exploratory helper, round 8). The page now takes a key of
/// the words it chose, and the action refuses other words, even as many.
@Suite("All matches are the words shown, not only as many")
final class AllMatchesAreTheWordsShownTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    private func add(_ term: String) throws -> String {
        let answer = try web.send("POST", "/api/words", json: "{\"term\": \"\(term)\"}")
        return try #require((answer.json["word"] as? [String: Any])?["id"] as? String)
    }

    @Test("the same words give the same key; one renamed out and another added give another, and the action changes nothing")
    func otherWordsAsManyAreRefused() throws {
        let ids = try (1...3).map { try add("gato\($0)") }
        let target = #"{"select": "matches", "q": "gato"}"#
        let chosen = try web.send("POST", "/api/bulk/selection", json: target)
        #expect(chosen.json["count"] as? Int == 3)
        let key = try #require(chosen.json["key"] as? String)
        #expect(key.count == 16)
        #expect(try web.send("POST", "/api/bulk/selection", json: target).json["key"] as? String == key, "the same words, the same key")

        // Elsewhere: one match is renamed out of the search, and another word comes in.
        try web.library().edit(WordID(ids[0])!, WordEdit(term: "leon"))
        _ = try add("gato99secret")
        let action = #"{"select": "matches", "q": "gato", "expect": 3, "expectKey": "\#(key)"}"#
        let refused = try web.send("POST", "/api/bulk/trash", json: action)
        #expect(refused.status == 409, "\(refused.json)")
        #expect((refused.json["error"] as? String ?? "").contains("not the words as shown"), "\(refused.json)")
        #expect(try web.library().counts().trash == 0, "nothing moved to the Trash")

        // Chosen again, as the list now shows them, the action goes ahead.
        let again = try #require(try web.send("POST", "/api/bulk/selection", json: target).json["key"] as? String)
        #expect(again != key)
        let done = try web.send(
            "POST", "/api/bulk/trash", json: #"{"select": "matches", "q": "gato", "expect": 3, "expectKey": "\#(again)"}"#)
        #expect(done.status == 200, "\(done.json)")
        #expect(try web.library().counts().trash == 3)
    }

    @Test("choosing all from a list read before words changed elsewhere is refused; from the list read again it is taken")
    func choiceFromAListReadBeforeAChangeIsRefused() throws {
        let ids = try (1...3).map { try add("perro\($0)") }
        for id in ids { #expect(try web.send("DELETE", "/api/words/\(id)").status == 200) }
        let trash = try web.send("GET", "/api/trash?limit=2").json
        let trashMark = try #require(trash["mark"] as? String)
        let counted = try web.send("GET", "/api/search/count?q=perro").json
        let listed = try web.send("GET", "/api/words?limit=1").json
        #expect(counted["mark"] as? String == trashMark && listed["mark"] as? String == trashMark, "one state of the words, one mark")

        // Elsewhere, after the pages were read: one word out of the Trash, another in (as many).
        _ = try web.library().restore([WordID(ids[0])!])
        let unseen = try add("precioso")
        #expect(try web.send("DELETE", "/api/words/\(unseen)").status == 200)

        for target in [#"{"select": "trash", "q": ""}"#, #"{"select": "matches", "q": "perro"}"#] {
            let refused = try web.send("POST", "/api/bulk/selection", json: String(target.dropLast()) + #", "shown": "\#(trashMark)"}"#)
            #expect(refused.status == 409, "\(target): \(refused.json)")
            #expect((refused.json["error"] as? String ?? "").contains("since this list was shown"), "\(refused.json)")
        }
        // Read again, the Trash's mark is taken, and its key names the words there now.
        let again = try #require(try web.send("GET", "/api/trash?limit=2").json["mark"] as? String)
        #expect(again != trashMark)
        let chosen = try web.send("POST", "/api/bulk/selection", json: #"{"select": "trash", "q": "", "shown": "\#(again)"}"#)
        #expect(chosen.status == 200 && chosen.json["count"] as? Int == 3, "\(chosen.json)")
        #expect(try web.library().counts().trash == 3, "nothing was purged")
    }
}
