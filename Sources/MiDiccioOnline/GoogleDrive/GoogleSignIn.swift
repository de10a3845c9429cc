import Foundation
import MiDiccioCloud

#if canImport(CCrypto)
import CCrypto
#elseif canImport(CryptoKit)
import CryptoKit
#endif

/// One sign-in to Google as an installed app (RFC 8252): the authorization code flow
/// with PKCE (RFC 7636, method S256) and a `state` that ties the answer to this very
/// request.
///
/// The user opens `authorizationURL(at:)` in a browser; Google sends the browser back to
/// `redirectURI` (this computer's loopback address) with `code` and `state`, and
/// `answer(to:)` checks them. The verifier goes to Google only with the code, in
/// `GoogleTokenService.exchange`, so a code caught on its way back is worth nothing to
/// anyone else. Nothing here is printed: `description` hides the verifier and the state.
public struct GoogleSignIn: LoopbackSignIn, CustomStringConvertible, CustomReflectable {
    /// Where MiDiccio's files go; its scope is the one asked for.
    public let space: GoogleDriveSpace
    /// The OAuth client id.
    public let clientID: String
    /// Where Google sends the browser back: `http://127.0.0.1:PORT/` (or serve's
    /// `/oauth/callback`).
    public let redirectURI: String
    /// The PKCE code verifier: 43 characters of base64url from 32 random bytes.
    public let verifier: String
    /// `BASE64URL(SHA256(verifier))`, without padding.
    public let challenge: String
    /// A random value Google hands back unchanged; an answer without it is not ours.
    public let state: String

    /// Why a sign-in could not be prepared.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, for people.
        public var description: String
    }

    /// What came back to the redirect address.
    public typealias Answer = SignInAnswer

    /// Prepares a sign-in with a fresh verifier and state from the system's secure
    /// random generator.
    public init(space: GoogleDriveSpace, clientID: String, redirectURI: String) throws(Failure) {
        try self.init(
            space: space, clientID: clientID, redirectURI: redirectURI, verifier: Self.base64URL(try Self.randomBytes(32)),
            state: Self.base64URL(try Self.randomBytes(24)))
    }

    /// A sign-in with a given verifier and state (tests replay known values).
    package init(space: GoogleDriveSpace, clientID: String, redirectURI: String, verifier: String, state: String) throws(Failure) {
        self.space = space
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.verifier = verifier
        self.state = state
        challenge = try Self.challenge(for: verifier)
    }

    /// Never shows the verifier or the state.
    public var description: String { "Google sign-in (client \(clientID), \(space.displayName))" }

    /// Never shows the verifier or the state, also not to `dump` or a debugger.
    public var customMirror: Mirror {
        Mirror(self, children: ["clientID": clientID, "space": space, "redirectURI": redirectURI, "secrets": "<hidden>"])
    }

    // MARK: - The address the user signs in at

    /// The sign-in page's address at `endpoints`: the client, the redirect address, the
    /// scope of `space`, the state and the S256 challenge; `access_type=offline` and
    /// `prompt=consent` so that Google gives a refresh token every time.
    public func authorizationURL(at endpoints: GoogleDriveEndpoints) -> String {
        let parameters = [
            ("client_id", clientID), ("redirect_uri", redirectURI), ("response_type", "code"), ("scope", space.scope),
            ("state", state), ("code_challenge", challenge), ("code_challenge_method", "S256"), ("access_type", "offline"),
            ("prompt", "consent"),
        ]
        let separator = endpoints.authorize.contains("?") ? "&" : "?"
        return endpoints.authorize + separator + GoogleTokenService.formBody(parameters)
    }

    /// Why `name` cannot name the visible Drive folder of `GoogleDriveSpace.folder`
    /// ("the folder name is empty"), or nil when it can.
    public static func problem(withFolderName name: String) -> String? {
        if name.trimmingCharacters(in: .whitespaces).isEmpty { return "the folder name is empty" }
        if name.count > 255 { return "the folder name is longer than 255 characters" }
        if name.contains("/") { return "the folder name contains '/' ('\(name)'); give the name of one folder" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "the folder name contains control characters"
        }
        return nil
    }

    // MARK: - The answer

    /// What the query of a request to the redirect address says. The state is compared
    /// first: without this sign-in's state nothing else in the query counts.
    public func answer(to query: [String: String]) -> Answer {
        guard let sent = query["state"], Self.constantTimeEqual(sent, state) else { return .foreign }
        if let error = query["error"] { return .refused(Self.refusal(error)) }
        guard let code = query["code"], !code.isEmpty, code.count <= 4096 else { return .unreadable }
        return .code(code)
    }

    /// What an address pasted by the user says: the whole address the browser showed
    /// (`http://127.0.0.1:PORT/?code=...&state=...`) or only its query.
    public func answer(toPastedAddress text: String) -> Answer {
        guard let query = SignInAnswer.query(ofPastedAddress: text, holdingOneOf: ["code", "error", "state"]),
            query["code"] != nil || query["error"] != nil
        else { return .unreadable }
        return answer(to: query)
    }

    /// What an `error` sent back means for people. Only `access_denied` (the user said
    /// no, or closed the consent screen) is common; the others are named, reduced to
    /// characters that cannot dress up as a message of ours.
    static func refusal(_ error: String) -> String {
        if error == "access_denied" { return "the sign-in was cancelled in the browser" }
        let code = String(error.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }.prefix(64))
        return "Google refused the sign-in (\(code.isEmpty ? "no reason given" : code))"
    }

    // MARK: - PKCE

    /// The S256 challenge of `verifier`: `BASE64URL(SHA256(ASCII(verifier)))` without
    /// padding (RFC 7636, section 4.2).
    public static func challenge(for verifier: String) throws(Failure) -> String {
        base64URL(try sha256(Array(verifier.utf8)))
    }

    /// `bytes` in base64url without padding (RFC 4648, section 5).
    public static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// `count` bytes from the system's secure random generator (libcrypto's `RAND_bytes`
    /// on Linux).
    static func randomBytes(_ count: Int) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        #if canImport(CCrypto)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else {
            throw Failure(description: "the secure random generator of this computer failed (libcrypto's RAND_bytes)")
        }
        #else
        // Apple platforms: arc4random, the system's secure generator.
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        #endif
        return bytes
    }

    /// The SHA-256 digest of `bytes` (libcrypto on Linux, CryptoKit on Apple platforms).
    static func sha256(_ bytes: [UInt8]) throws(Failure) -> [UInt8] {
        #if canImport(CCrypto)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil) == 1, length == 32 else {
            throw Failure(description: "SHA-256 is not available (libcrypto's EVP_Digest failed)")
        }
        return Array(digest.prefix(32))
        #else
        return Array(SHA256.hash(data: bytes))
        #endif
    }

    /// Compares without stopping at the first difference, so timing does not tell how
    /// much of a guessed state was right.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
