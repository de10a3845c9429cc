import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// The Study page's routes: the next card, answers and their undo, the progress charts.
@Suite("Study routes of the web app")
final class StudyRouteTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    private func add(_ term: String, tags: String = "") throws -> String {
        let added = try web.send("POST", "/api/words", json: "{\"term\": \"\(term)\", \"meaning\": \"m\", \"tags\": \"\(tags)\"}")
        let word = try #require(added.json["word"] as? [String: Any])
        return try #require(word["id"] as? String)
    }

    @Test("an answer given on the page is a review event in the library, and u takes it back")
    func answerAndUndo() throws {
        let id = try add("perro")
        let next = try web.send("GET", "/api/study")
        let card = try #require(next.json["card"] as? [String: Any])
        #expect((card["word"] as? [String: Any])?["id"] as? String == id)
        #expect((card["study"] as? [String: Any])?["state"] as? String == "new")

        let answered = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(id)\", \"grade\": \"3\", \"seconds\": 4}")
        #expect(answered.status == 200)
        #expect((answered.json["study"] as? [String: Any])?["reviews"] as? Int == 1)
        let events = try web.library().reviewEvents(of: WordID(id)!)
        #expect(events.map(\.grade) == [.good])
        #expect(events.first?.seconds == 4)

        let undone = try web.send("POST", "/api/study/undo")
        #expect(undone.status == 200)
        #expect(undone.json["term"] as? String == "perro")
        #expect(try web.library().reviewEvents(of: WordID(id)!).isEmpty)
        let nothing = try web.send("POST", "/api/study/undo")
        #expect(nothing.status == 409)
        // No answer at all: nothing about sync, in a library that may never have synced.
        #expect(nothing.json["error"] as? String == "nothing to undo: no word has been answered yet")
    }

    @Test("the page's undo names the answer it gave: another program's later answer stays, and a synced one is refused")
    func undoOfOneAnswer() throws {
        let mine = try add("perro"), other = try add("gato")
        // The card was shown 12 s: the answer's seconds are part of its key, and the page's
        // undo names it without them (round 25B #3: nothing was taken back, "Undone" said).
        let answered = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(mine)\", \"grade\": \"good\", \"seconds\": 12}")
        let answer = try #require(answered.json["answer"] as? [String: Any], "\(answered.json)")
        let time = try #require(answer["time"] as? Int)
        #expect(answer["grade"] as? String == "good")
        // Another program answers "gato" meanwhile, later by the clock.
        try web.library().review(WordID(other)!, grade: .easy)

        let undo = "{\"id\": \"\(mine)\", \"time\": \(time), \"grade\": \"good\"}"
        let undone = try web.send("POST", "/api/study/undo", json: undo)
        #expect(undone.status == 200 && undone.json["term"] as? String == "perro", "\(undone.json)")
        #expect(try web.library().reviewEvents(of: WordID(mine)!).isEmpty)
        #expect(try web.library().reviewEvents(of: WordID(other)!).count == 1, "the other program's answer stays")
        let again = try web.send("POST", "/api/study/undo", json: undo)
        #expect(again.status == 409 && (again.json["error"] as? String ?? "").contains("synced already"), "\(again.json)")
        let bad = try web.send("POST", "/api/study/undo", json: "{\"id\": \"\(mine)\", \"grade\": \"good\"}")
        #expect(bad.status == 400 && bad.json["field"] as? String == "time")
    }

    @Test("a card answered in another tab since it was shown is not recorded twice")
    func aCardAnsweredInAnotherTab() throws {
        let id = try add("perro")
        let shown = try web.send("GET", "/api/study")
        let reviews = try #require((shown.json["card"] as? [String: Any]).flatMap { $0["study"] as? [String: Any] }?["reviews"] as? Int)
        #expect(reviews == 0)
        // Both tabs show the card with no answer yet; the first answers.
        let first = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(id)\", \"grade\": \"easy\", \"reviews\": 0}")
        #expect(first.status == 200, "\(first.json)")
        let second = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(id)\", \"grade\": \"easy\", \"reviews\": 0}")
        #expect(second.status == 409 && second.json["field"] as? String == "answered", "\(second.json)")
        #expect((second.json["error"] as? String ?? "").contains("answered meanwhile"))
        #expect(try web.library().reviewEvents(of: WordID(id)!).count == 1)
        // Shown again, with its one answer, it is answered.
        let third = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(id)\", \"grade\": \"good\", \"reviews\": 1}")
        #expect(third.status == 200)
    }

    @Test("answers need the CSRF token, and a bad grade or id is refused naming the field, nothing recorded")
    func refusals() throws {
        let id = try add("gato")
        let forged = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(id)\", \"grade\": \"good\"}", csrf: .some(nil))
        #expect(forged.status == 403)
        let badGrade = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(id)\", \"grade\": \"perfect\"}")
        #expect(badGrade.status == 400)
        #expect(badGrade.json["field"] as? String == "grade")
        let badSeconds = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(id)\", \"grade\": 2, \"seconds\": -1}")
        #expect(badSeconds.json["field"] as? String == "seconds")
        let badID = try web.send("POST", "/api/study/answer", json: #"{"id": "nope", "grade": "good"}"#)
        #expect(badID.json["field"] as? String == "id")
        #expect(try web.send("POST", "/api/study/undo", csrf: .some(nil)).status == 403)
        #expect(try web.library().reviewEventCount() == 0)
    }

    @Test("the tag filter keeps other words out, and nothing due says when to come back")
    func tagFilterAndComeBack() throws {
        _ = try add("uno", tags: "numbers")
        let other = try add("casa", tags: "home")
        let numbers = try web.send("GET", "/api/study?tag=numbers")
        #expect(((numbers.json["card"] as? [String: Any])?["word"] as? [String: Any])?["term"] as? String == "uno")
        #expect(numbers.json["new"] as? Int == 1)
        #expect(try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(other)\", \"grade\": \"easy\"}").status == 200)
        let home = try web.send("GET", "/api/study?tag=home")
        #expect(home.json["card"] is NSNull)
        #expect((home.json["nextDue"] as? String)?.hasSuffix("Z") == true)
        // The next word due is of the tag asked for: "numbers" has none scheduled.
        #expect(try web.send("GET", "/api/study?tag=numbers").json["nextDue"] is NSNull)
    }

    @Test("the charts are SVG drawn by the server under the strict CSP, one bar a day")
    func charts() throws {
        let id = try add("rojo")
        // The page sends the seconds as a number; 0 and 1 are numbers too, not booleans.
        let answered = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(id)\", \"grade\": \"good\", \"seconds\": 1}")
        #expect(answered.status == 200)
        let reviews = try web.send("GET", "/study/reviews.svg")
        #expect(reviews.status == 200)
        #expect(reviews.headers["content-type"] == "image/svg+xml")
        #expect(reviews.headers["content-security-policy"]?.contains("script-src 'self'") == true)
        #expect(reviews.text.components(separatedBy: "class=\"bar\"").count - 1 == 30)
        #expect(!reviews.text.contains("<script") && !reviews.text.contains("style="))
        #expect(reviews.text.contains("<title>Answers a day"))
        let forecast = try web.send("GET", "/study/forecast.svg")
        #expect(forecast.text.components(separatedBy: "class=\"bar\"").count - 1 == 14)
        let stats = try web.send("GET", "/api/stats")
        #expect((stats.json["counts"] as? [String: Any])?["learning"] as? Int == 1)
        #expect((stats.json["reviewsPerDay"] as? [Any])?.count == 30)
    }
}
