import Foundation
import MiDiccioWeb
import Testing

/// The browser keeps the script and the style sheet and asks whether they changed;
/// the page itself, which carries the session's CSRF token, is never kept.
@Suite("Caching of the page's files")
final class AssetCachingTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test(
        "the script and style sheet carry a strong ETag, and asking with it gets 304 without a body",
        arguments: ["/app.js", "/app.css"])
    func unchangedFileIsNotSentAgain(path: String) throws {
        let first = try web.send("GET", path)
        #expect(first.status == 200)
        #expect(!first.body.isEmpty)
        #expect(first.headers["cache-control"] == "no-cache")
        let etag = try #require(first.headers["etag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""), "strong: quoted, no W/")

        let again = try web.send("GET", path, headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.body.isEmpty)
        #expect(again.headers["etag"] == etag)
        #expect(again.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
        #expect(again.headers["x-content-type-options"] == "nosniff")

        // If-None-Match compares weakly and may list several versions.
        #expect(try web.send("GET", path, headers: ["If-None-Match": "W/\(etag)"]).status == 304)
        #expect(try web.send("GET", path, headers: ["If-None-Match": "\"old\", \(etag)"]).status == 304)
    }

    @Test("a browser holding another version gets the whole file", arguments: ["/app.js", "/app.css"])
    func changedFileIsSent(path: String) throws {
        let whole = try web.send("GET", path)
        let answer = try web.send("GET", path, headers: ["If-None-Match": "\"0-0\""])
        #expect(answer.status == 200)
        #expect(answer.body == whole.body)
    }

    @Test("the ETag comes from the file's bytes, so restarting serve does not make browsers fetch again")
    func etagOutlivesTheSession() throws {
        let other = try WebFixture()
        #expect(other.csrfToken != web.csrfToken)
        for path in ["/app.js", "/app.css"] {
            #expect(try web.send("GET", path).headers["etag"] == other.send("GET", path).headers["etag"])
        }
        #expect(try web.send("GET", "/app.js").headers["etag"] != web.send("GET", "/app.css").headers["etag"])
    }

    @Test("the page is never kept: it carries this session's CSRF token")
    func pageIsNotCached() throws {
        let page = try web.send("GET", "/", headers: ["If-None-Match": "*"])
        #expect(page.status == 200)
        #expect(page.headers["etag"] == nil)
        #expect(page.headers["cache-control"] == "no-store")
        #expect(page.text.contains(web.csrfToken))
    }
}
