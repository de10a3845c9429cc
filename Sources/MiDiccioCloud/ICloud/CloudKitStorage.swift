import Foundation
import Synchronization

/// Cloud storage in the user's own iCloud, through CloudKit Web Services: one custom
/// zone of the private database, one record per cloud file.
public final class CloudKitStorage: CloudStorage, CustomStringConvertible, Sendable {
    /// Timeouts, retries and limits.
    public struct Options: Sendable {
        /// Seconds without any byte moving before a request fails.
        public var timeout: TimeInterval = 30
        /// When to try a failed request again (throttling, 5xx, dropped connections).
        public var retry = HTTPRetryPolicy(maxAttempts: 6, baseDelay: 0.5, maxDelay: 60)
        /// Files up to this size are kept in the record itself (a bytes field); larger
        /// ones go up as assets. CloudKit allows 1 MB per record, assets excluded.
        public var inlineLimit = 512 * 1024
        /// Operations per `records/modify` or `records/lookup` (CloudKit allows 200).
        public var operationsPerRequest = 200
        /// Records per page of changes (CloudKit gives at most 200).
        public var resultsLimit = 200
        /// The largest file `read` accepts, in bytes.
        public var maxFileBytes = 1 << 30
        /// Files up to this size whose name ends in ".json" are kept in the library's
        /// cache between syncs.
        public var cachedContentLimit = 64 * 1024
        /// Waits between retries (seconds); tests replace it.
        public var sleep: @Sendable (TimeInterval) -> Void = { Thread.sleep(forTimeInterval: $0) }

        /// The standard options.
        public init() {}

        /// Options for a command that must not keep its user waiting.
        public static func impatient(timeout: TimeInterval) -> Options {
            var options = Options()
            options.timeout = timeout
            options.retry = HTTPRetryPolicy(maxAttempts: 2, baseDelay: 0.2, maxDelay: 1)
            return options
        }
    }

    /// The container, environment and zone.
    public let database: CloudKitDatabase
    let api: CloudKitAPI

    /// Uses `database` with the tokens of `session`.
    public init(database: CloudKitDatabase, session: ICloudSession, endpoints: CloudKitEndpoints, options: Options = Options()) {
        self.database = database
        api = CloudKitAPI(endpoints: endpoints, session: session, options: options)
    }

    /// "icloud iCloud.app.midiccio".
    public var displayName: String { database.description }

    /// The same as `displayName`: safe to print.
    public var description: String { displayName }

    /// Requests sent so far by kind ("records/modify", "changes/zone", "asset.get" ...),
    /// every retry counted.
    public var requestCounts: [String: Int] { api.requestCounts }

    /// All requests sent so far.
    public var requestCount: Int { requestCounts.values.reduce(0, +) }

    /// Sets the request counts back to zero.
    public func resetCounts() { api.resetCounts() }

    public func list(_ folder: String) throws -> [CloudEntry] {
        throw CloudError.unavailable("not yet")
    }

    public func read(_ path: String) throws -> Data? {
        throw CloudError.unavailable("not yet")
    }

    public func write(_ path: String, _ data: Data) throws {
        throw CloudError.unavailable("not yet")
    }

    @discardableResult
    public func delete(_ path: String) throws -> Bool {
        throw CloudError.unavailable("not yet")
    }
}
