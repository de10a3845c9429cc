import Foundation
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// Browsers leave the scheme's own port out of the Host header; a server on that port
/// still knows the request is meant for it.
@Suite("Serving on port 80", .serialized)
final class DefaultPortTests {
    @Test("on port 80 a Host without a port is accepted; a foreign one is still refused")
    func port80AcceptsABareHost() throws {
        let web = try WebFixture(port: 80)
        #expect(try web.send("GET", "/api/words", host: "127.0.0.1").status == 200)
        #expect(try web.send("GET", "/api/words", host: "localhost").status == 200)
        #expect(try web.send("GET", "/api/words", host: "127.0.0.1:80").status == 200)
        #expect(try web.send("GET", "/api/words", host: "evil.example").status == 421)
    }

    @Test("on another port a Host without a port is refused")
    func otherPortsNeedThePort() throws {
        let web = try WebFixture()
        #expect(try web.send("GET", "/api/words", host: "127.0.0.1").status == 421)
    }

    @Test("the port chosen for port 0 is known before the first request")
    func portZeroIsKnownAtOnce() throws {
        let web = try WebFixture()
        #expect(web.server.port != 0)
        // The first request, sent at once, is checked against the bound port.
        #expect(try web.send("GET", "/api/words").status == 200)
    }

    @Test("a policy on port 443 with TLS takes a bare Host; without TLS it does not")
    func port443WithTLS() {
        let policy = SecurityPolicy(host: "127.0.0.1", accessToken: nil)
        #expect(policy.answersTo(host: "localhost", port: 443, secure: true))
        #expect(!policy.answersTo(host: "localhost", port: 443, secure: false))
    }
}
