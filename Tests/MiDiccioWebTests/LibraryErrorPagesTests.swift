#if canImport(Glibc)
import Foundation
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// The requests libmicrohttpd refuses itself, before the app sees them (headers past its
/// per-connection buffer, an address longer than that, a broken header line), still get the
/// security headers: its own bare pages are replaced by the app's.
@Suite("libmicrohttpd's own refusals")
final class LibraryErrorPagesTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    func expectSecurityHeaders(_ answer: RawResponse) {
        #expect(answer.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
        #expect(answer.headers["x-content-type-options"] == "nosniff")
    }

    @Test("headers past libmicrohttpd's buffer get 431 with the security headers", arguments: [200_000, 1_000_000])
    func hugeHeadersGet431(size: Int) throws {
        let answer = try web.send("GET", "/api/words", headers: ["X-Padding": String(repeating: "a", count: size)])
        #expect(answer.status == 431)
        expectSecurityHeaders(answer)
        #expect(answer.text.contains("headers are too large"))
    }

    @Test("an address past libmicrohttpd's buffer gets 414 with the security headers")
    func hugeAddressGets414() throws {
        let answer = try web.send("GET", "/api/words?tag=" + String(repeating: "a", count: 300_000))
        #expect(answer.status == 414)
        expectSecurityHeaders(answer)
    }

    @Test("a header line without a colon gets 400 with the security headers")
    func brokenHeaderGets400() throws {
        let answer = try RawHTTP.exchange(
            port: web.server.port, request: Data("GET /api/words HTTP/1.1\r\nHost: \(web.host)\r\nno colon here\r\n\r\n".utf8))
        #expect(answer.status == 400)
        expectSecurityHeaders(answer)
    }

    @Test("the app's own answers are not taken for libmicrohttpd's pages")
    func ordinaryAnswersAreUntouched() throws {
        let answer = try web.send("GET", "/api/words")
        #expect(answer.status == 200)
        #expect(answer.text.hasPrefix("{"))
    }
}
#endif
