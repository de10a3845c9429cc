import Foundation
import MiDiccioKit
import Synchronization

/// "Sign in with Apple" in Settings:
///
/// 1. `POST /api/remote/icloud` (a write: Host, Origin and CSRF token checked like every
///    other) asks CloudKit for Apple's sign-in page and answers its address; the page
///    goes there. The API token's callback address is fixed in the CloudKit Console, so
///    the answer comes back there: to this server's own route when the callback is this
///    server's port, else to a one-shot receiver started on the callback's port for up to
///    10 minutes.
/// 2. Apple sends the browser to the callback with `ckWebAuthToken` (or none). Apple's
///    callback carries no state of ours, so only the one sign-in started from the page,
///    unexpired and not used before, takes an answer; any other request there is
///    refused. The token is checked with CloudKit, the sign-in stored (0600, beside the
///    library) and the remote set, and the browser is sent back to the page with
///    `?signin=ID`, where `GET /api/signin?id=ID` tells what happened, once.
///
/// The tokens stay on the server: the page never receives them.
extension WebApp {
    /// `{"container": ID, "environment": NAME, "zone": NAME, "apiToken": TOKEN, "deviceName": NAME}`
    /// → `{"url": Apple's sign-in page}`. Each may be left out when the environment or the
    /// build gives it (or it has a default).
    func startICloudSignIn(_ request: HTTPRequest) throws -> HTTPResponse {
        guard policy.accessToken == nil else {
            // As for Google: Apple sends the browser back to this computer's loopback
            // address, and the access cookie does not come with a navigation from Apple.
            return .error(
                409,
                "Sign in with Apple works when 'midiccio serve' runs on the computer with the browser, without --token; "
                    + "on another computer, sign in from its command line: midiccio remote set icloud --no-browser")
        }
        let body = try JSONBody(request.body)
        let given = (
            container: try body.string("container"), environment: try body.string("environment"), zone: try body.string("zone"),
            apiToken: try body.string("apiToken")
        )
        let settings: ICloudSignInSettings
        do {
            settings = try ICloudSignInSettings.resolve(
                container: given.container, environment: given.environment, zone: given.zone, apiToken: given.apiToken,
                variables: environment)
        } catch {
            throw Self.badRequest(error)
        }
        let deviceName = try body.string("deviceName").flatMap { $0.isEmpty ? nil : $0 }
        let signIn: ICloudSignIn
        do {
            signIn = try ICloudSignIn.start(settings, endpoints: CloudKitEndpoints.from(environment: environment))
        } catch {
            return .error(502, error.description)
        }
        // The Host header already passed the loopback check.
        let page = "http://\(request.header("host") ?? "127.0.0.1:\(request.serverPort)")"
        let pending = PendingICloudSignIn(signIn: signIn, deviceName: deviceName, page: page)
        let callback = settings.callback
        iCloudSignIns.stopReceiver()
        if callback.port == request.serverPort {
            iCloudSignIns.start(pending, receiver: nil)
        } else {
            let receiver: SignInRedirectReceiver<ICloudSignIn>
            do {
                receiver = try SignInRedirectReceiver(
                    mode: .handOver { [weak self] answer in
                        self?.finishICloudSignIn(answer, ownRoute: false)
                            ?? SignInPage.response(503, title: "Gone", message: "MiDiccio stopped.")
                    }, port: callback.port, path: callback.path, signIn: signIn)
            } catch {
                return .error(409, "\(error); stop that program, or sign in from the command line: midiccio remote set icloud --no-browser")
            }
            iCloudSignIns.start(pending, receiver: receiver)
            // One answer, or 10 minutes; then the port is given back.
            Thread.detachNewThread {
                _ = try? receiver.waitForCode(timeout: TimeInterval(ICloudSignInDesk.lifetime / 1000))
                receiver.stop()
            }
        }
        return .json(JSONText.object([("url", JSONText.quote(signIn.signInURL))]))
    }

    /// The page's field for each setting.
    private static func badRequest(_ problem: ICloudSignInSettings.Problem) -> BadRequest {
        switch problem {
        case .missing(.container):
            return BadRequest(message: "give the CloudKit container's id (iCloud.…)", field: "icloudContainer")
        case .missing(.apiToken):
            return BadRequest(
                message: "give the container's API token (the README's \"Sync through iCloud\" says how to make one)",
                field: "icloudApiToken")
        case .missing(let field):
            return BadRequest(message: "\(field.rawValue) is missing", field: nil)
        case .invalid(let field, let origin, let reason):
            let name = [
                "container": "icloudContainer", "environment": "icloudEnvironment", "zone": "icloudZone", "apiToken": "icloudApiToken",
            ][
                field.rawValue]
            let what = origin == .given ? "this" : "the \(origin.rawValue) \(field.rawValue)"
            return BadRequest(message: "\(what) \(reason)", field: origin == .given ? name : nil)
        }
    }

    /// A request to this server's own path when the callback is this server: the answer
    /// of the sign-in started from the page, if one waits here; nil when none does.
    func iCloudCallbackHere(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "GET" || request.method == "HEAD", let waiting = iCloudSignIns.waitingHere,
            waiting.signIn.settings.callback.path == request.path
        else { return nil }
        if let refusal = SignInPage.refusingEmbedded(request) { return refusal }
        return finishICloudSignIn(waiting.signIn.answer(to: request.query), ownRoute: true)
    }

    /// Apple's answer: checks the token, stores the sign-in, sets the remote, and sends
    /// the browser back to Settings.
    func finishICloudSignIn(_ answer: SignInAnswer, ownRoute: Bool) -> HTTPResponse {
        guard let pending = iCloudSignIns.take(ownRoute: ownRoute) else { return Self.unknownICloudSignIn() }
        let outcome: (ok: Bool, message: String)
        switch answer {
        case .code(let token):
            outcome = completeICloudSignIn(pending, token: token)
        case .refused(let reason):
            outcome = (false, "Not signed in: \(reason). Nothing was changed.")
        case .unreadable, .foreign:
            outcome = (false, "Apple sent no usable sign-in back. Nothing was changed.")
        }
        var response = HTTPResponse(status: 303, contentType: nil, body: Data())
        response.setHeader("Location", "\(pending.page)/?signin=\(googleSignIns.record(ok: outcome.ok, message: outcome.message))#settings")
        return response
    }

    /// The page for an answer no sign-in waits for (the default callback path, when no
    /// sign-in started from the page waits here).
    static func unknownICloudSignIn() -> HTTPResponse {
        SignInPage.response(
            400, title: "Unknown sign-in",
            message:
                "This sign-in is not one MiDiccio started, was already used, or is older than 10 minutes. Start it again from Settings.",
            link: ("Back to MiDiccio", "/#settings"))
    }

    private func completeICloudSignIn(_ pending: PendingICloudSignIn, token: String) -> (ok: Bool, message: String) {
        let credentials: ICloudCredentials
        do {
            credentials = try pending.signIn.finish(webAuthToken: token, endpoints: CloudKitEndpoints.from(environment: environment))
        } catch {
            return (false, "Not signed in: \(error). Nothing was changed.")
        }
        let remote = RemoteConfig.iCloud(pending.signIn.settings.database)
        do {
            try pool.withLibrary { library in
                try library.storeICloudCredentials(credentials)
                do {
                    if let name = pending.deviceName { try library.setDeviceName(name) }
                    _ = try library.setRemote(
                        remote, endingGoogleSignInWith: GoogleDriveEndpoints.from(environment: environment), signedIn: true)
                } catch {
                    if case .iCloud? = try? library.remote() {
                    } else {
                        try? ICloudCredentials.remove(at: library.iCloudCredentialsPath)
                    }
                    throw error
                }
            }
        } catch {
            return (false, "Signed in, but the remote could not be set: \(error)")
        }
        return (true, "Signed in to iCloud; this library now syncs through \(remote.displayName).")
    }

    /// What Settings needs to offer iCloud: the container and environment at hand,
    /// whether an API token is (else the page asks for one), and whether signing in from
    /// the page can work at all. Never a token.
    func iCloudSignInFields(_ library: WordLibrary, remote: RemoteConfig?) -> [(String, String)] {
        let prefill = ICloudSignInSettings.prefill(variables: environment)
        var pairs = [
            ("iCloudContainer", JSONText.optional(prefill.container)), ("iCloudEnvironment", JSONText.quote(prefill.environment.rawValue)),
            ("iCloudApiToken", String(prefill.apiTokenAtHand)), ("iCloudSignInAvailable", String(policy.accessToken == nil)),
        ]
        if case .iCloud(let database)? = remote {
            let signedIn = (try? ICloudCredentials.load(from: library.iCloudCredentialsPath))??.covers(database) == true
            pairs += [
                ("remoteICloud", JSONText.quote(database.container)),
                ("remoteICloudEnvironment", JSONText.quote(database.environment.rawValue)),
                ("remoteICloudZone", JSONText.quote(database.zone)), ("iCloudSignedIn", String(signedIn)),
            ]
        }
        return pairs
    }
}

/// A sign-in the page started: what the callback needs to finish it.
struct PendingICloudSignIn: Sendable {
    /// The container, API token and callback, and Apple's page.
    var signIn: ICloudSignIn
    /// The device name typed with it, if any.
    var deviceName: String?
    /// The page's own address (`http://127.0.0.1:PORT`), to send the browser back to.
    var page: String
}

/// The one iCloud sign-in the web app waits for, and the receiver listening for it when
/// the callback is not this server's port; in memory only. A sign-in lasts 10 minutes
/// and takes one answer; starting another ends the one before.
final class ICloudSignInDesk: Sendable {
    /// How long a started sign-in waits (milliseconds).
    static let lifetime: Int64 = 10 * 60 * 1000

    private struct Waiting: Sendable {
        var pending: PendingICloudSignIn
        var ownRoute: Bool
        var created: Int64
    }

    private let now: @Sendable () -> Int64
    private let state = Mutex<(waiting: Waiting?, receiver: SignInRedirectReceiver<ICloudSignIn>?)>((nil, nil))

    init(now: @escaping @Sendable () -> Int64) { self.now = now }

    /// Waits for `pending`'s answer: on this server's own route when `receiver` is nil.
    func start(_ pending: PendingICloudSignIn, receiver: SignInRedirectReceiver<ICloudSignIn>?) {
        let time = now()
        let old = state.withLock { state in
            defer { state = (Waiting(pending: pending, ownRoute: receiver == nil, created: time), receiver) }
            return state.receiver
        }
        if let old, old !== receiver { old.stop() }
    }

    /// Stops the receiver of the sign-in waiting now, if any, giving its port back.
    func stopReceiver() {
        let old = state.withLock { state in
            defer { state.receiver = nil }
            return state.receiver
        }
        old?.stop()
    }

    /// The unexpired sign-in waiting on this server's own route, if any (not taken).
    var waitingHere: PendingICloudSignIn? {
        let time = now()
        return state.withLock { state in
            guard let waiting = state.waiting, waiting.ownRoute, time - waiting.created < Self.lifetime else { return nil }
            return waiting.pending
        }
    }

    /// The unexpired sign-in waiting where the answer came (this server's route, or the
    /// receiver), removed so it cannot be used again. The receiver, on whose thread this
    /// runs, stops itself once its page is sent.
    func take(ownRoute: Bool) -> PendingICloudSignIn? {
        let time = now()
        return state.withLock { state in
            guard let waiting = state.waiting, waiting.ownRoute == ownRoute, time - waiting.created < Self.lifetime else { return nil }
            state.waiting = nil
            if !ownRoute { state.receiver = nil }
            return waiting.pending
        }
    }
}
