import Foundation
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// A browser that opens the pairing address trades the token for a cookie of its own;
/// Settings lists it and can sign it out, and the QR code of the address is an SVG.
@Suite("Paired browsers")
final class PairedBrowserTests {
    static let token = "pairing-token-for-tests"
    let web: WebFixture

    init() throws { web = try WebFixture(accessToken: Self.token) }

    /// Opens the pairing address as a browser sending `userAgent`: its cookie secret.
    func pair(_ userAgent: String) throws -> String {
        let answer = try web.send("GET", "/?token=\(Self.token)", headers: ["User-Agent": userAgent])
        #expect(answer.status == 303)
        let cookie = try #require(answer.headers["set-cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains("Secure"))
        let value = try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
        return value
    }

    func words(cookie: String) throws -> Int {
        try web.send("GET", "/api/words", headers: ["Cookie": "\(SecurityPolicy.tokenCookie)=\(cookie)"]).status
    }

    @Test("each browser gets a cookie of its own, not the token, and it opens the library")
    func browsersGetTheirOwnCookie() throws {
        let phone = try pair("Phone Browser/1.0")
        let laptop = try pair("Laptop Browser/2.0")
        #expect(phone != Self.token && phone != laptop)
        #expect(try words(cookie: phone) == 200)
        #expect(try words(cookie: "not-a-paired-browser") == 401)
        // The token itself in the cookie no longer opens anything: the cookie names a browser.
        #expect(try words(cookie: Self.token) == 401)
    }

    @Test("Settings lists the paired browsers with their user agent, and signs one out")
    func listAndSignOut() throws {
        let phone = try pair("Phone Browser/1.0 <b>")
        let laptop = try pair("Laptop Browser/2.0")
        let bearer = ["Authorization": "Bearer \(Self.token)"]
        let listed = try web.send("GET", "/api/pairing", headers: bearer).json["browsers"] as? [[String: Any]] ?? []
        #expect(Set(listed.compactMap { $0["userAgent"] as? String }) == ["Phone Browser/1.0 <b>", "Laptop Browser/2.0"])
        let phoneID = try #require(listed.first { $0["userAgent"] as? String == "Phone Browser/1.0 <b>" }?["id"] as? String)
        let signedOut = try web.send(
            "POST", "/api/pairing/signout", body: Data(#"{"id": "\#(phoneID)"}"#.utf8), headers: bearer)
        #expect(signedOut.status == 200)
        #expect(try words(cookie: phone) == 401)
        #expect(try words(cookie: laptop) == 200)
        let unknown = try web.send("POST", "/api/pairing/signout", body: Data(#"{"id": "nobody"}"#.utf8), headers: bearer)
        #expect(unknown.status == 404)
    }

    @Test("the QR code of the pairing address is an SVG made by the server; none without --lan")
    func pairingCodeIsAnSVG() throws {
        let bearer = ["Authorization": "Bearer \(Self.token)"]
        #expect(try web.send("GET", "/pairing.svg", headers: bearer).status == 404)
        let address = "http://192.0.2.2:\(web.server.port)/?token=\(Self.token)"
        web.app.setPairingAddress(address)
        let answer = try web.send("GET", "/pairing.svg", headers: bearer)
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "image/svg+xml")
        #expect(answer.headers["cache-control"] == "no-store")
        #expect(answer.text == PairingCode(address)?.svg)
        #expect(try web.send("GET", "/api/pairing", headers: bearer).json["address"] as? String == address)
        #expect(try web.send("GET", "/pairing.svg").status == 401)
    }

    @Test("paired browsers are kept in a 0600 file and stay paired across restarts")
    func browsersAreKept() throws {
        let path = web.directory + "/library.sqlite.serve-browsers"
        let first = try PairedBrowsers(path: path)
        let secret = first.pair(userAgent: "Phone")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let again = try PairedBrowsers(path: path)
        #expect(again.list().map(\.userAgent) == ["Phone"])
        let policy = SecurityPolicy(host: "127.0.0.1", accessToken: Self.token, browsers: again)
        let request = HTTPRequest(
            method: "GET", path: "/api/words", headers: ["Host": "127.0.0.1:1", "Cookie": "midiccio_token=\(secret)"], serverPort: 1)
        #expect(policy.accessRefusal(of: request) == nil)
        again.signOutAll()
        #expect(try PairedBrowsers(path: path).list().isEmpty)
    }
}
