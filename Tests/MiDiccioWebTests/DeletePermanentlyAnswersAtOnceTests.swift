import Foundation
import MiDiccioKit
import Testing

/// "Delete permanently" in the web app answered only once the purged words' text had been
/// scrubbed from the library's files, and the scrub rewrites the whole search index
/// whatever the number of words purged: about 4 s at a million words. The app now answers
/// when the purge has committed and scrubs on a thread of its own within a second.
@Suite("Delete permanently in the web app answers at once and scrubs the text soon after")
final class DeletePermanentlyAnswersAtOnceTests {
    @Test("a word deleted permanently is gone at once, and its text leaves the library's files within seconds")
    func scrubbedWithinSeconds() throws {
        let web = try WebFixture()
        let token = uniqueToken()
        let id = try addAndTrash(web, term: "ventana", meaning: "significa \(token)")
        #expect(try web.send("POST", "/api/trash/\(id)/purge").status == 200)
        let library = try web.library()
        #expect(try library.isPurged(WordID(id)!))
        #expect(try library.search(token).isEmpty)
        #expect(try filesClean(of: web, token: token, within: 20))
        #expect(try !library.purgedTextRemains())
    }

    @Test("the answer comes before the scrub, which a later purge or sync still makes")
    func answerComesFirst() throws {
        // The app's own scrub put off for an hour: what the answer found done was done by
        // the request itself.
        let web = try WebFixture(housekeepingInterval: 3600)
        let token = uniqueToken()
        let id = try addAndTrash(web, term: "puerta", meaning: "significa \(token)")
        let answer = try web.send("POST", "/api/trash/purge", json: #"{"ids": ["\#(id)"]}"#)
        #expect(answer.status == 200)
        #expect(answer.json["purged"] as? Int == 1)
        let library = try web.library()
        #expect(try library.isPurged(WordID(id)!))
        #expect(try library.search(token).isEmpty)
        #expect(try library.purgedTextRemains())
        #expect(holdsToken(web, token), "the scrub was left to the app's thread")

        // `midiccio trash empty` in a terminal meanwhile: the scrub owed is made.
        #expect(try library.emptyTrash() == 0)
        #expect(!holdsToken(web, token))
        #expect(try !library.purgedTextRemains())
    }

    @Test("a scrub a command left owed, the library being busy, is made by the running app")
    func commandsScrubOwed() throws {
        let web = try WebFixture()
        let token = uniqueToken()
        let id = try addAndTrash(web, term: "mesa", meaning: "significa \(token)")
        let command = try web.library()
        _ = try command.purgeOwingScrub([WordID(id)!])
        #expect(try command.purgedTextRemains())
        #expect(try filesClean(of: web, token: token, within: 20))
        #expect(try !command.purgedTextRemains())
        #expect(try web.send("GET", "/api/words").status == 200)
    }

    // MARK: - Helpers

    /// Adds a word through the app and moves it to the Trash; returns its id.
    private func addAndTrash(_ web: WebFixture, term: String, meaning: String) throws -> String {
        let added = try web.send("POST", "/api/words", json: #"{"term": "\#(term)", "meaning": "\#(meaning)"}"#)
        let id = try #require((added.json["word"] as? [String: Any])?["id"] as? String)
        #expect(try web.send("DELETE", "/api/words/\(id)").status == 200)
        // A second word keeps the search index from being empty after the purge.
        #expect(try web.send("POST", "/api/words", json: #"{"term": "\#(term)s"}"#).status == 201)
        return id
    }

    /// Lowercase ASCII letters no other test uses: the search index keeps it as one token.
    private func uniqueToken() -> String {
        "zqscrub" + String((0..<16).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement()! })
    }

    /// True when the library file or its log holds `token`'s bytes.
    private func holdsToken(_ web: WebFixture, _ token: String) -> Bool {
        [web.libraryPath, web.libraryPath + "-wal"].contains { path in
            (FileManager.default.contents(atPath: path) ?? Data()).range(of: Data(token.utf8)) != nil
        }
    }

    /// Waits up to `seconds` for the library's files to lose `token`; true when they did.
    private func filesClean(of web: WebFixture, token: String, within seconds: Double) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while holdsToken(web, token) {
            guard Date() < deadline else { return false }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return true
    }
}
