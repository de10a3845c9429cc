import Foundation
import MiDiccioKit
import MiDiccioStore
import Testing

@testable import MiDiccioWeb

/// The browse table's bulk actions through the API: a tag on many words, many words to
/// or out of the Trash, purge, and one undo (issue 13, part 2).
@Suite("Bulk action routes of the web app")
final class BulkActionRouteTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    func ids(_ words: [Word]) -> String {
        "[" + words.map { "\"\($0.id.rawValue)\"" }.joined(separator: ",") + "]"
    }

    @Test("a tag on chosen words, then undo by its step, each one request")
    func tagChosenAndUndo() throws {
        let library = try web.library()
        let words = try (0..<5).map { try library.add(WordContent(term: "w\($0)", meaning: "m")).word }
        let tagged = try web.send("POST", "/api/bulk/tag", json: #"{"ids": \#(ids(Array(words.prefix(3)))), "tag": "review"}"#)
        #expect(tagged.status == 200)
        #expect(tagged.json["changed"] as? Int == 3)
        #expect(try library.tagCount("review") == 3)
        let step = try #require(tagged.json["step"] as? Int)
        let undone = try web.send("POST", "/api/bulk/undo", json: #"{"step": \#(step)}"#)
        #expect(undone.json["changed"] as? Int == 3)
        #expect(try library.tagCount("review") == 0)
        #expect(try web.send("POST", "/api/bulk/undo", json: #"{"step": \#(step)}"#).status == 409)
    }

    @Test("with a key a bulk action is a job counted in words; with async=1 too it answers 202 and its job holds the answer")
    func asJobs() throws {
        let library = try web.library()
        for index in 0..<2_500 { try library.add(WordContent(term: "w\(index)", meaning: "house")) }
        let tagged = try web.send("POST", "/api/bulk/tag?key=bk1", json: #"{"select": "matches", "q": "house", "tag": "repaso"}"#)
        #expect(tagged.status == 200)
        #expect(tagged.json["changed"] as? Int == 2_500)
        let job = try web.send("GET", "/api/jobs/bk1")
        #expect(job.json["phase"] as? String == "Adding the tag")
        #expect(job.json["unit"] as? String == "words")
        #expect(job.json["done"] as? Int == 2_500)
        #expect(job.json["total"] as? Int == 2_500)
        #expect(job.json["finished"] as? Bool == true)

        let step = try #require(tagged.json["step"] as? Int)
        let started = try web.send("POST", "/api/bulk/undo?key=bk2&async=1", json: #"{"step": \#(step)}"#)
        #expect(started.status == 202)
        var undo = try web.send("GET", "/api/jobs/bk2")
        let deadline = Date().addingTimeInterval(30)
        while undo.json["finished"] as? Bool != true && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            undo = try web.send("GET", "/api/jobs/bk2")
        }
        #expect(undo.json["phase"] as? String == "Undoing")
        #expect(undo.json["status"] as? Int == 200)
        #expect((undo.json["answer"] as? [String: Any])?["changed"] as? Int == 2_500)
        #expect(try library.tagCount("repaso") == 0)

        // A refusal in the background is the job's answer, and changes nothing.
        let refused = try web.send("POST", "/api/bulk/tag?key=bk3&async=1", json: #"{"select": "matches", "q": "house", "tag": " "}"#)
        #expect(refused.status == 202)
        var failed = try web.send("GET", "/api/jobs/bk3")
        while failed.json["finished"] as? Bool != true && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            failed = try web.send("GET", "/api/jobs/bk3")
        }
        #expect(failed.json["status"] as? Int == 422)
        #expect((failed.json["answer"] as? [String: Any])?["field"] as? String == "tag")
        #expect(try library.lastBulkAction() == nil)
    }

    @Test("a bulk action asked for while a sync of the app runs waits for it, saying so, and then runs")
    func waitsForTheSync() throws {
        let library = try web.library()
        for index in 0..<30 { try library.add(WordContent(term: "w\(index)", meaning: "house")) }
        /// The job `key` once `done` says so (at most 30 s).
        func job(_ key: String, until done: ([String: Any]) -> Bool) throws -> [String: Any] {
            let deadline = Date().addingTimeInterval(30)
            while true {
                let json = try web.send("GET", "/api/jobs/\(key)").json
                if done(json) || Date() > deadline { return json }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        // As a sync does while it runs.
        web.app.syncLock.lock()
        let started = try web.send("POST", "/api/bulk/tag?key=w1&async=1", json: #"{"select": "matches", "q": "house", "tag": "later"}"#)
        #expect(started.status == 202)
        let waiting = try job("w1") { $0["phase"] as? String == "Waiting for the sync" }
        #expect(waiting["phase"] as? String == "Waiting for the sync")
        #expect(waiting["finished"] as? Bool == false)
        #expect(try library.tagCount("later") == 0)
        web.app.syncLock.unlock()
        let done = try job("w1") { $0["finished"] as? Bool == true }
        #expect(done["status"] as? Int == 200)
        #expect(done["phase"] as? String == "Adding the tag")
        #expect((done["answer"] as? [String: Any])?["changed"] as? Int == 30)
        #expect(try library.tagCount("later") == 30)
    }

    @Test("a bulk action in the background waits for another program writing to the library, saying so, and then runs")
    func waitsForAnotherWriter() throws {
        let library = try web.library()
        for index in 0..<30 { try library.add(WordContent(term: "w\(index)", meaning: "house")) }
        // A `midiccio sync` or import in a terminal holds the write lock past SQLite's 10 s.
        let writer = try Database(path: web.libraryPath, create: false)
        try writer.execute("BEGIN IMMEDIATE")
        let started = try web.send("POST", "/api/bulk/tag?key=o1&async=1", json: #"{"select": "matches", "q": "house", "tag": "later"}"#)
        #expect(started.status == 202)
        let deadline = Date().addingTimeInterval(40)
        var waiting = try web.send("GET", "/api/jobs/o1").json
        while waiting["phase"] as? String != WebApp.waitingForWritersPhase && waiting["finished"] as? Bool != true && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            waiting = try web.send("GET", "/api/jobs/o1").json
        }
        #expect(waiting["phase"] as? String == WebApp.waitingForWritersPhase)
        #expect(waiting["finished"] as? Bool == false)
        #expect(try library.tagCount("later") == 0)
        try writer.execute("COMMIT")
        var done = waiting
        while done["finished"] as? Bool != true && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            done = try web.send("GET", "/api/jobs/o1").json
        }
        #expect(done["status"] as? Int == 200)
        #expect((done["answer"] as? [String: Any])?["changed"] as? Int == 30)
        #expect(try library.tagCount("later") == 30)

        // A request that waits for its answer still fails as busy, and changes nothing:
        // after SQLite's 10 s, so the answer is awaited for longer than the usual 10 s.
        try writer.execute("BEGIN IMMEDIATE")
        let refused = try web.send(
            "POST", "/api/bulk/tag", json: #"{"select": "matches", "q": "house", "tag": "sooner"}"#, timeout: 60)
        try writer.execute("COMMIT")
        #expect(refused.status == 503)
        #expect(try library.tagCount("sooner") == 0)
    }

    @Test("all matches of a search with a tag: removed tag, Trash and restore, purge")
    func allMatches() throws {
        let library = try web.library()
        for index in 0..<40 {
            try library.add(WordContent(term: "w\(index)", meaning: index < 20 ? "house" : "dog", tags: index % 2 == 0 ? ["even"] : []))
        }
        let removed = try web.send(
            "POST", "/api/bulk/tag", json: #"{"select": "matches", "q": "house", "filterTag": "EVEN", "tag": "even", "remove": true}"#)
        #expect(removed.status == 200)
        #expect(removed.json["changed"] as? Int == 10)
        #expect(try library.tagCount("even") == 10)
        let trashed = try web.send("POST", "/api/bulk/trash", json: #"{"select": "matches", "q": "dog"}"#)
        #expect(trashed.json["changed"] as? Int == 20)
        #expect(try library.counts() == (words: 20, trash: 20))
        let restored = try web.send("POST", "/api/bulk/restore", json: #"{"select": "trash", "q": "w2"}"#)
        #expect(restored.json["changed"] as? Int == 10)  // w20 to w29
        let purged = try web.send("POST", "/api/bulk/purge", json: #"{"select": "trash", "q": ""}"#)
        #expect(purged.json["purged"] as? Int == 10)
        #expect(try library.counts() == (words: 30, trash: 0))
    }

    @Test("bad requests say which field, change nothing, and need the CSRF token")
    func badRequests() throws {
        let library = try web.library()
        let word = try library.add(WordContent(term: "casa")).word
        #expect(try web.send("POST", "/api/bulk/tag", json: #"{"ids": [], "tag": "x"}"#).json["field"] as? String == "ids")
        #expect(try web.send("POST", "/api/bulk/tag", json: #"{"ids": ["nope"], "tag": "x"}"#).status == 400)
        let spaced = try web.send("POST", "/api/bulk/tag", json: #"{"ids": ["\#(word.id)"], "tag": "two words"}"#)
        #expect(spaced.status == 422)
        #expect(spaced.json["field"] as? String == "tag")
        #expect(try web.send("POST", "/api/bulk/tag", json: #"{"select": "everything", "tag": "x"}"#).json["field"] as? String == "select")
        #expect(try web.send("POST", "/api/bulk/tag", json: #"{"ids": ["\#(word.id)"], "tag": "x", "remove": "yes"}"#).status == 400)
        #expect(try web.send("POST", "/api/bulk/trash", json: #"{"ids": ["\#(word.id)"]}"#, csrf: .some(nil)).status == 403)
        #expect(try web.send("POST", "/api/bulk/purge", json: #"{"ids": ["\#(word.id)"]}"#).status == 409)
        #expect(try library.word(word.id)?.tags == [])
        #expect(try library.counts() == (words: 1, trash: 0))
    }

    @Test("more chosen ids than fit in 64 KB go in one request")
    func manyIDs() throws {
        let library = try web.library()
        let words = try (0..<2_000).map { try library.add(WordContent(term: "w\($0)")).word }
        let body = #"{"ids": \#(ids(words)), "tag": "many"}"#
        #expect(body.utf8.count > 64 * 1024)
        let tagged = try web.send("POST", "/api/bulk/tag", json: body)
        #expect(tagged.status == 200)
        #expect(try library.tagCount("many") == 2_000)
    }

    @Test("the Trash pages by key with after=")
    func trashByKey() throws {
        let library = try web.library()
        let words = try (0..<12).map { try library.add(WordContent(term: "w\($0)")).word }
        try library.delete(words.map(\.id))
        let first = try web.send("GET", "/api/trash?limit=5")
        let last = try #require(first.words.last?["id"] as? String)
        let next = try web.send("GET", "/api/trash?limit=5&after=\(last)")
        let byOffset = try web.send("GET", "/api/trash?limit=5&offset=5")
        #expect(next.words.map { $0["id"] as? String } == byOffset.words.map { $0["id"] as? String })
        #expect(try web.send("GET", "/api/trash?after=zzz").status == 400)
        // The last entry shown restored (or purged) elsewhere: the next page still follows
        // its place, where it started from the top and repeated the first page (round 15B).
        let place = try #require(first.json["next"] as? String)
        let lastID = try #require(WordID(last))
        _ = try library.restore([lastID])
        let after = try web.send("GET", "/api/trash?limit=5&after=\(place)")
        #expect(after.words.map { $0["id"] as? String } == byOffset.words.map { $0["id"] as? String })
    }
}
