import Foundation
import MiDiccioCloud
import MiDiccioOnline
import Testing

/// What `--no-browser` makes of the line a user pastes: the address the browser ended on
/// after Google's consent screen.
@Suite("Pasted sign-in addresses")
struct PastedSignInAddressTests {
    let signIn: GoogleSignIn

    init() throws {
        signIn = try GoogleSignIn(
            space: .appData, clientID: "test", redirectURI: "http://127.0.0.1:4711/", verifier: String(repeating: "a", count: 43),
            state: "Zm9vYmFyLXN0YXRl")
    }

    @Test(
        "the address the browser ended on gives the code, however it was copied",
        arguments: [
            "http://127.0.0.1:4711/?state=Zm9vYmFyLXN0YXRl&code=4%2F0AbCd-eF&scope=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fdrive.appdata",
            "  http://127.0.0.1:4711/?code=4%2F0AbCd-eF&state=Zm9vYmFyLXN0YXRl\r",
            "http://127.0.0.1:4711/?code=4/0AbCd-eF&state=Zm9vYmFyLXN0YXRl#",
            "127.0.0.1:4711/?code=4%2F0AbCd-eF&state=Zm9vYmFyLXN0YXRl",
            "code=4%2F0AbCd-eF&state=Zm9vYmFyLXN0YXRl",
        ])
    func goodAddress(text: String) {
        #expect(signIn.answer(toPastedAddress: text) == .code("4/0AbCd-eF"))
    }

    @Test(
        "an address with another state, or none, is not this sign-in's",
        arguments: [
            "http://127.0.0.1:4711/?code=4%2F0AbCd&state=older-attempt", "http://127.0.0.1:4711/?code=4%2F0AbCd",
            "http://127.0.0.1:4711/?code=4%2F0AbCd&state=", "http://127.0.0.1:4711/?code=4%2F0AbCd&state=zm9vymfylxn0yxrl",
            "http://127.0.0.1:4711/?error=access_denied&state=older-attempt",
        ])
    func wrongState(text: String) {
        #expect(signIn.answer(toPastedAddress: text) == .foreign)
    }

    @Test("a refused consent says the sign-in was cancelled in the browser")
    func accessDenied() {
        #expect(
            signIn.answer(toPastedAddress: "http://127.0.0.1:4711/?error=access_denied&state=Zm9vYmFyLXN0YXRl")
                == .refused("the sign-in was cancelled in the browser"))
        #expect(
            signIn.answer(toPastedAddress: "http://127.0.0.1:4711/?error=invalid_scope&state=Zm9vYmFyLXN0YXRl")
                == .refused("Google refused the sign-in (invalid_scope)"))
    }

    @Test(
        "anything else is no address at all",
        arguments: [
            "", "   ", "yes", "4/0AbCd-eF", "http://127.0.0.1:4711/", "http://127.0.0.1:4711/?state=Zm9vYmFyLXN0YXRl",
            "https://accounts.google.com/o/oauth2/v2/auth?client_id=test", "http://127.0.0.1:4711/?code=4 0&state=Zm9vYmFyLXN0YXRl",
            String(repeating: "x", count: 20_000), "%%%?%%%",
        ])
    func garbage(text: String) {
        #expect(signIn.answer(toPastedAddress: text) == .unreadable)
    }

    @Test("a code with the right state but empty, or absurdly long, is not taken")
    func emptyOrHugeCode() {
        #expect(signIn.answer(toPastedAddress: "http://127.0.0.1:4711/?code=&state=Zm9vYmFyLXN0YXRl") == .unreadable)
        #expect(
            signIn.answer(toPastedAddress: "http://127.0.0.1:4711/?code=\(String(repeating: "c", count: 5000))&state=Zm9vYmFyLXN0YXRl")
                == .unreadable)
    }
}
