import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioModel
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests to CloudKit Web Services with the container's API token and the
/// user's web auth token, keeps the newest web auth token CloudKit hands back, and
/// retries what CloudKit asks to retry:
/// - `THROTTLED` (429) waits for the `retryAfter` it carries (or backs off when it has
///   none); `TRY_AGAIN_LATER` (503), other 5xx answers and dropped connections back off
///   with jitter;
/// - `AUTHENTICATION_REQUIRED` (421) stops with "sign in again": the web auth token has
///   expired or was revoked, and only the user can make a new one.
///
/// Everything else comes back to the caller as an answer, or as a `CloudError` without
/// a token or a URL in it. Tokens are only ever sent to the API's own address, never to
/// the asset hosts an answer points to.
final class CloudKitAPI: Sendable {
    /// One request.
    struct Call {
        var method = "POST"
        /// The whole address without tokens: an API operation, or an asset URL.
        var url: String
        var body: Data?
        /// A body held in a file, sent from it with its length instead of `body`.
        var bodyFile: OpenedFile?
        var contentType = "application/json"
        var maxBody = 4 << 20
        /// From this many bytes on, the answer's body goes on in a temporary file
        /// (`HTTPAnswer.spooled`); nil: always in memory.
        var spillFrom: Int? = nil
        /// The cloud path it is about, for messages.
        var about: String
        /// The name it is counted under ("records/modify", "asset.get" ...).
        var kind: String
    }

    /// What came back, and whether the request went out more than once after a dropped
    /// connection (so a create may have been carried out by an earlier attempt).
    struct Reply {
        var answer: HTTPAnswer
        var resent: Bool
    }

    /// The header CloudKit puts a renewed web auth token in.
    static let renewedTokenHeader = "X-Apple-CloudKit-Web-Auth-Token"

    let endpoints: CloudKitEndpoints
    let session: ICloudSession
    let options: CloudKitStorage.Options
    private let client = BlockingHTTPClient()
    /// Apple's clock, from the `Date` of its latest answer.
    var serverNow: Timestamp? { client.serverNow }
    private let counts = Mutex<[String: Int]>([:])

    init(endpoints: CloudKitEndpoints, session: ICloudSession, options: CloudKitStorage.Options) {
        self.endpoints = endpoints
        self.session = session
        self.options = options
    }

    /// Requests sent so far by kind, retries included.
    var requestCounts: [String: Int] { counts.withLock { $0 } }

    /// Sets the counts back to zero.
    func resetCounts() { counts.withLock { $0 = [:] } }

    /// Keeps the renewed web auth token that `headers` (names in lower case) carry, if any.
    private var renewFromHeaders: @Sendable ([String: String]) -> Void {
        let session = session
        let name = Self.renewedTokenHeader.lowercased()
        return { headers in
            if let token = headers[name] { session.renew(token) }
        }
    }

    /// Sends `call` and retries as described above. With `answering421`, a 421 comes
    /// back as an answer instead of an error (the sign-in reads its `redirectURL`).
    func send(_ call: Call, answering421: Bool = false) throws -> Reply {
        let sendsTokens = isAPI(call.url)
        var attempt = 1
        var resent = false
        var dropped = false
        var tookTokenFromFile = false
        while true {
            let tokens = session.current
            var address = call.url
            if sendsTokens {
                var query = [("ckAPIToken", tokens.apiToken)]
                if !tokens.webAuthToken.isEmpty { query.append(("ckWebAuthToken", tokens.webAuthToken)) }
                address += (address.contains("?") ? "&" : "?") + GoogleTokenService.formBody(query)
            }
            guard let url = URL(string: address) else { throw CloudError.failed(path: call.about, reason: "cannot make a request URL") }
            var request = URLRequest(url: url)
            request.httpMethod = call.method
            request.httpBody = call.body
            if call.body != nil || call.bodyFile != nil { request.setValue(call.contentType, forHTTPHeaderField: "Content-Type") }
            request.setValue("MiDiccio", forHTTPHeaderField: "User-Agent")
            counts.withLock { $0[call.kind, default: 0] += 1 }
            if dropped { resent = true }
            var retryAfter: TimeInterval?
            // The renewed token is kept as soon as the headers come: CloudKit has dropped the
            // old one by then, and a sync stopped (Ctrl-C, a closed lid) or cut off before
            // the whole body arrived kept the old one, and had to sign in again (found by the
            // exploratory helper, round 26A #3: 5 syncs stopped in 20).
            let renewing: (@Sendable ([String: String]) -> Void)? = sendsTokens ? renewFromHeaders : nil
            switch client.send(
                request, timeout: options.timeout, maxBodyBytes: call.maxBody, spillFrom: call.spillFrom, bodyFile: call.bodyFile,
                onHeaders: renewing)
            {
            case .success(let answer):
                let error = sendsTokens ? Self.serverError(answer) : nil
                if answer.status == 421 || error?.code == "AUTHENTICATION_REQUIRED" {
                    if answering421 { return Reply(answer: answer, resent: resent) }
                    // Another process renewed the token since this one read it: sent again
                    // with that one, once, before the person is told to sign in.
                    if sendsTokens && !tookTokenFromFile && session.takeNewerTokenFromFile() {
                        tookTokenFromFile = true
                        continue
                    }
                    throw CloudError.signInNeeded(ICloudCredentials.signInAgain)
                }
                guard HTTPRetryPolicy.isRetryable(status: answer.status) || error?.code == "THROTTLED" || error?.code == "TRY_AGAIN_LATER"
                else { return Reply(answer: answer, resent: resent) }
                retryAfter = error?.retryAfter ?? HTTPRetryPolicy.retryAfterSeconds(answer.header("Retry-After"))
                guard let delay = options.retry.delay(afterAttempt: attempt, retryAfter: retryAfter) else {
                    if let retryAfter, error?.code == "THROTTLED" {
                        throw CloudError.unavailable(
                            "iCloud asks to wait \(Int(retryAfter.rounded(.up))) s before the next request; sync again then")
                    }
                    throw CloudError.unavailable(
                        "iCloud answered \(answer.status)\(error.map { " (\($0.code))" } ?? "") \(attempt) time\(attempt == 1 ? "" : "s")")
                }
                // CloudKit's own wait is kept as asked; the others get jitter, so devices
                // told to slow down at one moment do not all come back at one moment.
                options.sleep(retryAfter != nil ? delay : delay * Double.random(in: 0.5...1.5))
            case .failure(let failure) where failure == .dropped || failure == .timedOut:
                guard let delay = options.retry.delay(afterAttempt: attempt, retryAfter: nil) else {
                    throw CloudError.unavailable(failure.describe(service: "iCloud"))
                }
                dropped = true
                options.sleep(delay * Double.random(in: 0.5...1.5))
            case .failure(let failure):
                throw CloudError.unavailable(failure.describe(service: "iCloud"))
            }
            attempt += 1
        }
    }

    /// Posts `body` as JSON to the private database's `operation` and reads the JSON
    /// object of a 200 answer; any other status is an error about `about`.
    func post(
        _ operation: String, database: CloudKitDatabase, body: [String: Any], about: String
    ) throws -> (
        object: [String: Any], resent: Bool
    ) {
        let data = try JSONSerialization.data(withJSONObject: body)
        let reply = try send(Call(url: endpoints.privateDatabase(database, operation), body: data, about: about, kind: operation))
        guard reply.answer.status == 200 else { throw failure(reply.answer, about: about) }
        return (try Self.object(reply.answer, about: about), reply.resent)
    }

    /// Who the web auth token signs in, or where the user signs in when there is none
    /// (or it no longer works).
    enum Caller: Equatable {
        /// Signed in: the user's record name in the container.
        case user(String)
        /// Not signed in: the address of Apple's sign-in page for this API token.
        case signIn(redirectURL: String)
    }

    /// Asks `users/caller` who is signed in.
    func caller() throws -> Caller {
        let tokens = session.current
        let reply = try send(
            Call(
                method: "GET", url: endpoints.caller(container: tokens.container, environment: tokens.environment), about: "/",
                kind: "users/caller"),
            answering421: true)
        let object = try? Self.object(reply.answer, about: "/")
        switch reply.answer.status {
        case 200:
            guard let user = object?["userRecordName"] as? String, !user.isEmpty else {
                throw CloudError.failed(path: "/", reason: "iCloud did not say who is signed in")
            }
            return .user(user)
        case 421:
            guard let redirect = object?["redirectURL"] as? String, URL(string: redirect) != nil else {
                throw CloudError.failed(path: "/", reason: "iCloud asks for a sign-in but gives no sign-in address")
            }
            return .signIn(redirectURL: redirect)
        default:
            throw failure(reply.answer, about: "/")
        }
    }

    /// The JSON object of an answer.
    static func object(_ answer: HTTPAnswer, about: String) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] else {
            throw CloudError.failed(path: about, reason: "iCloud's answer is not the JSON expected")
        }
        return object
    }

    /// A CloudKit error: its code (`serverErrorCode`), reason and `retryAfter`.
    struct ServerError {
        var code: String
        var reason: String?
        var retryAfter: TimeInterval?

        /// Reads one from a whole answer or a per-record result.
        init?(_ object: [String: Any]) {
            guard let code = object["serverErrorCode"] as? String else { return nil }
            self.code = code
            reason = object["reason"] as? String
            retryAfter = (object["retryAfter"] as? NSNumber)?.doubleValue
        }
    }

    /// The error an answer carries, if any.
    static func serverError(_ answer: HTTPAnswer) -> ServerError? {
        guard answer.status >= 400, let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] else {
            return nil
        }
        return ServerError(object)
    }

    /// The error for an answer or a per-record result the caller did not expect.
    func failure(_ answer: HTTPAnswer, about: String) -> CloudError {
        if let error = Self.serverError(answer) { return failure(error, about: about) }
        return .failed(path: about, reason: "iCloud answered \(answer.status)")
    }

    /// The error for a CloudKit error code.
    func failure(_ error: ServerError, about: String) -> CloudError {
        switch error.code {
        case "QUOTA_EXCEEDED":
            return .failed(path: about, reason: "your iCloud storage is full; free some space in iCloud (or buy more), then sync again")
        case "AUTHENTICATION_REQUIRED":
            return .signInNeeded(ICloudCredentials.signInAgain)
        case "AUTHENTICATION_FAILED":
            return .signInNeeded(
                "iCloud refused this library's API token for \(session.current.container); "
                    + "sign in again with a current one: midiccio remote set icloud --api-token TOKEN")
        case "ACCESS_DENIED":
            // Not WebDAV's advice of a password to set again (found by the exploratory helper, round 9).
            return .signInNeeded(
                "iCloud does not let this sign-in reach \(about == "/" ? "MiDiccio's data" : about) (another Apple "
                    + "account, or access taken back); sign in again: midiccio remote set icloud")
        case "THROTTLED", "TRY_AGAIN_LATER", "INTERNAL_ERROR":
            return .unavailable("iCloud is busy (\(error.code)); sync again in a minute")
        default:
            return .failed(path: about, reason: "iCloud refused it (\(error.code)" + (error.reason.map { ": \($0)" } ?? "") + ")")
        }
    }

    /// True when `address` is on the API's own scheme, host and port: tokens go nowhere else.
    private func isAPI(_ address: String) -> Bool {
        guard let url = URL(string: address), let api = URL(string: endpoints.api) else { return false }
        return url.scheme == api.scheme && url.host == api.host && url.port == api.port
            && url.path.hasPrefix(api.path + "/database/")
    }
}
