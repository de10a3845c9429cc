import Foundation
import MiDiccioCloud
import MiDiccioModel
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends requests to the Drive API v3 with this device's access token, and retries
/// what Google asks to retry:
/// - a 401 gets a fresh access token once, then stops with "sign in again";
/// - 429 and the 403 rate-limit reasons (`rateLimitExceeded`, `userRateLimitExceeded`)
///   wait with exponential backoff and jitter;
/// - 5xx answers and dropped connections are retried as WebDAV retries them.
///
/// Everything else comes back to the caller as an answer (404, 403 for a full Drive),
/// or as a `CloudError` without a token or a URL in it.
final class GoogleDriveAPI: Sendable {
    /// One request.
    struct Call {
        var method: String
        /// The path after the API base ("/drive/v3/files") or an absolute URL.
        var path: String
        var query: [(String, String)] = []
        var body: Data?
        var headers: [String: String] = [:]
        var maxBody = 1 << 20
        /// From this many bytes on, the answer's body goes on in a temporary file
        /// (`HTTPAnswer.spooled`); nil: always in memory.
        var spillFrom: Int? = nil
        /// The cloud path it is about, for messages.
        var about: String
        /// The name it is counted under.
        var kind: String
    }

    let endpoints: GoogleDriveEndpoints
    let tokens: GoogleAccessTokens
    let options: GoogleDriveStorage.Options
    private let client: BlockingHTTPClient
    /// Google's clock, from the `Date` of its latest answer.
    var serverNow: Timestamp? { client.serverNow }
    private let counts = Mutex<[String: Int]>([:])

    init(endpoints: GoogleDriveEndpoints, tokens: GoogleAccessTokens, options: GoogleDriveStorage.Options) {
        self.endpoints = endpoints
        self.tokens = tokens
        self.options = options
        client = BlockingHTTPClient()
    }

    /// Requests sent so far by kind ("files.list", "upload.multipart" ...), retries included.
    var requestCounts: [String: Int] { counts.withLock { $0 } }

    /// Sets the counts back to zero.
    func resetCounts() { counts.withLock { $0 = [:] } }

    /// Sends `call`, retrying as described above. `unknownOutcome` is asked before a
    /// request is sent again after a dropped connection or a timeout, when the first
    /// attempt may have been carried out (a create): an answer from it ends the call.
    ///
    /// With `retryDrops` false, a dropped connection or a timeout throws
    /// `GoogleDriveAPI.Dropped` at once: a resumable upload asks what arrived instead.
    func send(_ call: Call, retryDrops: Bool = true, unknownOutcome: (() throws -> HTTPAnswer?)? = nil) throws -> HTTPAnswer {
        guard let url = url(for: call) else { throw CloudError.failed(path: call.about, reason: "cannot make a request URL") }
        var request = URLRequest(url: url)
        request.httpMethod = call.method
        request.httpBody = call.body
        for (name, value) in call.headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("MiDiccio", forHTTPHeaderField: "User-Agent")
        let sendsToken = isSameOrigin(url)
        var token = sendsToken ? try tokens.current() : ""
        var refreshed = false
        var attempt = 1
        while true {
            if sendsToken { request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization") }
            counts.withLock { $0[call.kind, default: 0] += 1 }
            var retryAfter: TimeInterval?
            switch client.send(request, timeout: options.timeout, maxBodyBytes: call.maxBody, spillFrom: call.spillFrom) {
            case .success(let answer):
                if answer.status == 401 && sendsToken {
                    guard !refreshed else { throw CloudError.signInNeeded(GoogleTokenService.signInAgain) }
                    token = try tokens.refresh(rejected: token)
                    refreshed = true
                    continue
                }
                let reason = Self.errorReason(answer)
                let rateLimited = answer.status == 429 || (answer.status == 403 && Self.rateLimitReasons.contains(reason ?? ""))
                guard rateLimited || HTTPRetryPolicy.isRetryable(status: answer.status) else { return answer }
                retryAfter = HTTPRetryPolicy.retryAfterSeconds(answer.header("Retry-After"))
                // Google asks for exponential backoff on rate limits; a Retry-After only
                // makes the wait longer, never shorter.
                guard let backoff = options.retry.delay(afterAttempt: attempt, retryAfter: nil),
                    let asked = options.retry.delay(afterAttempt: attempt, retryAfter: retryAfter)
                else {
                    if rateLimited {
                        throw CloudError.unavailable("Google Drive asks to slow down (\(reason ?? "429")); try again in a minute")
                    }
                    throw CloudError.unavailable("Google Drive answered \(answer.status) \(attempt) time\(attempt == 1 ? "" : "s")")
                }
                options.sleep(jittered(max(backoff, asked)))
            case .failure(let failure) where failure == .dropped || failure == .timedOut:
                guard retryDrops else { throw Dropped(failure: failure) }
                guard let delay = options.retry.delay(afterAttempt: attempt, retryAfter: nil) else {
                    throw CloudError.unavailable(Self.describe(failure))
                }
                options.sleep(jittered(delay))
                if let unknownOutcome, let answer = try unknownOutcome() { return answer }
            case .failure(let failure):
                throw CloudError.unavailable(Self.describe(failure))
            }
            attempt += 1
        }
    }

    /// Sends `call` and reads its JSON answer; any status but 2xx is an error about
    /// `call.about`.
    func json(_ call: Call) throws -> [String: Any] {
        let answer = try send(call)
        guard (200..<300).contains(answer.status) else { throw failure(answer, call) }
        return try Self.object(answer, about: call.about)
    }

    /// The JSON object of a 2xx answer.
    static func object(_ answer: HTTPAnswer, about: String) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] else {
            throw CloudError.failed(path: about, reason: "Google Drive's answer is not the JSON expected")
        }
        return object
    }

    /// The error for an answer the caller did not expect.
    func failure(_ answer: HTTPAnswer, _ call: Call) -> CloudError {
        let reason = Self.errorReason(answer)
        switch (answer.status, reason) {
        case (403, "storageQuotaExceeded"), (403, "quotaExceeded"):
            return .failed(path: call.about, reason: "your Google Drive is full; free some space in it (or buy more), then sync again")
        case (403, "insufficientPermissions"), (403, "appNotAuthorizedToFile"), (403, "insufficientFilePermissions"):
            return .signInNeeded(
                "Google Drive does not let this sign-in reach \(call.about == "/" ? "MiDiccio's files" : call.about); "
                    + "sign in again with: midiccio remote set gdrive")
        case (400, _):
            return .failed(path: call.about, reason: "Google Drive refused the request (\(reason ?? "400 Bad Request"))")
        default:
            return .failed(
                path: call.about, reason: "Google Drive answered \(call.method) with \(answer.status)" + (reason.map { " (\($0))" } ?? ""))
        }
    }

    /// Google's reason code in an error answer ("userRateLimitExceeded" ...).
    static func errorReason(_ answer: HTTPAnswer) -> String? {
        guard answer.status >= 400, let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any],
            let error = object["error"] as? [String: Any]
        else { return nil }
        if let errors = error["errors"] as? [[String: Any]], let reason = errors.first?["reason"] as? String { return reason }
        return error["status"] as? String
    }

    /// A request whose connection dropped (or went silent) before its answer.
    struct Dropped: Error {
        var failure: HTTPFailure
    }

    static let rateLimitReasons: Set<String> = ["rateLimitExceeded", "userRateLimitExceeded"]

    /// A failure in words, without the URL.
    static func describe(_ failure: HTTPFailure) -> String { failure.describe(service: "Google Drive") }

    /// Waits of 50% to 150% of `delay`, so devices told to slow down at the same moment
    /// do not all come back at the same moment.
    private func jittered(_ delay: TimeInterval) -> TimeInterval {
        delay * Double.random(in: 0.5...1.5)
    }

    private func url(for call: Call) -> URL? {
        let base = call.path.hasPrefix("http://") || call.path.hasPrefix("https://") ? call.path : endpoints.api + call.path
        guard !call.query.isEmpty else { return URL(string: base) }
        let separator = base.contains("?") ? "&" : "?"
        return URL(string: base + separator + GoogleTokenService.formBody(call.query))
    }

    /// True when `url` is on the API's own scheme, host and port: the token goes nowhere else.
    private func isSameOrigin(_ url: URL) -> Bool {
        guard let api = URL(string: endpoints.api) else { return false }
        return url.scheme == api.scheme && url.host == api.host && url.port == api.port
    }
}
