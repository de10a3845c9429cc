import Dispatch
import Foundation
import MiDiccioKit
import Synchronization

/// The loopback end of a sign-in: a small server on `127.0.0.1` (libmicrohttpd, through
/// `HTTPServer`) that Google or Apple sends the browser back to, on a free port at `/`
/// (Google: `http://127.0.0.1:PORT/?code=...&state=...`) or on the port and path of a
/// fixed callback address (Apple: `http://127.0.0.1:47297/icloud-callback?ckWebAuthToken=...`).
///
/// It answers `GET` on its path only, with the same Host check and headers as the web app.
/// An answer whose `state` is missing or not this sign-in's is refused and the wait goes
/// on (it may come from an older sign-in or another page); the first answer of this
/// sign-in ends the wait: its code (or token), or the reason the browser gave for having
/// none. The browser gets a small page saying what happened, every text in it escaped.
public final class SignInRedirectReceiver<SignIn: LoopbackSignIn>: Sendable {
    /// What the receiver does with an answer.
    public typealias Mode = SignInReceiverMode

    /// The sign-in this receiver waits for.
    public let signIn: SignIn
    private let server: HTTPServer
    private let handler: RedirectHandler

    /// Starts listening on `127.0.0.1` on a free port, then makes the sign-in with
    /// `prepare(redirectURI)`, where `redirectURI` is `http://127.0.0.1:PORT/`.
    public init(mode: Mode, prepare: (_ redirectURI: String) throws -> SignIn) throws {
        let handler = RedirectHandler(mode: mode, path: "/")
        let server = try HTTPServer(host: "127.0.0.1", port: 0, threads: 2, handler: handler)
        do {
            signIn = try prepare("http://127.0.0.1:\(server.port)/")
        } catch {
            server.stop()
            throw error
        }
        handler.expect(signIn)
        self.server = server
        self.handler = handler
    }

    /// Starts listening on `127.0.0.1:port` for the answer to `signIn` at `path`.
    /// Throws `SignInRedirectError.portInUse` when the port cannot be had.
    public init(mode: Mode, port: UInt16, path: String, signIn: SignIn) throws(SignInRedirectError) {
        let handler = RedirectHandler(mode: mode, path: path)
        do {
            server = try HTTPServer(host: "127.0.0.1", port: port, threads: 2, handler: handler)
        } catch {
            throw .portInUse(port)
        }
        handler.expect(signIn)
        self.signIn = signIn
        self.handler = handler
    }

    /// The port it listens on.
    public var port: UInt16 { server.port }

    /// Waits up to `timeout` seconds for the answer to this sign-in and returns its
    /// authorization code (or token).
    ///
    /// Throws `SignInRedirectError.refused` when the browser came back without a code
    /// (the user cancelled), `.timedOut` when nothing with the right state came.
    public func waitForCode(timeout: TimeInterval) throws(SignInRedirectError) -> String {
        guard handler.arrived.wait(timeout: .now() + timeout) == .success else {
            throw .timedOut(seconds: timeout)
        }
        switch handler.outcome {
        case .code(let code)?: return code
        case .refused(let reason)?: throw .refused(reason)
        default: throw .timedOut(seconds: timeout)
        }
    }

    /// Stops listening (also done when the receiver goes away).
    public func stop() { server.stop() }

    deinit { server.stop() }
}

/// What the receiver does with an answer that carries this sign-in's code.
public enum SignInReceiverMode: Sendable {
    /// Hands the code to `waitForCode(timeout:)` and tells the browser it may close
    /// the tab.
    case receive
    /// `--no-browser`: the user pastes the address into the terminal, so the page
    /// only asks for that; the receiver keeps the port so that no other program on
    /// this computer can take it and be sent the code.
    case askToPaste
    /// The web app: the answer (a code, or why there is none) is handed to the
    /// closure at once, on the server's thread, and its response goes to the browser;
    /// `waitForCode(timeout:)` then returns (or throws) as for `.receive`.
    case handOver(@Sendable (SignInAnswer) -> HTTPResponse)
}

/// Why a sign-in through the loopback receiver ended without a code.
public enum SignInRedirectError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing with this sign-in's state arrived in time.
    case timedOut(seconds: TimeInterval)
    /// The browser came back without a code; the text says why.
    case refused(String)
    /// The callback's port is taken by another program.
    case portInUse(UInt16)

    public var description: String {
        switch self {
        case .timedOut(let seconds):
            let wait =
                seconds >= 60 ? "\(Int(seconds / 60)) minute\(Int(seconds / 60) == 1 ? "" : "s")" : "\(Int(seconds.rounded())) seconds"
            return "no sign-in came back from the browser within \(wait)"
        case .refused(let reason): return reason
        case .portInUse(let port):
            return "cannot listen on 127.0.0.1:\(port) for the sign-in's answer: another program (another midiccio?) uses that port"
        }
    }
}

/// The receiver's answers; called on libmicrohttpd's threads.
private final class RedirectHandler: HTTPHandler {
    /// The end of the wait: a code, or why there is none.
    enum Outcome: Sendable {
        case code(String)
        case refused(String)
    }

    let mode: SignInReceiverMode
    /// The path the answer comes to.
    let path: String
    /// Signalled once, when `outcome` is set and the browser has its page: only then may
    /// the caller stop the server without cutting that page off.
    let arrived = DispatchSemaphore(value: 0)
    private let policy = SecurityPolicy(host: "127.0.0.1", accessToken: nil)
    private let state = Mutex<(signIn: (any LoopbackSignIn)?, outcome: Outcome?, signalled: Bool)>((nil, nil, false))

    init(mode: SignInReceiverMode, path: String) {
        self.mode = mode
        self.path = path
    }

    func expect(_ signIn: any LoopbackSignIn) { state.withLock { $0.signIn = signIn } }

    var outcome: Outcome? { state.withLock { $0.outcome } }

    func bodyLimit(method: String, path: String) -> Int { 1024 }

    func payloadTooLarge(limit: Int, path: String) -> HTTPResponse {
        var response = SignInPage.response(413, title: "Too large", message: "This address takes no request body.")
        policy.harden(&response)
        return response
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        var response = policy.accessRefusal(of: request) ?? answer(request)
        policy.harden(&response)
        return response
    }

    func requestEnded() {
        let signal = state.withLock { state in
            guard state.outcome != nil, !state.signalled else { return false }
            state.signalled = true
            return true
        }
        if signal { arrived.signal() }
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        guard request.path == path else {
            return SignInPage.response(404, title: "Not found", message: "MiDiccio waits for the sign-in at \(path) only.")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = SignInPage.response(405, title: "Not allowed", message: "\(request.method) is not allowed here.")
            response.setHeader("Allow", "GET, HEAD")
            return response
        }
        if let refusal = SignInPage.refusingEmbedded(request) { return refusal }
        return state.withLock { state in
            guard let signIn = state.signIn else {
                return SignInPage.response(503, title: "Not ready", message: "MiDiccio is not waiting for a sign-in yet.")
            }
            if state.outcome != nil {
                return SignInPage.response(
                    200, title: "Sign-in already received", message: "MiDiccio has this sign-in already; you can close this tab.")
            }
            let answer = signIn.answer(to: request.query)
            switch answer {
            case .foreign:
                return SignInPage.response(
                    400, title: "Not this sign-in",
                    message:
                        "This address does not belong to the sign-in MiDiccio is waiting for (its state does not match). Use the sign-in address midiccio printed last."
                )
            case .unreadable:
                return SignInPage.response(
                    400, title: "No sign-in here", message: "This address carries neither a sign-in code nor an error.")
            case .refused(let reason):
                switch mode {
                case .receive:
                    state.outcome = .refused(reason)
                case .handOver(let finish):
                    state.outcome = .refused(reason)
                    return finish(answer)
                case .askToPaste:
                    break
                }
                return SignInPage.response(200, title: "Not signed in", message: "Not signed in: \(reason). You can close this tab.")
            case .code(let code):
                switch mode {
                case .receive:
                    state.outcome = .code(code)
                    return SignInPage.response(
                        200, title: "Signed in", message: "Signed in; you can close this tab and go back to the terminal.")
                case .handOver(let finish):
                    state.outcome = .code(code)
                    return finish(answer)
                case .askToPaste:
                    return SignInPage.response(
                        200, title: "Copy this address",
                        message: "Copy the address of this page from the address bar and paste it into the terminal where midiccio waits.")
                }
            }
        }
    }
}

/// The small pages a sign-in shows in the browser: a title and one paragraph, every text
/// escaped, no script and no style (the Content-Security-Policy allows neither inline).
enum SignInPage {
    /// Nil for a request a browser sends as a page of its own (the sign-in page sending it
    /// back), or one that does not say (an older browser, a command-line client); else the
    /// refusal of an answer a page of another site loaded inside itself (an image, a script,
    /// a frame, a fetch). Apple's answer carries no state of ours, so an `<img>` on any site
    /// open during a sign-in could answer it with a token of its own account, and the
    /// library then synced into that account (found by the exploratory helper, round 15B).
    static func refusingEmbedded(_ request: HTTPRequest) -> HTTPResponse? {
        let destination = request.header("Sec-Fetch-Dest"), mode = request.header("Sec-Fetch-Mode")
        guard (destination.map { $0 != "document" } ?? false) || (mode.map { $0 != "navigate" } ?? false) else { return nil }
        return response(
            403, title: "Not a sign-in page",
            message: "This answer was loaded inside another page (\(destination ?? mode ?? "?")), not sent back by the sign-in page; "
                + "MiDiccio ignored it and still waits for the sign-in.")
    }

    /// An HTML response with `status`.
    static func response(_ status: Int, title: String, message: String, link: (text: String, href: String)? = nil) -> HTTPResponse {
        var body = "<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>MiDiccio: \(escaped(title))</title></head>\n"
        body += "<body>\n<h1>\(escaped(title))</h1>\n<p>\(escaped(message))</p>\n"
        if let link { body += "<p><a href=\"\(escaped(link.href))\">\(escaped(link.text))</a></p>\n" }
        body += "</body>\n</html>\n"
        return HTTPResponse(status: status, contentType: "text/html; charset=utf-8", body: Data(body.utf8))
    }

    /// `text` made safe as HTML text or inside a quoted attribute.
    static func escaped(_ text: String) -> String { AppAssets.escapedAttribute(text) }
}
