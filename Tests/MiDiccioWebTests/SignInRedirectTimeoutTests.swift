import Foundation
import MiDiccioKit
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// A sign-in the browser never comes back from ends after its timeout, and says so.
@Suite("The sign-in receiver gives up after its timeout")
struct SignInRedirectTimeoutTests {
    @Test("nothing arrives: the wait ends with 'no sign-in came back', and the port is free again")
    func timesOut() throws {
        let receiver = try SignInRedirectReceiver(mode: .receive) { try GoogleSignIn(space: .appData, clientID: "test", redirectURI: $0) }
        let port = receiver.port
        #expect(throws: SignInRedirectError.timedOut(seconds: 0.3)) { try receiver.waitForCode(timeout: 0.3) }
        #expect(SignInRedirectError.timedOut(seconds: 300).description == "no sign-in came back from the browser within 5 minutes")
        receiver.stop()
        #expect(throws: (any Error).self) {
            try RawHTTP.exchange(port: port, request: Data("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        }
    }
}
