#if canImport(Glibc)
import Foundation
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// An address libmicrohttpd would decode into something else (a NUL cuts it short) or
/// that is not well formed gets 400, and the server's own refusals carry the security
/// headers like every other answer.
@Suite("Broken and oversized requests")
final class BrokenAddressTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test(
        "a NUL or a broken %-escape in the address gets 400, never a file",
        arguments: ["/app.js%00.html", "/app.js%00", "/%zz", "/app.js%4", "/api/words%", "/api/words?q=%00"])
    func brokenAddressIsRefused(target: String) throws {
        let answer = try web.send("GET", target)
        #expect(answer.status == 400)
        #expect(!answer.text.contains("function"))
        #expect(answer.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
    }

    @Test("a well-formed escaped address still reaches its route")
    func escapedAddressIsServed() throws {
        #expect(try web.send("GET", "/app%2Ejs").status == 200)
    }

    @Test("headers too large get 431 with the security headers")
    func largeHeadersGet431() throws {
        let answer = try web.send("GET", "/api/words", headers: ["X-Padding": String(repeating: "a", count: 40_000)])
        #expect(answer.status == 431)
        #expect(answer.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
        #expect(answer.headers["x-content-type-options"] == "nosniff")
    }

    @Test("an address too long gets 414 with the security headers")
    func longAddressGets414() throws {
        let answer = try web.send("GET", "/api/words?tag=" + String(repeating: "a", count: 10_000))
        #expect(answer.status == 414)
        #expect(answer.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
    }
}
#endif
