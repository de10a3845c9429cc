import Foundation
import MiDiccioKit
import Synchronization

/// "Sign in with Google" in Settings, in three requests:
///
/// 1. `POST /api/remote/gdrive` (a write: Host, Origin and CSRF token checked like every
///    other) makes a PKCE pair and a state, keeps them here for 10 minutes, and answers
///    the address of Google's sign-in page, whose redirect address is this server's
///    `http://127.0.0.1:PORT/oauth/callback`. The page goes there.
/// 2. Google sends the browser back to `GET /oauth/callback?code=...&state=...`. It is a
///    top-level navigation from Google's site, so it carries no CSRF token: the state is
///    its CSRF protection. Only a state this server handed out, unexpired and not used
///    before, is accepted; anything else is refused before the code is looked at. The
///    code is exchanged, the sign-in stored (0600, beside the library) and the remote
///    set, and the browser is sent back to the page with `?signin=ID`.
/// 3. `GET /api/signin?id=ID` gives the page what happened, once. The message is kept
///    here rather than written into the address, so a link cannot make the page show
///    words of someone else's choosing.
///
/// Tokens and the client secret stay on the server: the page never receives them.
extension WebApp {
    /// `{"folder": NAME or "", "clientId": ID, "clientSecret": SECRET, "deviceName": NAME}`
    /// → `{"url": the sign-in address}`. The client id and secret may be left out when
    /// one is built in or named by the environment.
    func startGoogleSignIn(_ request: HTTPRequest) throws -> HTTPResponse {
        guard policy.accessToken == nil else {
            // The redirect comes back to 127.0.0.1, the browser's own computer, and the
            // access cookie (SameSite=Strict) does not come with a navigation from Google.
            return .error(
                409,
                "Sign in with Google works when 'midiccio serve' runs on the computer with the browser, without --token; "
                    + "on another computer, sign in from its command line: midiccio remote set gdrive --no-browser")
        }
        let body = try JSONBody(request.body)
        let folder = try body.string("folder")?.trimmingCharacters(in: .whitespaces) ?? ""
        var space = GoogleDriveSpace.appData
        if !folder.isEmpty {
            if let problem = GoogleSignIn.problem(withFolderName: folder) { throw BadRequest(message: problem, field: "gdriveFolder") }
            space = .folder(folder)
        }
        let client = try Self.googleClient(body, environment: environment)
        let deviceName = try body.string("deviceName").flatMap { $0.isEmpty ? nil : $0 }
        let host = request.header("host") ?? ""
        // The Host header already passed the loopback check; an IPv6 server is reached as [::1].
        let redirectHost = host.hasPrefix("[::1]:") ? "[::1]" : "127.0.0.1"
        let signIn: GoogleSignIn
        do {
            signIn = try GoogleSignIn(
                space: space, clientID: client.id, redirectURI: "http://\(redirectHost):\(request.serverPort)/oauth/callback")
        } catch {
            return .error(500, error.description)
        }
        googleSignIns.start(PendingGoogleSignIn(signIn: signIn, client: client, deviceName: deviceName))
        let address = signIn.authorizationURL(at: GoogleDriveEndpoints.from(environment: environment))
        return .json(JSONText.object([("url", JSONText.quote(address))]))
    }

    /// The client typed into the page, else the built-in one or the environment's.
    private static func googleClient(_ body: JSONBody, environment: [String: String]) throws -> GoogleOAuthClient {
        let id = try body.string("clientId")?.trimmingCharacters(in: .whitespaces) ?? ""
        let secret = try body.string("clientSecret")?.trimmingCharacters(in: .whitespaces) ?? ""
        if id.isEmpty {
            guard var client = GoogleOAuthClient.standard(environment: environment) else {
                throw BadRequest(
                    message: "give your OAuth client's id (the README's \"Sync through Google Drive\" says how to make one)",
                    field: "gdriveClientId")
            }
            if !secret.isEmpty {
                guard let withSecret = GoogleOAuthClient(id: client.id, secret: secret, origin: client.origin) else {
                    throw BadRequest(message: "the client secret must be one line of visible characters", field: "gdriveClientSecret")
                }
                client = withSecret
            }
            return client
        }
        guard GoogleOAuthClient(id: id, secret: nil, origin: .given) != nil else {
            throw BadRequest(message: "this is not an OAuth client id (1234-abc.apps.googleusercontent.com)", field: "gdriveClientId")
        }
        guard let client = GoogleOAuthClient(id: id, secret: secret.isEmpty ? nil : secret, origin: .given) else {
            throw BadRequest(message: "the client secret must be one line of visible characters", field: "gdriveClientSecret")
        }
        return client
    }

    /// Google's answer: checks the state, exchanges the code, stores the sign-in, sets
    /// the remote, and sends the browser back to Settings.
    func finishGoogleSignIn(_ request: HTTPRequest) -> HTTPResponse {
        guard let sent = request.query["state"], let pending = googleSignIns.take(state: sent) else {
            return SignInPage.response(
                400, title: "Unknown sign-in",
                message:
                    "This sign-in is not one MiDiccio started, was already used, or is older than 10 minutes. Start it again from Settings.",
                link: ("Back to MiDiccio", "/#settings"))
        }
        let outcome: (ok: Bool, message: String)
        switch pending.signIn.answer(to: request.query) {
        case .code(let code):
            outcome = completeGoogleSignIn(pending, code: code)
        case .refused(let reason):
            outcome = (false, "Not signed in: \(reason). Nothing was changed.")
        case .unreadable, .foreign:
            outcome = (false, "Google sent no sign-in code back. Nothing was changed.")
        }
        var response = HTTPResponse(status: 303, contentType: nil, body: Data())
        response.setHeader("Location", "/?signin=\(googleSignIns.record(ok: outcome.ok, message: outcome.message))#settings")
        return response
    }

    private func completeGoogleSignIn(_ pending: PendingGoogleSignIn, code: String) -> (ok: Bool, message: String) {
        let signIn = pending.signIn
        let grant: GoogleTokenService.Grant
        do {
            grant = try GoogleTokenService(endpoints: GoogleDriveEndpoints.from(environment: environment)).exchange(
                code: code, verifier: signIn.verifier, redirectURI: signIn.redirectURI, clientID: pending.client.id,
                clientSecret: pending.client.secret)
        } catch {
            return (false, "Not signed in: \(error). Nothing was changed.")
        }
        guard let refreshToken = grant.refreshToken else { return (false, "Google gave no refresh token. Nothing was changed.") }
        let credentials = GoogleDriveCredentials(
            clientID: pending.client.id, clientSecret: pending.client.secret, refreshToken: refreshToken,
            scope: grant.scope ?? signIn.space.scope, accessToken: grant.accessToken, accessTokenExpiry: grant.expiry)
        guard credentials.covers(signIn.space) else {
            return (
                false,
                "Google gave access that does not reach the \(signIn.space.displayName) (was its box left unticked?). "
                    + "Nothing was changed; sign in again and allow it."
            )
        }
        let remote = RemoteConfig.googleDrive(signIn.space)
        do {
            try pool.withLibrary { library in
                try library.storeGoogleDriveCredentials(credentials)
                do {
                    if let name = pending.deviceName { try library.setDeviceName(name) }
                    try library.setRemote(remote, signedIn: true)
                } catch {
                    if case .googleDrive? = try? library.remote() {
                    } else {
                        try? GoogleDriveCredentials.remove(at: library.googleDriveCredentialsPath)
                    }
                    throw error
                }
            }
        } catch {
            return (false, "Signed in, but the remote could not be set: \(error)")
        }
        return (true, "Signed in to Google Drive; this library now syncs through \(remote.displayName).")
    }

    /// `GET /api/signin?id=ID`: `{"ok": true|false, "message": ...}`, once.
    func googleSignInOutcome(_ request: HTTPRequest) -> HTTPResponse {
        guard let id = request.query["id"], let outcome = googleSignIns.outcome(id: id) else {
            return .error(404, "no such sign-in")
        }
        return .json(JSONText.object([("ok", String(outcome.ok)), ("message", JSONText.quote(outcome.message))]))
    }

    /// What Settings needs to offer Google Drive: whether a client is at hand (built in
    /// or from the environment; else the page asks for one) and whether signing in from
    /// the page can work at all. Never the client's secret.
    func googleSignInFields(_ library: WordLibrary, remote: RemoteConfig?) -> [(String, String)] {
        var pairs = [
            ("googleClient", JSONText.optional(GoogleOAuthClient.standard(environment: environment)?.origin.rawValue)),
            ("googleSignInAvailable", String(policy.accessToken == nil)),
        ]
        if case .googleDrive(let space)? = remote {
            let folder: String? = if case .folder(let name) = space { name } else { nil }
            let signedIn = (try? GoogleDriveCredentials.load(from: library.googleDriveCredentialsPath)) != nil
            pairs += [
                ("remoteGoogleDrive", JSONText.quote(folder == nil ? "appdata" : "folder")),
                ("remoteGoogleFolder", JSONText.optional(folder)), ("googleSignedIn", String(signedIn)),
            ]
        }
        return pairs
    }
}

/// What became of a sign-in, for the page.
struct GoogleSignInOutcome: Sendable {
    /// True when the library is signed in and its remote set.
    var ok: Bool
    /// What happened, for people.
    var message: String
}

/// A sign-in the page started: what the callback needs to finish it.
struct PendingGoogleSignIn: Sendable {
    /// The PKCE pair, the state and the redirect address.
    var signIn: GoogleSignIn
    /// The OAuth client (with its secret, which stays on the server).
    var client: GoogleOAuthClient
    /// The device name typed with it, if any.
    var deviceName: String?
}

/// The web app's sign-ins waiting for Google, and the outcomes waiting for the page; in
/// memory only. Each lasts 10 minutes and is used once, and there are at most 16 of
/// each, so a page that keeps pressing the button cannot fill the memory.
final class GoogleSignInBook: Sendable {
    /// How long a started sign-in, or an outcome, is kept (milliseconds).
    static let lifetime: Int64 = 10 * 60 * 1000
    /// How many of each are kept at most; the oldest go first.
    static let capacity = 16

    private struct Entry<Value: Sendable>: Sendable {
        var value: Value
        var created: Int64
    }

    private let now: @Sendable () -> Int64
    private let state = Mutex<(pending: [Entry<PendingGoogleSignIn>], outcomes: [String: Entry<GoogleSignInOutcome>])>(([], [:]))

    init(now: @escaping @Sendable () -> Int64) { self.now = now }

    /// Keeps `pending` until its answer comes.
    func start(_ pending: PendingGoogleSignIn) {
        let time = now()
        state.withLock { state in
            state.pending.removeAll { time - $0.created >= Self.lifetime }
            state.pending.append(Entry(value: pending, created: time))
            if state.pending.count > Self.capacity { state.pending.removeFirst(state.pending.count - Self.capacity) }
        }
    }

    /// The unexpired sign-in whose state is `sent`, removed so it cannot be used again.
    func take(state sent: String) -> PendingGoogleSignIn? {
        let time = now()
        return state.withLock { state in
            state.pending.removeAll { time - $0.created >= Self.lifetime }
            // Every entry is compared in full, so timing says nothing about the states kept.
            var found: Int?
            for (index, entry) in state.pending.enumerated() where SecurityPolicy.constantTimeEqual(sent, entry.value.signIn.state) {
                found = index
            }
            guard let found else { return nil }
            return state.pending.remove(at: found).value
        }
    }

    /// Keeps what became of a sign-in for the page and returns the id to fetch it by.
    func record(ok: Bool, message: String) -> String {
        let id = SecurityPolicy.randomToken()
        let time = now()
        state.withLock { state in
            state.outcomes = state.outcomes.filter { time - $0.value.created < Self.lifetime }
            if state.outcomes.count >= Self.capacity, let oldest = state.outcomes.min(by: { $0.value.created < $1.value.created }) {
                state.outcomes.removeValue(forKey: oldest.key)
            }
            state.outcomes[id] = Entry(value: GoogleSignInOutcome(ok: ok, message: message), created: time)
        }
        return id
    }

    /// The outcome recorded under `id`, once.
    func outcome(id: String) -> GoogleSignInOutcome? {
        let time = now()
        return state.withLock { state in
            guard let entry = state.outcomes.removeValue(forKey: id), time - entry.created < Self.lifetime else { return nil }
            return entry.value
        }
    }
}
