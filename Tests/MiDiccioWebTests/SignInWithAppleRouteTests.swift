import Foundation
import MiDiccioKit
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// "Sign in with Apple" in Settings: the page starts a sign-in, Apple sends the browser
/// to the API token's callback (this server's own route, or a one-shot receiver on the
/// callback's port), and only the sign-in started from the page takes that answer, once.
@Suite("Sign in with Apple from the web app")
final class SignInWithAppleRouteTests {
    let fake: FakeCloudKit
    let startedHere: Bool
    let tenant: FakeCloudKitTenant
    let container = "iCloud.app.midiccio.web"

    init() throws {
        if let shared = FakeCloudKit.shared {
            fake = shared
            startedHere = false
        } else {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("CloudKit/server.sh").path
            fake = try FakeCloudKit.start(script: script)
            startedHere = true
        }
        tenant = fake.tenant("web-signin")
    }

    deinit {
        if startedHere { fake.stop() }
    }

    /// A web app whose iCloud values come from its environment, with the callback on
    /// `callbackPort` (the app's own port when nil).
    func web(callbackPort: Int?, accessToken: String? = nil, apiToken: Bool = true) throws -> WebFixture {
        let ownPort = try LoopbackPort.free()
        let callback = "http://127.0.0.1:\(callbackPort ?? ownPort)/icloud-callback"
        try tenant.configure(callbackURL: callback)
        var environment = tenant.environment.merging(
            ["MIDICCIO_ICLOUD_CONTAINER": container, "MIDICCIO_ICLOUD_CALLBACK_URL": callback]) { $1 }
        if apiToken { environment["MIDICCIO_ICLOUD_API_TOKEN"] = "WebToken1234" }
        return try WebFixture(accessToken: accessToken, environment: environment, port: UInt16(ownPort))
    }

    /// Plays Apple's sign-in page: GET `address` without following, and return where it
    /// sends the browser.
    func signInPage(_ address: String) throws -> String {
        let url = try #require(URLComponents(string: address))
        let target = url.percentEncodedPath + "?" + (url.percentEncodedQuery ?? "")
        let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port ?? 0)\r\nConnection: close\r\n\r\n"
        let answer = try RawHTTP.exchange(port: UInt16(url.port ?? 0), request: Data(request.utf8))
        try #require(answer.status == 302, "\(answer.status) \(answer.text)")
        return try #require(answer.headers["location"])
    }

    /// GET `address` on 127.0.0.1 (the callback), as the browser does; `fetchedAs` gives
    /// the browser's `Sec-Fetch-Dest` and `Sec-Fetch-Mode` (a top-level page's, when given).
    func visit(_ address: String, fetchedAs: (dest: String, mode: String)? = nil) throws -> RawResponse {
        let url = try #require(URLComponents(string: address))
        let target = url.percentEncodedPath + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        let fetch = fetchedAs.map { "Sec-Fetch-Dest: \($0.dest)\r\nSec-Fetch-Mode: \($0.mode)\r\nSec-Fetch-Site: cross-site\r\n" } ?? ""
        let request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(url.port ?? 0)\r\n\(fetch)Connection: close\r\n\r\n"
        return try RawHTTP.exchange(port: UInt16(url.port ?? 0), request: Data(request.utf8))
    }

    /// What the page is told after coming back to `location` (`.../?signin=ID#settings`).
    func outcome(_ web: WebFixture, _ location: String) throws -> (ok: Bool, message: String) {
        let id = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "signin" }?.value)
        let answer = try web.send("GET", "/api/signin?id=\(id)")
        return (answer.json["ok"] as? Bool ?? false, answer.json["message"] as? String ?? "")
    }

    @Test("the callback on serve's own port: signed in (0600), remote set, the page hears it once; the callback works once")
    func ownRoute() throws {
        let web = try web(callbackPort: nil)
        let start = try web.send(
            "POST", "/api/remote/icloud", json: #"{"environment": "development", "zone": "Web", "deviceName": "Kitchen"}"#)
        try #require(start.status == 200, "\(start.status) \(start.text)")
        let landing = try signInPage(try #require(start.json["url"] as? String))
        #expect(landing.hasPrefix("http://\(web.host)/icloud-callback?ckWebAuthToken="))

        let back = try visit(landing)
        #expect(back.status == 303)
        let location = try #require(back.headers["location"])
        #expect(location.hasPrefix("http://\(web.host)/?signin=") && location.hasSuffix("#settings"))
        let told = try outcome(web, location)
        #expect(told.ok, "\(told.message)")
        #expect(
            told.message == "Signed in to iCloud; this library now syncs through icloud iCloud.app.midiccio.web (development) zone Web.")

        let database = try #require(CloudKitDatabase(container: container, environment: .development, zone: "Web"))
        #expect(try web.library().remote() == .iCloud(database))
        #expect(try web.library().deviceName() == "Kitchen")
        let path = web.libraryPath + ".icloud"
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let stored = try #require(try ICloudCredentials.load(from: path))
        let status = try web.send("GET", "/api/status")
        #expect(status.json["remoteICloud"] as? String == container && status.json["iCloudSignedIn"] as? Bool == true)
        for text in [start.text, back.text, status.text] { #expect(!text.contains(stored.webAuthToken), "a token reached the page") }

        let again = try visit(landing)
        #expect(again.status == 400, "the answer is taken once")
        #expect(again.text.contains("Unknown sign-in"))
    }

    @Test(
        "an answer another site loads inside its page (an image, a script, a fetch) is ignored, on either port; the sign-in still waits for Apple's",
        arguments: [false, true])
    func embeddedAnswerIgnored(otherPort: Bool) throws {
        let web = try web(callbackPort: otherPort ? try LoopbackPort.free() : nil)
        let start = try web.send("POST", "/api/remote/icloud", json: "{}")
        try #require(start.status == 200, "\(start.status) \(start.text)")
        let landing = try signInPage(try #require(start.json["url"] as? String))
        for embedded in [("image", "no-cors"), ("script", "no-cors"), ("empty", "cors"), ("iframe", "navigate")] {
            let answer = try visit(landing, fetchedAs: embedded)
            #expect(answer.status == 403, "\(embedded): \(answer.status) \(answer.text)")
            #expect(answer.text.contains("MiDiccio ignored it and still waits for the sign-in"))
        }
        #expect(try web.library().remote() == nil, "no remote was set")
        // Apple's page sending the browser back, a page of its own: taken.
        let back = try visit(landing, fetchedAs: ("document", "navigate"))
        #expect(back.status == 303, "\(back.text)")
        #expect(try outcome(web, try #require(back.headers["location"])).ok)
    }

    @Test("the callback on another port: a one-shot receiver takes the answer and sends the browser back to the page")
    func oneShotReceiver() throws {
        let callbackPort = try LoopbackPort.free()
        let web = try web(callbackPort: callbackPort)
        let start = try web.send("POST", "/api/remote/icloud", json: "{}")
        try #require(start.status == 200, "\(start.status) \(start.text)")
        let landing = try signInPage(try #require(start.json["url"] as? String))
        #expect(landing.hasPrefix("http://127.0.0.1:\(callbackPort)/icloud-callback?"))

        let back = try visit(landing)
        #expect(back.status == 303, "\(back.text)")
        let location = try #require(back.headers["location"])
        #expect(location.hasPrefix("http://\(web.host)/?signin="))
        #expect(try outcome(web, location).ok)
        #expect(try web.library().remote() == .iCloud(try #require(CloudKitDatabase(container: container, environment: .production))))
        // The receiver gives its port back once it has answered.
        var released = false
        for _ in 0..<100 where !released {
            released = (try? visit(landing)) == nil
            if !released { usleep(20_000) }
        }
        #expect(released)
    }

    @Test("Apple gives no token: the page is told about Advanced Data Protection, and nothing changes")
    func noToken() throws {
        let web = try web(callbackPort: nil)
        try tenant.configure(deny: true)
        let start = try web.send("POST", "/api/remote/icloud", json: "{}")
        let back = try visit(try signInPage(try #require(start.json["url"] as? String)))
        let told = try outcome(web, try #require(back.headers["location"]))
        #expect(!told.ok)
        #expect(told.message.contains("accounts with Advanced Data Protection cannot use iCloud from the web"), "\(told.message)")
        #expect(told.message.hasSuffix("Nothing was changed."))
        #expect(try web.library().remote() == nil)
        #expect(!FileManager.default.fileExists(atPath: web.libraryPath + ".icloud"))
    }

    @Test("bad or missing values name their field; nothing is started")
    func badValues() throws {
        let web = try web(callbackPort: nil, apiToken: false)
        let noToken = try web.send("POST", "/api/remote/icloud", json: "{}")
        #expect(noToken.status == 400)
        #expect(noToken.json["field"] as? String == "icloudApiToken", "\(noToken.text)")
        let badContainer = try web.send("POST", "/api/remote/icloud", json: #"{"container": "<b>x</b>", "apiToken": "WebToken1234"}"#)
        #expect(badContainer.status == 400)
        #expect(badContainer.json["field"] as? String == "icloudContainer", "\(badContainer.text)")
        let status = try web.send("GET", "/api/status")
        #expect(status.json["iCloudApiToken"] as? Bool == false && status.json["iCloudContainer"] as? String == container)
        #expect(try visit("http://\(web.host)/icloud-callback?ckWebAuthToken=x").status == 400, "no sign-in is waiting")
        #expect(try web.send("POST", "/api/remote/icloud", json: "{}", csrf: .some(nil)).status == 403, "a write like every other")
    }

    @Test("with serve --token, the page is told to sign in from the command line")
    func withAccessToken() throws {
        let web = try web(callbackPort: nil, accessToken: "t0ken-for-tests")
        let answer = try web.send(
            "POST", "/api/remote/icloud", body: Data("{}".utf8), headers: ["Authorization": "Bearer t0ken-for-tests"])
        #expect(answer.status == 409, "\(answer.status) \(answer.text)")
        #expect(answer.text.contains("midiccio remote set icloud --no-browser"))
    }
}
