import Foundation
import MiDiccioCloud
import MiDiccioOnline
import Testing

/// The PKCE pair of a Google sign-in (RFC 7636, S256), checked against the RFC's own
/// worked example, so the hash and the encoding are known to be right, not merely
/// self-consistent.
@Suite("PKCE challenge")
struct PKCEChallengeTests {
    /// RFC 7636, appendix B: the 32 random octets, the verifier they encode to, and its
    /// published S256 challenge.
    static let octets: [UInt8] = [
        116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240, 91, 88, 5, 88,
        83, 132, 141, 121,
    ]
    static let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    @Test("RFC 7636's example: the octets encode to the verifier, whose S256 challenge is the published one")
    func knownAnswer() throws {
        #expect(GoogleSignIn.base64URL(Self.octets) == Self.verifier)
        #expect(try GoogleSignIn.challenge(for: Self.verifier) == Self.challenge)
        let signIn = try GoogleSignIn(
            space: .appData, clientID: "test", redirectURI: "http://127.0.0.1:1/", verifier: Self.verifier, state: "s")
        #expect(signIn.challenge == Self.challenge)
    }

    @Test("a new sign-in has a verifier of 43 unreserved characters and a state of its own, never repeated")
    func freshValues() throws {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        var seen = Set<String>()
        for _ in 0..<50 {
            let signIn = try GoogleSignIn(space: .appData, clientID: "test", redirectURI: "http://127.0.0.1:1/")
            #expect(signIn.verifier.count == 43)
            #expect(signIn.verifier.unicodeScalars.allSatisfy(unreserved.contains))
            #expect(signIn.state.count >= 32)
            #expect(signIn.challenge == (try GoogleSignIn.challenge(for: signIn.verifier)))
            seen.insert(signIn.verifier)
            seen.insert(signIn.state)
        }
        #expect(seen.count == 100)
    }

    @Test("the sign-in address asks for the code with PKCE, the space's scope and a refresh token")
    func authorizationAddress() throws {
        let signIn = try GoogleSignIn(
            space: .folder("Mis palabras"), clientID: "1234-abc.apps.googleusercontent.com", redirectURI: "http://127.0.0.1:4711/",
            verifier: Self.verifier, state: "st4te")
        let address = signIn.authorizationURL(at: .google)
        #expect(address.hasPrefix("https://accounts.google.com/o/oauth2/v2/auth?"))
        let items = try #require(URLComponents(string: address)?.queryItems)
        let query = Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        #expect(
            query == [
                "client_id": "1234-abc.apps.googleusercontent.com", "redirect_uri": "http://127.0.0.1:4711/", "response_type": "code",
                "scope": "https://www.googleapis.com/auth/drive.file", "state": "st4te", "code_challenge": Self.challenge,
                "code_challenge_method": "S256", "access_type": "offline", "prompt": "consent",
            ])
        #expect(!address.contains(Self.verifier), "the verifier goes to Google only with the code")
    }

    @Test("neither the verifier nor the state shows when a sign-in is printed or dumped")
    func secretsStayHidden() throws {
        let signIn = try GoogleSignIn(
            space: .appData, clientID: "test", redirectURI: "http://127.0.0.1:1/", verifier: Self.verifier, state: "st4te-value")
        var dumped = ""
        dump(signIn, to: &dumped)
        for text in ["\(signIn)", dumped, String(reflecting: signIn)] {
            #expect(!text.contains(Self.verifier) && !text.contains("st4te-value"))
        }
    }
}
