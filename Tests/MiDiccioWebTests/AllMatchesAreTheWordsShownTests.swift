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
        #expect((refused.json["error"] as? String ?? "").contains("other words than those shown"), "\(refused.json)")
        #expect(try web.library().counts().trash == 0, "nothing moved to the Trash")

        // Chosen again, as the list now shows them, the action goes ahead.
        let again = try #require(try web.send("POST", "/api/bulk/selection", json: target).json["key"] as? String)
        #expect(again != key)
        let done = try web.send(
            "POST", "/api/bulk/trash", json: #"{"select": "matches", "q": "gato", "expect": 3, "expectKey": "\#(again)"}"#)
        #expect(done.status == 200, "\(done.json)")
        #expect(try web.library().counts().trash == 3)
    }
}
