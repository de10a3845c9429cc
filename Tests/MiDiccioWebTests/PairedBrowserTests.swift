import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioWeb

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

    @Test("the QR code of Settings' pairing address is an SVG made by the server, of a one-time code; none without --lan")
    func pairingCodeIsAnSVG() throws {
        let bearer = ["Authorization": "Bearer \(Self.token)"]
        #expect(try web.send("GET", "/pairing.svg", headers: bearer).status == 404)
        #expect(try web.send("GET", "/api/pairing", headers: bearer).json["lan"] as? Bool == false)
        let base = "http://192.0.2.2:\(web.server.port)/"
        web.app.setPairingAddress(base + "?token=\(Self.token)")
        let status = try web.send("GET", "/api/pairing", headers: bearer).json
        let code = try #require(status["code"] as? String)
        let address = try #require(status["address"] as? String)
        #expect(address == base + "?token=" + code)
        #expect(code != Self.token && !address.contains(Self.token), "Settings never shows the access token")
        let answer = try web.send("GET", "/pairing.svg?code=\(code)", headers: bearer)
        #expect(answer.status == 200)
        #expect(answer.headers["content-type"] == "image/svg+xml")
        #expect(answer.headers["cache-control"] == "no-store")
        #expect(answer.text == PairingCode(address)?.svg)
        #expect(try web.send("GET", "/pairing.svg?code=not-a-code", headers: bearer).status == 404)
        #expect(try web.send("GET", "/pairing.svg", headers: bearer).status == 404)
        #expect(try web.send("GET", "/pairing.svg?code=\(code)").status == 401)
    }

    @Test("a one-time code pairs one browser, once; a browser signed out cannot pair again with it")
    func aCodePairsOnce() throws {
        let bearer = ["Authorization": "Bearer \(Self.token)"]
        web.app.setPairingAddress("http://192.0.2.2:\(web.server.port)/?token=\(Self.token)")
        let code = try #require(try web.send("GET", "/api/pairing", headers: bearer).json["code"] as? String)
        let first = try web.send("GET", "/?token=\(code)", headers: ["User-Agent": "Phone"])
        #expect(first.status == 303)
        let cookie = try #require(first.headers["set-cookie"]?.split(separator: ";").first?.split(separator: "=").last.map(String.init))
        #expect(try words(cookie: cookie) == 200)
        #expect(try web.send("GET", "/?token=\(code)", headers: ["User-Agent": "Phone"]).status == 401, "a code pairs once")
        let listed = try web.send("GET", "/api/pairing", headers: bearer).json["browsers"] as? [[String: Any]] ?? []
        let id = try #require(listed.first?["id"] as? String)
        _ = try web.send("POST", "/api/pairing/signout", body: Data(#"{"id": "\#(id)"}"#.utf8), headers: bearer)
        #expect(try words(cookie: cookie) == 401)
        #expect(try web.send("GET", "/?token=\(code)", headers: ["User-Agent": "Phone"]).status == 401)
    }

    @Test("a code expires after 15 minutes, and only the latest 8 wait")
    func codesExpire() {
        let browsers = PairedBrowsers()
        let start = 1_800_000_000.0
        let code = browsers.issueCode(now: start)
        #expect(browsers.isLiveCode(code, now: start + 14 * 60))
        #expect(!browsers.isLiveCode(code, now: start + 16 * 60))
        let many = (0..<9).map { browsers.issueCode(now: start + Double($0)) }
        #expect(!browsers.isLiveCode(many[0], now: start + 10))
        #expect(many.dropFirst().allSatisfy { browsers.isLiveCode($0, now: start + 10) })
    }

    @Test("a paired phone is shown no pairing address and no QR code, so it cannot pair itself again once signed out")
    func aPhoneIsShownNoAddress() throws {
        web.app.setPairingAddress("http://192.0.2.2:\(web.server.port)/?token=\(Self.token)")
        let secret = try pair("Phone")
        let cookie = ["Cookie": "\(SecurityPolicy.tokenCookie)=\(secret)", "Host": "127.0.0.1:\(web.server.port)"]
        let status = web.app.respond(
            to: HTTPRequest(
                method: "GET", path: "/api/pairing", headers: cookie, serverPort: web.server.port, fromThisComputer: false))
        #expect(status.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: status.body) as? [String: Any])
        #expect(json["lan"] as? Bool == true)
        #expect(json["address"] is NSNull && json["code"] is NSNull, "\(json)")
        #expect(!String(decoding: status.body, as: UTF8.self).contains(Self.token))
        let svg = web.app.respond(
            to: HTTPRequest(
                method: "GET", path: "/pairing.svg", query: ["code": "anything"], headers: cookie, serverPort: web.server.port,
                fromThisComputer: false))
        #expect(svg.status == 403)
    }

    @Test("a client counts as this computer over loopback or from the address it reached, not from elsewhere on the network")
    func thisComputerIsToldApart() {
        #expect(LocalPeer.sameComputer(client: [127, 0, 0, 1], server: [192, 168, 1, 20]))
        #expect(LocalPeer.sameComputer(client: [127, 9, 9, 9], server: [127, 0, 0, 1]))
        #expect(LocalPeer.sameComputer(client: [UInt8](repeating: 0, count: 15) + [1], server: [UInt8](repeating: 0, count: 15) + [1]))
        let mapped: ([UInt8]) -> [UInt8] = { [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF] + $0 }
        #expect(LocalPeer.sameComputer(client: mapped([127, 0, 0, 1]), server: mapped([127, 0, 0, 1])))
        #expect(LocalPeer.sameComputer(client: mapped([192, 168, 1, 20]), server: [192, 168, 1, 20]))
        #expect(LocalPeer.sameComputer(client: [192, 168, 1, 20], server: [192, 168, 1, 20]))
        #expect(!LocalPeer.sameComputer(client: [192, 168, 1, 31], server: [192, 168, 1, 20]))
        #expect(!LocalPeer.sameComputer(client: mapped([192, 168, 1, 31]), server: mapped([192, 168, 1, 20])))
        #expect(
            !LocalPeer.sameComputer(
                client: [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [7], server: [UInt8](repeating: 0, count: 15) + [1]))
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

        // Signed out: the API answers JSON, and a browser opening the app gets a page that
        // says how to pair again, not that JSON as its whole page (round 13B).
        let refused = try #require(policy.accessRefusal(of: request))
        let type = { (response: HTTPResponse) in response.headers.first { $0.name == "Content-Type" }?.value ?? "" }
        #expect(refused.status == 401 && type(refused).hasPrefix("application/json"), "\(type(refused))")
        let opened = HTTPRequest(
            method: "GET", path: "/",
            headers: ["Host": "127.0.0.1:1", "Cookie": "midiccio_token=\(secret)", "Accept": "text/html,application/xhtml+xml,*/*;q=0.8"],
            serverPort: 1)
        let page = try #require(policy.accessRefusal(of: opened))
        #expect(page.status == 401 && type(page).hasPrefix("text/html"), "\(type(page))")
        #expect(String(decoding: page.body, as: UTF8.self).contains("scan the code in Settings"))
    }
}
