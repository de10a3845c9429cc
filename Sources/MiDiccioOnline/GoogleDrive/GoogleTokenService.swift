import Foundation
import MiDiccioCloud
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Google's OAuth token service: turns a sign-in's authorization code into tokens, and
/// a refresh token into a fresh access token.
///
/// Nothing it throws carries a token, a secret or a server's words about them.
public struct GoogleTokenService: Sendable {
    /// What the token service gave.
    public struct Grant: Sendable, Hashable {
        /// The access token.
        public var accessToken: String
        /// When it stops working (milliseconds since 1970).
        public var expiry: Int64
        /// A refresh token (after a sign-in; a refresh gives none).
        public var refreshToken: String?
        /// The scope granted, when the service says.
        public var scope: String?
    }

    /// The message for a sign-in that Google no longer accepts.
    public static let signInAgain = "Google Drive refused this device's sign-in; sign in again with: midiccio remote set gdrive"

    /// Where tokens come from.
    public var endpoints: GoogleDriveEndpoints
    /// Seconds a request may stay silent.
    public var timeout: TimeInterval
    /// The current time in milliseconds (tests move it).
    public var now: @Sendable () -> Int64

    /// Makes a token service client.
    public init(
        endpoints: GoogleDriveEndpoints, timeout: TimeInterval = 15,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) {
        self.endpoints = endpoints
        self.timeout = timeout
        self.now = now
    }

    /// Three attempts, 0.3 s and 0.6 s apart: a sign-in or a sync waits on these.
    static let retry = HTTPRetryPolicy(maxAttempts: 3, baseDelay: 0.3, maxDelay: 2)

    /// Exchanges the code a sign-in returned (with the PKCE verifier and the redirect
    /// address it used) for tokens.
    public func exchange(code: String, verifier: String, redirectURI: String, clientID: String, clientSecret: String?) throws -> Grant {
        var form = [
            ("grant_type", "authorization_code"), ("code", code), ("code_verifier", verifier), ("redirect_uri", redirectURI),
            ("client_id", clientID),
        ]
        if let clientSecret { form.append(("client_secret", clientSecret)) }
        let grant = try post(form, refusal: "Google refused the sign-in (the code was used, expired, or not for this client); try again")
        guard grant.refreshToken != nil else {
            throw CloudError.unauthorized("Google gave no refresh token; remove MiDiccio's access in your Google account and sign in again")
        }
        return grant
    }

    /// A fresh access token for `credentials`. A refresh token Google no longer accepts
    /// (revoked, expired, or a client in "Testing" after 7 days) throws
    /// `CloudError.signInNeeded`.
    public func refresh(_ credentials: GoogleDriveCredentials) throws -> Grant {
        var form = [("grant_type", "refresh_token"), ("refresh_token", credentials.refreshToken), ("client_id", credentials.clientID)]
        if let secret = credentials.clientSecret { form.append(("client_secret", secret)) }
        return try post(form, refusal: Self.signInAgain)
    }

    /// Asks Google to forget `token` (a refresh token); a token it no longer knows is
    /// not an error.
    public func revoke(_ token: String) throws {
        guard let url = URL(string: endpoints.revoke) else { throw CloudError.unavailable("the token service address is not a URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(Self.formBody([("token", token)]).utf8)
        switch BlockingHTTPClient().send(request, timeout: timeout, maxBodyBytes: 64 * 1024) {
        case .success(let answer) where answer.status == 200 || answer.status == 400: return
        case .success(let answer): throw CloudError.unavailable("the token service answered \(answer.status)")
        case .failure(let failure): throw CloudError.unavailable(GoogleDriveAPI.describe(failure))
        }
    }

    private func post(_ form: [(String, String)], refusal: String) throws -> Grant {
        guard let url = URL(string: endpoints.token) else { throw CloudError.unavailable("the token service address is not a URL") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.httpBody = Data(Self.formBody(form).utf8)
        let client = BlockingHTTPClient()
        var attempt = 1
        while true {
            let started = now()
            let wait = Self.retry.delay(afterAttempt: attempt, retryAfter: nil)
            switch client.send(request, timeout: timeout, maxBodyBytes: 256 * 1024) {
            case .failure(let failure):
                guard wait != nil, failure == .dropped || failure == .timedOut || failure == .refused else {
                    throw CloudError.unavailable("Google's token service: " + GoogleDriveAPI.describe(failure))
                }
            case .success(let answer):
                let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
                if answer.status == 200 {
                    guard let token = object["access_token"] as? String, !token.isEmpty else {
                        throw CloudError.unavailable("Google's token service gave no access token")
                    }
                    let seconds = (object["expires_in"] as? NSNumber)?.int64Value ?? 3600
                    return Grant(
                        accessToken: token, expiry: started + max(0, seconds) * 1000, refreshToken: object["refresh_token"] as? String,
                        scope: object["scope"] as? String)
                }
                let code = object["error"] as? String
                if code == "invalid_grant" { throw CloudError.signInNeeded(refusal) }
                if code == "invalid_client" || code == "unauthorized_client" {
                    throw CloudError.signInNeeded(
                        "Google does not accept this OAuth client (check its id and secret); sign in again with: midiccio remote set gdrive"
                    )
                }
                guard wait != nil, HTTPRetryPolicy.isRetryable(status: answer.status) else {
                    throw CloudError.unavailable("Google's token service answered \(answer.status)" + (code.map { " (\($0))" } ?? ""))
                }
            }
            Thread.sleep(forTimeInterval: wait ?? 0)
            attempt += 1
        }
    }

    /// `application/x-www-form-urlencoded` text of `pairs`.
    static func formBody(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
    }

    /// Percent-encodes everything but unreserved characters.
    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// Gives the Drive back end an access token: the stored one while it lasts, else a
/// fresh one from the refresh token, saved back to the sign-in file (mode 0600) so the
/// next process uses it too.
public final class GoogleAccessTokens: Sendable {
    private let service: GoogleTokenService
    private let path: String?
    private let credentials: Mutex<GoogleDriveCredentials>

    /// Tokens for `credentials`, saved to `path` when refreshed (nil: kept in memory).
    public init(credentials: GoogleDriveCredentials, path: String?, service: GoogleTokenService) {
        self.credentials = Mutex(credentials)
        self.path = path
        self.service = service
    }

    /// The granted scope.
    public var scope: String { credentials.withLock { $0.scope } }

    /// An access token that should still work for a minute.
    func current() throws -> String {
        let stored = credentials.withLock { $0 }
        if let token = stored.accessToken, let expiry = stored.accessTokenExpiry, expiry - 60_000 > service.now() { return token }
        return try refresh(rejected: nil)
    }

    /// A new access token after the Drive refused `rejected` (nil: none is stored).
    /// When another thread already replaced it, that one is used.
    func refresh(rejected: String?) throws -> String {
        let stored = credentials.withLock { $0 }
        if let rejected, let token = stored.accessToken, token != rejected { return token }
        let grant = try service.refresh(stored)
        var updated = stored
        updated.accessToken = grant.accessToken
        updated.accessTokenExpiry = grant.expiry
        credentials.withLock { $0 = updated }
        // Best effort: a sign-in file that cannot be written costs a request next time.
        // Only over the sign-in it was read from: a person who signed in again (to another
        // account, say) while this sync ran had the old account's sign-in written back over
        // theirs (found by the exploratory helper, round 22B #2).
        if let path, (try? GoogleDriveCredentials.load(from: path))??.refreshToken == stored.refreshToken {
            try? updated.save(to: path)
        }
        return grant.accessToken
    }
}
