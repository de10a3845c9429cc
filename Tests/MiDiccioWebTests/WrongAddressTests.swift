import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// An address the app does not have, or one asked with the wrong method: 404 or 405,
/// never an answer from another route, and nothing changed.
@Suite("Unknown addresses and wrong methods")
final class WrongAddressTests {
    let web: WebFixture
    static let someID = "00000000-0000-4000-8000-000000000000"

    init() throws { web = try WebFixture() }

    @Test(
        "an address the app does not have gets 404",
        arguments: [
            ("GET", "/api/nowhere"), ("POST", "/api/nowhere"), ("GET", "/index.html"), ("GET", "/api"),
            ("GET", "/api/trash/\(someID)"), ("POST", "/api/words/\(someID)/purge"), ("GET", "/app.js/x"),
        ])
    func unknownAddress(method: String, path: String) throws {
        let answer = try web.send(method, path)
        #expect(answer.status == 404)
        #expect(answer.headers["allow"] == nil)
        #expect(answer.json["error"] is String)
    }

    @Test(
        "a known address asked with a wrong method gets 405 and the methods it takes in Allow",
        arguments: [
            ("DELETE", "/api/words", "GET, HEAD, POST"), ("PATCH", "/api/words", "GET, HEAD, POST"),
            ("POST", "/", "GET, HEAD"), ("PUT", "/app.js", "GET, HEAD"), ("GET", "/api/sync", "POST"),
            ("OPTIONS", "/api/remote", "PUT"), ("POST", "/api/words/\(someID)", "GET, HEAD, PUT, DELETE"),
            ("GET", "/api/trash/empty", "POST"), ("GET", "/api/import", "POST"),
        ])
    func wrongMethod(method: String, path: String, allow: String) throws {
        let answer = try web.send(method, path)
        #expect(answer.status == 405)
        #expect(answer.headers["allow"] == allow)
        #expect(answer.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
    }

    @Test("a write asked with a wrong method changes nothing")
    func wrongMethodChangesNothing() throws {
        let id = try web.library().add(WordContent(term: "casa")).word.id
        try web.library().delete([id])
        #expect(try web.send("DELETE", "/api/trash/empty").status == 405)
        #expect(try web.send("PUT", "/api/words/\(id)/restore", json: "{}").status == 405)
        #expect(try web.library().counts().trash == 1)
    }
}
