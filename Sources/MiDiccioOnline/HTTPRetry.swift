import Foundation
import MiDiccioCloud
import MiDiccioModel

/// When and how long to wait before trying an HTTP request again.
///
/// A request is retried only when trying again can help: the server is overloaded or
/// restarting (500, 502, 503, 504), asks the client to slow down (429, 408), or the
/// connection dropped before an answer arrived. Everything else (a refused password, a
/// missing file, a full disk) fails at once. Waits grow exponentially from `baseDelay`,
/// and a server's `Retry-After` (in seconds) is honoured; a server that asks for a wait
/// longer than `maxDelay` is treated as unavailable rather than blocking the sync.
public struct HTTPRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first one included (at least 1).
    public var maxAttempts: Int
    /// The wait after the first failed attempt, in seconds; it doubles each time.
    public var baseDelay: TimeInterval
    /// The longest single wait, in seconds, `Retry-After` included.
    public var maxDelay: TimeInterval

    /// Four attempts, waiting 0.5 s, 1 s and 2 s between them; at most 30 s for a
    /// server's own `Retry-After`.
    public static let standard = HTTPRetryPolicy(maxAttempts: 4, baseDelay: 0.5, maxDelay: 30)

    /// Makes a policy.
    public init(maxAttempts: Int, baseDelay: TimeInterval, maxDelay: TimeInterval) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// True for the status codes that say "try again later".
    public static func isRetryable(status: Int) -> Bool {
        // 501, 505, 507 (no space left) and 508 do not get better by waiting.
        [408, 429, 500, 502, 503, 504].contains(status)
    }

    /// How long to wait after failed attempt number `attempt` (1 for the first), or nil
    /// when no attempt is left or the server asked for a wait longer than `maxDelay`.
    public func delay(afterAttempt attempt: Int, retryAfter: TimeInterval?) -> TimeInterval? {
        guard attempt < maxAttempts else { return nil }
        if let retryAfter {
            return retryAfter <= maxDelay ? retryAfter : nil
        }
        let exponent = Double(min(attempt - 1, 30))
        return min(maxDelay, baseDelay * pow(2, exponent))
    }

    /// The seconds of a `Retry-After` header, or nil when it is missing or not a number
    /// of seconds (the HTTP-date form falls back to the exponential wait).
    public static func retryAfterSeconds(_ header: String?) -> TimeInterval? {
        guard let text = header?.trimmingCharacters(in: .whitespaces), !text.isEmpty,
            text.count <= 10, text.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int(text)
        else { return nil }
        return TimeInterval(seconds)
    }
}

/// The options of a back end that retries HTTP requests, as far as
/// `impatient(timeout:)` changes them.
public protocol RetryingOptions {
    /// The standard options.
    init()
    /// Seconds without any byte moving before a request fails.
    var timeout: TimeInterval { get set }
    /// When to try a failed request again.
    var retry: HTTPRetryPolicy { get set }
}

extension RetryingOptions {
    /// Options for a command that must not keep its user waiting: one retry, short
    /// waits, `timeout` seconds per request.
    public static func impatient(timeout: TimeInterval) -> Self {
        var options = Self()
        options.timeout = timeout
        options.retry = HTTPRetryPolicy(maxAttempts: 2, baseDelay: 0.2, maxDelay: 1)
        return options
    }
}

extension WebDAVStorage.Options: RetryingOptions {}
extension GoogleDriveStorage.Options: RetryingOptions {}
extension CloudKitStorage.Options: RetryingOptions {}
