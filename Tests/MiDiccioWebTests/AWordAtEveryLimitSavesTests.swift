import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// Any word the Kit accepts can be added and edited in the web app: the word routes'
/// request limit follows `WordLimits`, and a limit broken is reported next to its field.
@Suite("A word at every limit saves in the web app")
final class AWordAtEveryLimitSavesTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    /// `count` characters of `unit` (one character), as JSON text.
    static func text(_ unit: String, _ count: Int) -> String { "\"" + String(repeating: unit, count: count) + "\"" }

    /// A word with every field at its limit, each character written as `unit` in the JSON.
    static func body(unit: String, meaningLength: Int = WordLimits.textLength) -> String {
        let examples = (0..<WordLimits.exampleCount).map { _ in text(unit, WordLimits.textLength) }
        let tags = (0..<WordLimits.tagCount).map { index in
            "\"" + String(format: "%02d", index) + String(repeating: unit, count: WordLimits.tagLength - 2) + "\""
        }
        return "{\"term\": \(text(unit, WordLimits.termLength)), \"meaning\": \(text(unit, meaningLength)), "
            + "\"reading\": \(text(unit, WordLimits.textLength)), \"notes\": \(text(unit, WordLimits.textLength)), "
            + "\"examples\": [\(examples.joined(separator: ","))], \"tags\": [\(tags.joined(separator: ","))]}"
    }

    @Test("the word routes' request limit is computed from WordLimits, other routes keep 64 KB")
    func limitFollowsWordLimits() {
        #expect(WebApp.wordRequestLimit >= WordLimits.wordCharacters * 6)
        #expect(web.app.bodyLimit(method: "POST", path: "/api/words") == WebApp.wordRequestLimit)
        #expect(web.app.bodyLimit(method: "PUT", path: "/api/words/0123456789abcdef") == WebApp.wordEditRequestLimit)
        #expect(WebApp.wordEditRequestLimit >= 2 * WordLimits.wordCharacters * 6, "an edit carries the word as it was opened too")
        #expect(web.app.bodyLimit(method: "PUT", path: "/api/remote") == WebApp.requestLimit)
    }

    @Test("a word with every field at its limit, in four-byte characters, is added and edited whole")
    func fourByteCharactersAtTheLimits() throws {
        let body = Self.body(unit: "😀")
        #expect(body.utf8.count > 4 * 1_048_576)
        let added = try web.send("POST", "/api/words", json: body)
        #expect(added.status == 201, "\(added.json)")
        let id = try #require((added.json["word"] as? [String: Any])?["id"] as? String)
        let stored = try #require(try web.library().word(WordID(id)!))
        #expect(stored.meaning.count == WordLimits.textLength)
        #expect(stored.examples.count == WordLimits.exampleCount)
        #expect(stored.examples.allSatisfy { $0.count == WordLimits.textLength })
        #expect(stored.tags.count == WordLimits.tagCount)

        // As the page's editor sends it: the word as it opened (`base`) with the new one, both
        // full size (refused as too large, round 19B).
        let shorter = Self.body(unit: "😀", meaningLength: WordLimits.textLength - 1)
        let edit = "{\"base\": " + body + ", " + shorter.dropFirst()
        #expect(edit.utf8.count > WebApp.wordRequestLimit)
        let edited = try web.send("PUT", "/api/words/\(id)", json: edit)
        #expect(edited.status == 200, "\(edited.json)")
        #expect(try web.library().word(WordID(id)!)?.meaning.count == WordLimits.textLength - 1)
        let again = try web.send("PUT", "/api/words/\(id)", json: Self.body(unit: "ñ"))
        #expect(again.status == 200, "\(again.json)")
        #expect(try web.library().word(WordID(id)!)?.notes == String(repeating: "ñ", count: WordLimits.textLength))
    }

    @Test("a word at its limits written in the longest JSON escapes still fits the request limit")
    func escapedCharactersAtTheLimits() throws {
        let body = Self.body(unit: "\\u00e9")
        #expect(body.utf8.count > WordLimits.wordCharacters * 6 - 1024)
        #expect(body.utf8.count <= WebApp.wordRequestLimit)
        let added = try web.send("POST", "/api/words", json: body)
        #expect(added.status == 201, "\(added.json)")
    }

    @Test("one character over a limit in a full-size word is refused with the field, not for its size")
    func overALimitNamesTheField() throws {
        let answer = try web.send("POST", "/api/words", json: Self.body(unit: "😀", meaningLength: WordLimits.textLength + 1))
        #expect(answer.status == 422)
        #expect(answer.json["field"] as? String == "meaning")
        #expect(answer.json["error"] as? String == "is 20001 characters; the limit is 20000")
        #expect(try web.library().counts().words == 0)
    }

    @Test("a body over the word limit is refused with 413, other requests over 64 KB too")
    func overTheRequestLimit() throws {
        let huge = "{\"term\": \"x\", \"notes\": \"" + String(repeating: "n", count: WebApp.wordRequestLimit) + "\"}"
        let answer = try web.send("POST", "/api/words", json: huge)
        #expect(answer.status == 413)
        #expect(try web.library().counts().words == 0)
        let setting = "{\"kind\": \"folder\", \"folder\": \"/" + String(repeating: "f", count: WebApp.requestLimit) + "\"}"
        #expect(try web.send("PUT", "/api/remote", json: setting).status == 413)
    }
}
