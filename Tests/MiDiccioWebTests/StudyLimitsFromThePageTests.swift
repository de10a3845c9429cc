import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// The Study page's daily limits (synced settings) and its "more new words today".
@Suite("Study limits set from the web page")
final class StudyLimitsFromThePageTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("the limits are stored as the synced settings, and extra new words go past the limit")
    func limitsAndExtra() throws {
        for number in 0..<4 {
            _ = try web.send("POST", "/api/words", json: "{\"term\": \"nuevo\(number)\", \"meaning\": \"m\"}")
        }
        let saved = try web.send("POST", "/api/study/limits", json: "{\"newPerDay\": 1, \"reviewsPerDay\": 50}")
        #expect(saved.status == 200)
        #expect(try web.library().setting(.newPerDay) == "1")
        #expect(try web.library().setting(.reviewsPerDay) == "50")
        let limited = try web.send("GET", "/api/study")
        #expect(limited.json["new"] as? Int == 1)
        #expect(limited.json["newPerDay"] as? Int == 1)
        #expect(limited.json["reviewsPerDay"] as? Int == 50)
        #expect(try web.send("GET", "/api/study?extraNew=2").json["new"] as? Int == 3)
    }

    @Test("extra new words run out: each one studied counts against the raised limit")
    func extraNewRunsOut() throws {
        for number in 0..<6 {
            _ = try web.send("POST", "/api/words", json: "{\"term\": \"nuevo\(number)\", \"meaning\": \"m\"}")
        }
        _ = try web.send("POST", "/api/study/limits", json: "{\"newPerDay\": 1}")
        // The day's one new word, then two more asked for: three in all, then none.
        var studied = 0
        while let card = try web.send("GET", "/api/study?extraNew=2").json["card"] as? [String: Any], studied < 10 {
            let id = try #require((card["word"] as? [String: Any])?["id"] as? String)
            let answered = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(id)\", \"grade\": \"easy\"}")
            #expect(answered.status == 200, "\(answered.json)")
            studied += 1
        }
        #expect(studied == 3, "the day's limit of 1 and the 2 asked for")
        #expect(try web.send("GET", "/api/study?extraNew=2").json["new"] as? Int == 0)

        // The limit lowered to none after 3 studied today: 2 more asked for then (the page
        // sends the 3 as extraFrom) are 2 more, then none.
        _ = try web.send("POST", "/api/study/limits", json: "{\"newPerDay\": 0}")
        studied = 0
        while let card = try web.send("GET", "/api/study?extraNew=2&extraFrom=3").json["card"] as? [String: Any], studied < 10 {
            let id = try #require((card["word"] as? [String: Any])?["id"] as? String)
            _ = try web.send("POST", "/api/study/answer", json: "{\"id\": \"\(id)\", \"grade\": \"easy\"}")
            studied += 1
        }
        #expect(studied == 2)
    }

    @Test("a bad limit is refused naming the field, and neither limit changes")
    func badLimits() throws {
        let refused = try web.send("POST", "/api/study/limits", json: "{\"newPerDay\": 5, \"reviewsPerDay\": 100000}")
        #expect(refused.status == 400)
        #expect(refused.json["field"] as? String == "reviewsPerDay")
        #expect((refused.json["error"] as? String)?.contains("0 to 99999") == true)
        #expect(try web.library().setting(.newPerDay) == "20")
        #expect(try web.library().setting(.reviewsPerDay) == "200")
        let extra = try web.send("GET", "/api/study?extraNew=-1")
        #expect(extra.status == 400)
        #expect(extra.json["field"] as? String == "extraNew")
    }
}
