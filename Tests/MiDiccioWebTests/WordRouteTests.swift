import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// The JSON API the page uses for words: what a person does in the list and the editor.
@Suite("Word routes of the web app")
final class WordRouteTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("a word added, edited, deleted and restored through the API is in the library file")
    func wordLifecycle() throws {
        let added = try web.send(
            "POST", "/api/words",
            json: #"{"term": "palabra", "meaning": "word", "examples": ["Una palabra.", ""], "tags": "spanish basics"}"#)
        #expect(added.status == 201)
        let word = try #require(added.json["word"] as? [String: Any])
        let id = try #require(word["id"] as? String)
        #expect(word["tags"] as? [String] == ["spanish", "basics"])
        #expect(word["examples"] as? [String] == ["Una palabra."])

        let edited = try web.send("PUT", "/api/words/\(id)", json: #"{"meaning": "a word"}"#)
        #expect(edited.status == 200)
        #expect(try web.library().word(WordID(id)!)?.meaning == "a word")

        #expect(try web.send("DELETE", "/api/words/\(id)").status == 200)
        #expect(try web.send("GET", "/api/words").words.isEmpty)
        #expect(try web.send("GET", "/api/trash").words.count == 1)

        #expect(try web.send("POST", "/api/words/\(id)/restore").status == 200)
        #expect(try web.send("GET", "/api/words").words.map { $0["term"] as? String } == ["palabra"])
    }

    @Test("a word that is HTML travels as JSON text and never enters the page")
    func scriptTermStaysText() throws {
        let term = "<script>alert(1)</script>"
        let added = try web.send(
            "POST", "/api/words", json: #"{"term": "<script>alert(1)</script>", "meaning": "<img src=x onerror=alert(2)>"}"#)
        #expect(added.status == 201)
        #expect(added.headers["content-type"]?.hasPrefix("application/json") == true)
        let listed = try web.send("GET", "/api/words").words
        #expect(listed.first?["term"] as? String == term)
        #expect(try web.send("GET", "/api/search?q=script").words.first?["term"] as? String == term)
        let page = try web.send("GET", "/").text
        // The word's text (the page's own markup has role="alert" regions).
        #expect(!page.contains("alert(1)") && !page.contains("alert(2)"))
        #expect(!page.contains("onerror"))
        #expect(!AppScriptProbe.usesInnerHTML(try web.send("GET", "/app.js").text))
    }

    @Test("a word breaking a limit is refused with the field to show the message next to")
    func validationNamesTheField() throws {
        let empty = try web.send("POST", "/api/words", json: #"{"term": "   "}"#)
        #expect(empty.status == 422)
        #expect(empty.json["field"] as? String == "term")
        let long = String(repeating: "a", count: WordLimits.termLength + 1)
        let tooLong = try web.send("POST", "/api/words", json: "{\"term\": \"\(long)\"}")
        #expect(tooLong.json["field"] as? String == "term")
        let example = try web.send("POST", "/api/words", json: #"{"term": "x", "examples": ["ok", "two\nlines"]}"#)
        #expect(example.status == 422)
        #expect(example.json["field"] as? String == "examples")
    }

    @Test("half a character (a lone surrogate, as half an emoji) is refused naming it, and a whole emoji saves")
    func halfACharacterIsNamed() throws {
        let half = try web.send("POST", "/api/words", json: #"{"term": "gato \ud83d"}"#)
        #expect(half.status == 400)
        #expect((half.json["error"] as? String)?.contains("half of a character") == true, "\(half.json)")
        let broken = try web.send("POST", "/api/words", json: #"{"term": "gato""#)
        #expect((broken.json["error"] as? String) == "the request body is not a JSON object", "\(broken.json)")
        #expect(try web.send("POST", "/api/words", json: #"{"term": "gato \ud83d\udc31"}"#).status == 201)
    }

    @Test("a duplicate term is added with the existing word reported, as in the CLI")
    func duplicateIsReported() throws {
        _ = try web.send("POST", "/api/words", json: #"{"term": "café"}"#)
        let second = try web.send("POST", "/api/words", json: #"{"term": "Cafe"}"#)
        #expect(second.status == 201)
        #expect((second.json["duplicates"] as? [Any])?.count == 1)
        #expect(try web.send("GET", "/api/duplicates?term=CAFE").words.count == 2)
    }

    @Test(
        "malformed request bodies are answered with 400, never a crash",
        arguments: ["{", "[]", "\"palabra\"", "", #"{"term": 5}"#, #"{"term": "x", "tags": [1, 2]}"#, "\u{0}\u{1}"])
    func malformedBodies(body: String) throws {
        let answer = try web.send("POST", "/api/words", json: body)
        #expect(answer.status == 400)
        #expect(answer.json["error"] is String)
        #expect(try web.send("GET", "/api/words").status == 200, "the server still answers")
    }

    @Test(
        "malformed addresses and parameters are answered with 4xx",
        arguments: [
            ("GET", "/api/nowhere", 404), ("GET", "/api/words/not-an-id", 404),
            ("GET", "/api/words/00000000-0000-4000-8000-000000000000", 404),
            ("PATCH", "/api/words", 405), ("DELETE", "/api/words", 405),
            ("GET", "/api/words?limit=-1", 400), ("GET", "/api/words?sort=random", 400),
            ("GET", "/api/words?offset=x", 400), ("GET", "/api/export?format=xls", 400),
            ("GET", "/api/words/%ZZ", 400), ("GET", "/../etc/passwd", 404),
        ])
    func malformedAddresses(method: String, path: String, status: Int) throws {
        #expect(try web.send(method, path).status == status)
    }

    @Test("a word's body over its limit is refused with 413 without adding anything")
    func bodyLimit() throws {
        let huge = "{\"term\": \"x\", \"notes\": \"" + String(repeating: "n", count: WebApp.wordRequestLimit + 1) + "\"}"
        let answer = try web.send("POST", "/api/words", json: huge)
        #expect(answer.status == 413)
        #expect(answer.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
        #expect(try web.library().counts().words == 0)
    }

    @Test("a backup upload may be far larger than other requests")
    func uploadLimit() throws {
        #expect(WebApp.uploadLimit == 100 * 1_048_576)
        let big = Data(repeating: UInt8(ascii: " "), count: 200_000)
        let answer = try web.send("POST", "/api/backup/restore?dryRun=1", body: big)
        #expect(answer.status == 422, "read and judged as a backup, not refused for its size")
    }

    @Test("the list comes a page at a time, newest first, saying whether more follow")
    func paging() throws {
        let library = try web.library()
        for index in 1...7 { try library.add(WordContent(term: "word \(index)")) }
        let first = try web.send("GET", "/api/words?limit=3")
        #expect(first.words.map { $0["term"] as? String } == ["word 7", "word 6", "word 5"])
        #expect(first.json["hasMore"] as? Bool == true)
        #expect(first.json["total"] as? Int == 7)
        let last = try web.send("GET", "/api/words?limit=3&offset=6")
        #expect(last.words.map { $0["term"] as? String } == ["word 1"])
        #expect(last.json["hasMore"] as? Bool == false)
        let byTerm = try web.send("GET", "/api/words?sort=term&limit=2")
        #expect(byTerm.words.map { $0["term"] as? String } == ["word 1", "word 2"])
    }

    @Test("words added from the command line show up in the web app's next answer")
    func sharedWithTheCLI() throws {
        _ = try web.send("GET", "/api/words")
        try web.library().add(WordContent(term: "from the CLI"))
        #expect(try web.send("GET", "/api/words").words.first?["term"] as? String == "from the CLI")
    }
}

/// Looks for the ways a script could turn text into markup.
enum AppScriptProbe {
    static func usesInnerHTML(_ script: String) -> Bool {
        ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"].contains { script.contains($0) }
    }
}
