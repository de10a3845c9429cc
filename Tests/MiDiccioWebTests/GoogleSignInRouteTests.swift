import Foundation
import MiDiccioKit
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// "Sign in with Google" in Settings: the page starts a sign-in, Google sends the browser
/// back to `/oauth/callback`, and only the state this server handed out lets that answer
/// in, once, within 10 minutes.
@Suite("Sign in with Google from the web app")
final class GoogleSignInRouteTests {
    let tokens: StandInTokenService
    let tokenServer: HTTPServer
    let clock = ManualClock()
    let web: WebFixture

    init() throws {
        (tokens, tokenServer) = try StandInTokenService.start()
        let clock = clock
        web = try WebFixture(environment: Self.endpoints(tokenServer), now: { clock.now().milliseconds })
    }

    /// Sign-in and Drive requests both go to the stand-in, never to Google.
    static func endpoints(_ server: HTTPServer) -> [String: String] {
        [
            GoogleDriveEndpoints.oauthVariable: "http://127.0.0.1:\(server.port)/oauth",
            GoogleDriveEndpoints.apiVariable: "http://127.0.0.1:\(server.port)/api",
        ]
    }

    deinit { tokenServer.stop() }

    /// Presses "Sign in with Google" and returns the address the page is sent to.
    func start(_ json: String = #"{"clientId": "test", "clientSecret": "s3cret", "folder": ""}"#) throws -> String {
        let answer = try web.send("POST", "/api/remote/gdrive", json: json)
        try #require(answer.status == 200, "\(answer.status) \(answer.text)")
        return try #require(answer.json["url"] as? String)
    }

    var credentialsPath: String { web.libraryPath + ".google-drive" }

    @Test("Google's answer with the right state stores the sign-in (0600) and sets the remote; the page hears it once")
    func rightStateSignsIn() throws {
        let address = try start(#"{"clientId": "test", "clientSecret": "s3cret", "folder": "Mis palabras", "deviceName": "Kitchen PC"}"#)
        let query = try #require(URLComponents(string: address)?.queryItems)
        let parameter = { (name: String) in query.first { $0.name == name }?.value }
        #expect(address.hasPrefix("http://127.0.0.1:\(tokenServer.port)/oauth/authorize?"))
        #expect(parameter("redirect_uri") == "http://127.0.0.1:\(web.server.port)/oauth/callback")
        #expect(parameter("scope") == "https://www.googleapis.com/auth/drive.file")
        #expect(parameter("code_challenge_method") == "S256")
        #expect(!address.contains("s3cret"), "the secret stays on the server")

        let back = try web.send("GET", tokens.consent(to: address))
        #expect(back.status == 303)
        let location = try #require(back.headers["location"])
        #expect(location.hasPrefix("/?signin=") && location.hasSuffix("#settings"))
        #expect(tokens.exchanges.withLock { $0 } == 1)

        let library = try web.library()
        #expect(try library.remote() == .googleDrive(.folder("Mis palabras")))
        #expect(try library.deviceName() == "Kitchen PC")
        let mode = try FileManager.default.attributesOfItem(atPath: credentialsPath)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        let stored = try #require(try GoogleDriveCredentials.load(from: credentialsPath))
        #expect(stored.refreshToken.hasPrefix("refresh-") && stored.clientSecret == "s3cret")

        let id = String(location.dropFirst("/?signin=".count).dropLast("#settings".count))
        let outcome = try web.send("GET", "/api/signin?id=\(id)")
        #expect(outcome.json["ok"] as? Bool == true)
        #expect(
            outcome.json["message"] as? String
                == "Signed in to Google Drive; this library now syncs through google drive folder Mis palabras.")
        #expect(try web.send("GET", "/api/signin?id=\(id)").status == 404, "an outcome is given once")
        for answer in [outcome.text, back.text] {
            for secret in [stored.refreshToken, stored.accessToken ?? "-", "s3cret"] { #expect(!answer.contains(secret)) }
        }
    }

    @Test(
        "an answer with a missing or wrong state is refused and changes nothing",
        arguments: ["/oauth/callback?code=4%2Fstolen", "/oauth/callback?code=4%2Fstolen&state=guess", "/oauth/callback?state=&code=x"])
    func wrongStateIsRefused(target: String) throws {
        _ = try start()
        let answer = try web.send("GET", target)
        #expect(answer.status == 400)
        #expect(answer.text.contains("This sign-in is not one MiDiccio started"))
        #expect(answer.headers["content-type"] == "text/html; charset=utf-8")
        #expect(answer.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
        #expect(tokens.exchanges.withLock { $0 } == 0, "no code was exchanged")
        #expect(try web.library().remote() == nil)
        #expect(!FileManager.default.fileExists(atPath: credentialsPath))
    }

    @Test("the right state in an answer sent to another host name is refused like any foreign request")
    func foreignHost() throws {
        let back = tokens.consent(to: try start())
        #expect(try web.send("GET", back, host: "evil.example:\(web.server.port)").status == 421)
        #expect(try web.send("GET", back).status == 303, "the sign-in was not used up by the refused request")
    }

    @Test("a state is good for one answer only")
    func stateIsUsedOnce() throws {
        let address = try start()
        let back = tokens.consent(to: address)
        #expect(try web.send("GET", back).status == 303)
        try web.library().setRemote(nil)
        #expect(try web.send("GET", tokens.consent(to: address)).status == 400)
        #expect(try web.library().remote() == nil)
    }

    @Test("a sign-in left unanswered for 10 minutes has expired")
    func signInExpires() throws {
        let address = try start()
        clock.advance(by: 10 * 60 * 1000)
        #expect(try web.send("GET", tokens.consent(to: address)).status == 400)
        #expect(try web.library().remote() == nil)
        clock.advance(by: -60 * 1000)
        let fresh = try start()
        clock.advance(by: 9 * 60 * 1000)
        #expect(try web.send("GET", tokens.consent(to: fresh)).status == 303)
    }

    @Test("a consent refused in the browser changes nothing, and the page hears why")
    func refusedConsent() throws {
        let back = try web.send("GET", tokens.consent(to: try start(), deny: true))
        #expect(back.status == 303)
        let location = try #require(back.headers["location"])
        let id = String(location.dropFirst("/?signin=".count).dropLast("#settings".count))
        let outcome = try web.send("GET", "/api/signin?id=\(id)").json
        #expect(outcome["ok"] as? Bool == false)
        #expect(outcome["message"] as? String == "Not signed in: the sign-in was cancelled in the browser. Nothing was changed.")
        #expect(try web.library().remote() == nil)
        #expect(!FileManager.default.fileExists(atPath: credentialsPath))
    }

    @Test("starting a sign-in is a write: without the page's CSRF token it is refused")
    func startNeedsCSRFToken() throws {
        let answer = try web.send("POST", "/api/remote/gdrive", json: #"{"clientId": "test"}"#, csrf: .some(nil))
        #expect(answer.status == 403)
    }

    @Test("without a client id, built in or in the environment, the page is asked for one")
    func clientIdIsAskedFor() throws {
        let status = try web.send("GET", "/api/status").json
        #expect(status["googleClient"] is NSNull)
        #expect(status["googleSignInAvailable"] as? Bool == true)
        let answer = try web.send("POST", "/api/remote/gdrive", json: #"{"folder": ""}"#)
        #expect(answer.status == 400)
        #expect(answer.json["field"] as? String == "gdriveClientId")
        let badFolder = try web.send("POST", "/api/remote/gdrive", json: #"{"clientId": "test", "folder": "a/b"}"#)
        #expect(badFolder.json["field"] as? String == "gdriveFolder")
    }

    @Test("a client named by the environment needs no typing, and its secret never reaches the page")
    func clientFromEnvironment() throws {
        let web = try WebFixture(
            environment: Self.endpoints(tokenServer).merging(
                [GoogleOAuthClient.idVariable: "env-client", GoogleOAuthClient.secretVariable: "env-s3cret"]) { $1 })
        let status = try web.send("GET", "/api/status")
        #expect(status.json["googleClient"] as? String == "environment")
        let started = try web.send("POST", "/api/remote/gdrive", json: #"{"folder": ""}"#)
        let address = try #require(started.json["url"] as? String)
        #expect(address.contains("client_id=env-client"))
        #expect(!(status.text + started.text).contains("env-s3cret"))
        #expect(try web.send("GET", tokens.consent(to: address)).status == 303)
        #expect(try web.library().remote() == .googleDrive(.appData))
        let statusAfter = try web.send("GET", "/api/status")
        #expect(statusAfter.json["remoteGoogleDrive"] as? String == "appdata")
        #expect(statusAfter.json["googleSignedIn"] as? Bool == true)
    }

    @Test("a server that needs an access token refuses: Google's redirect would come back without its cookie")
    func accessTokenServerRefuses() throws {
        let guarded = try WebFixture(accessToken: "t0ken-for-tests")
        let answer = try guarded.send(
            "POST", "/api/remote/gdrive", body: Data(#"{"clientId": "test"}"#.utf8), headers: ["Authorization": "Bearer t0ken-for-tests"])
        #expect(answer.status == 409)
        #expect((answer.json["error"] as? String)?.contains("midiccio remote set gdrive --no-browser") == true)
    }
}
