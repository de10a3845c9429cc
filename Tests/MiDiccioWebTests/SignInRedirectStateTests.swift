import Foundation
import MiDiccioKit
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// The loopback receiver `midiccio remote set gdrive` waits on: only the answer that
/// carries this sign-in's state ends the wait; anything else is refused and the wait goes
/// on.
@Suite("The sign-in receiver checks the state")
final class SignInRedirectStateTests {
    let receiver: SignInRedirectReceiver<GoogleSignIn>

    init() throws {
        receiver = try SignInRedirectReceiver(mode: .receive) { redirectURI in
            try GoogleSignIn(
                space: .appData, clientID: "test", redirectURI: redirectURI, verifier: String(repeating: "v", count: 43),
                state: "this-sign-in-state")
        }
    }

    func get(_ target: String, host: String? = nil, method: String = "GET") throws -> RawResponse {
        let request = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(receiver.port)")\r\nConnection: close\r\n\r\n"
        return try RawHTTP.exchange(port: receiver.port, request: Data(request.utf8))
    }

    @Test("it listens on 127.0.0.1 on a free port, and that is the sign-in's redirect address")
    func redirectAddress() {
        #expect(receiver.signIn.redirectURI == "http://127.0.0.1:\(receiver.port)/")
        #expect(receiver.port != 0)
    }

    @Test(
        "an answer without this sign-in's state is refused, and the wait goes on to the right one",
        arguments: [
            "/?code=4%2Fstolen", "/?code=4%2Fstolen&state=other", "/?code=4%2Fstolen&state=THIS-SIGN-IN-STATE",
            "/?error=access_denied&state=x",
        ])
    func wrongStateIsRefused(target: String) throws {
        let refused = try get(target)
        #expect(refused.status == 400)
        #expect(refused.text.contains("does not belong to the sign-in MiDiccio is waiting for"))
        #expect(throws: SignInRedirectError.timedOut(seconds: 0.2)) { try self.receiver.waitForCode(timeout: 0.2) }

        let accepted = try get("/?code=4%2F0Agood&state=this-sign-in-state&scope=x")
        #expect(accepted.status == 200)
        #expect(accepted.text.contains("Signed in; you can close this tab"))
        #expect(try receiver.waitForCode(timeout: 5) == "4/0Agood")
    }

    @Test("only the first right answer counts; a reload is told the sign-in is already in")
    func firstAnswerCounts() throws {
        _ = try get("/?code=first&state=this-sign-in-state")
        let again = try get("/?code=second&state=this-sign-in-state")
        #expect(again.text.contains("MiDiccio has this sign-in already"))
        #expect(try receiver.waitForCode(timeout: 5) == "first")
    }

    @Test("a cancelled consent ends the wait with the reason, shown to the browser too")
    func cancelled() throws {
        let page = try get("/?error=access_denied&state=this-sign-in-state")
        #expect(page.text.contains("Not signed in: the sign-in was cancelled in the browser."))
        #expect(throws: SignInRedirectError.refused("the sign-in was cancelled in the browser")) {
            try self.receiver.waitForCode(timeout: 5)
        }
    }

    @Test("another error is named, reduced to plain characters, and escaped in the page")
    func otherErrorIsEscaped() throws {
        let page = try get("/?error=%3Cscript%3Ealert(1)%3C%2Fscript%3E&state=this-sign-in-state")
        #expect(!page.text.contains("<script>"))
        #expect(page.text.contains("Google refused the sign-in (scriptalert1script)"))
        #expect(page.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
    }

    @Test("other addresses, methods and host names are refused without ending the wait")
    func strayRequests() throws {
        #expect(try get("/favicon.ico").status == 404)
        #expect(try get("/?code=x&state=this-sign-in-state", method: "POST").status == 405)
        #expect(try get("/?code=x&state=this-sign-in-state", host: "evil.example:\(receiver.port)").status == 421)
        #expect(throws: SignInRedirectError.timedOut(seconds: 0.2)) { try self.receiver.waitForCode(timeout: 0.2) }
    }

    @Test("with --no-browser the page asks to paste its address and the receiver hands nothing over")
    func pasteMode() throws {
        let pasting = try SignInRedirectReceiver(mode: .askToPaste) { redirectURI in
            try GoogleSignIn(
                space: .appData, clientID: "test", redirectURI: redirectURI, verifier: String(repeating: "v", count: 43), state: "s")
        }
        let request = "GET /?code=c&state=s HTTP/1.1\r\nHost: 127.0.0.1:\(pasting.port)\r\nConnection: close\r\n\r\n"
        let page = try RawHTTP.exchange(port: pasting.port, request: Data(request.utf8))
        #expect(page.text.contains("Copy the address of this page"))
        #expect(throws: SignInRedirectError.timedOut(seconds: 0.1)) { try pasting.waitForCode(timeout: 0.1) }
    }
}
