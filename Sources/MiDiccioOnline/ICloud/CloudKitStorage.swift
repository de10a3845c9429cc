import Foundation
import MiDiccioCloud
import MiDiccioModel
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

    }

    /// The container, environment and zone.
    public let database: CloudKitDatabase
    let api: CloudKitAPI

    /// Uses `database` with the tokens of `session`.
    public init(database: CloudKitDatabase, session: ICloudSession, endpoints: CloudKitEndpoints, options: Options = Options()) {
        self.database = database
        api = CloudKitAPI(endpoints: endpoints, session: session, options: options)
        state = Mutex(State(index: CloudKitIndex(database: database.location)))
    }

    /// "icloud iCloud.app.midiccio".
    public var displayName: String { database.description }

    /// iCloud's clock, from the `Date` of its latest answer.
    public var cloudNow: Timestamp? { api.serverNow }

    /// The same as `displayName`: safe to print.
    public var description: String { displayName }

    /// Requests sent so far by kind ("records/modify", "changes/zone", "asset.get" ...),
    /// every retry counted.
    public var requestCounts: [String: Int] { api.requestCounts }

    /// All requests sent so far.
    public var requestCount: Int { requestCounts.values.reduce(0, +) }

    /// Sets the request counts back to zero.
    public func resetCounts() { api.resetCounts() }

    // MARK: - The index

    private struct State {
        var index: CloudKitIndex
        /// True once this process brought the index up to date.
        var current = false
        var cache: (any CloudCache)?
        /// Where each asset can be downloaded, as the last answer about it said (these
        /// addresses expire, so they are never saved).
        var downloadURLs: [String: String] = [:]
    }

    /// True when the last `beginPass` found no zone (never made, or deleted by the user),
    /// or found its sync token refused (the zone was deleted and made again, or the token
    /// expired) and this device has not written to the zone since: what it read and wrote
    /// there may be gone. The news is kept in the index, so a `status` in between does not
    /// make the next sync miss it.
    public var cloudWasReplaced: Bool { state.withLock { $0.index.replaced == true || $0.index.zoneMissing } }

    private let state: Mutex<State>

    /// Brings the index up to date: the zone's changes since the last sync, or all of
    /// them the first time (or when CloudKit no longer knows the sync token).
    public func beginPass(cache: (any CloudCache)?) throws {
        let index = state.withLock { state -> CloudKitIndex in
            if let cache, state.cache == nil {
                state.cache = cache
                if !state.current, let data = cache.load(), let saved = CloudKitIndex.decode(data, database: database.location) {
                    state.index = saved
                }
            }
            return state.index
        }
        var outcome = index.syncToken == nil ? nil : try fetchChanges(since: index)
        // A zone this device synced with, missing in one answer: asked once more before it
        // counts as deleted (found by the exploratory helper, round 9: one such answer made
        // the device start the cloud again, and every other device upload every word).
        if outcome == .zoneMissing { outcome = try fetchChanges(since: index) }
        let replaced = outcome == .tokenRejected
        if outcome == nil || outcome == .tokenRejected {
            outcome = try fetchChanges(since: CloudKitIndex(database: database.location))
            // So is a zone this device knew files of without a token to ask from (the device
            // that made the zone, after its first sync: found by the exploratory helper,
            // round 10).
            if outcome == .zoneMissing && !index.items.isEmpty {
                outcome = try fetchChanges(since: CloudKitIndex(database: database.location))
            }
        }
        switch outcome {
        case .done(var next, let urls):
            next.replaced = replaced || index.replaced == true ? true : nil
            commit(next, downloadURLs: urls, replacing: index.syncToken == nil || next.syncToken == nil)
        case .zoneMissing:
            // Never made, or deleted by the user (Settings > Apple Account > iCloud): an
            // empty cloud, never deleted words. A device that had synced with it starts
            // over there (`cloudWasReplaced`).
            var empty = CloudKitIndex(database: database.location)
            empty.zoneMissing = true
            commit(empty, downloadURLs: [:], replacing: true)
        case .tokenRejected, nil:
            throw CloudError.failed(path: "/", reason: "iCloud refused to list the zone's changes from its start")
        }
    }

    /// Makes sure the index was brought up to date once in this process.
    private func ensureCurrent() throws {
        if state.withLock({ $0.current }) { return }
        try beginPass(cache: nil)
    }

    /// Stores `next` as the index and saves it.
    private func commit(_ next: CloudKitIndex, downloadURLs: [String: String], replacing: Bool) {
        let (cache, saved) = state.withLock { state -> ((any CloudCache)?, Data?) in
            state.index = next
            state.current = true
            if replacing { state.downloadURLs = [:] }
            state.downloadURLs.merge(downloadURLs) { $1 }
            return (state.cache, try? next.encoded(cachedContentLimit: api.options.cachedContentLimit))
        }
        // Best effort: an index that cannot be saved costs a listing from the start next time.
        if let cache, let saved { try? cache.save(saved) }
    }

    /// Changes the index with `body` and saves it.
    private func mutate(_ body: (inout CloudKitIndex) -> Void) {
        var next = index
        body(&next)
        commit(next, downloadURLs: [:], replacing: false)
    }

    var index: CloudKitIndex { state.withLock { $0.index } }

    private enum Outcome: Equatable {
        case done(CloudKitIndex, downloadURLs: [String: String])
        case zoneMissing
        case tokenRejected

        static func == (lhs: Outcome, rhs: Outcome) -> Bool {
            switch (lhs, rhs) {
            case (.zoneMissing, .zoneMissing), (.tokenRejected, .tokenRejected): true
            case (.done(let a, _), .done(let b, _)): a.syncToken == b.syncToken && a.items == b.items
            default: false
            }
        }
    }

    /// Reads the zone's changes since `index.syncToken` (from the zone's start when nil),
    /// page by page, into a copy of `index`.
    private func fetchChanges(since index: CloudKitIndex) throws -> Outcome {
        var updated = index
        var token = index.syncToken
        var urls: [String: String] = [:]
        var held = 0
        while true {
            var zone: [String: Any] = ["zoneID": zoneID, "resultsLimit": api.options.resultsLimit]
            if let token { zone["syncToken"] = token }
            let reply = try api.send(
                CloudKitAPI.Call(
                    url: api.endpoints.privateDatabase(database, "changes/zone"),
                    body: try JSONSerialization.data(withJSONObject: ["zones": [zone]]), about: "/", kind: "changes/zone"))
            let object = try? CloudKitAPI.object(reply.answer, about: "/")
            var result = (object?["zones"] as? [[String: Any]])?.first
            if reply.answer.status != 200 { result = object }
            guard let result else { throw api.failure(reply.answer, about: "/") }
            if let error = CloudKitAPI.ServerError(result) {
                if error.code == "ZONE_NOT_FOUND" { return .zoneMissing }
                if token != nil, ["BAD_REQUEST", "NOT_FOUND"].contains(error.code) { return .tokenRejected }
                throw api.failure(error, about: "/")
            }
            for record in result["records"] as? [[String: Any]] ?? [] {
                guard let name = record["recordName"] as? String else { continue }
                guard record["deleted"] as? Bool != true, var parsed = Self.parse(record) else {
                    updated.items[name] = nil
                    continue
                }
                // Contents held in memory for this pass, up to a budget.
                if let data = parsed.item.data {
                    if held + data.count > Self.heldContentBudget && !parsed.item.path.hasSuffix(".json") {
                        parsed.item.data = nil
                    } else {
                        held += data.count
                    }
                }
                updated.items[parsed.name] = parsed.item
                if let url = parsed.downloadURL { urls[parsed.name] = url }
            }
            guard let next = result["syncToken"] as? String else {
                throw CloudError.failed(path: "/", reason: "iCloud's list of changes has no sync token")
            }
            token = next
            if result["moreComing"] as? Bool == true { continue }
            updated.syncToken = next
            updated.zoneMissing = false
            return .done(updated, downloadURLs: urls)
        }
    }

    /// The bytes of files the changes carried that one pass keeps in memory.
    static let heldContentBudget = 64 << 20

    /// The record type of every MiDiccio cloud file.
    static let recordType = "CloudFile"

    private var zoneID: [String: Any] { ["zoneName": database.zone] }

    /// A record of a cloud file as CloudKit returns it: its index item, and where its
    /// asset can be downloaded. Nil for anything else (another app's record, a record
    /// whose name does not match its path).
    static func parse(_ record: [String: Any]) -> (name: String, item: CloudKitIndex.Item, downloadURL: String?)? {
        guard let name = record["recordName"] as? String, let tag = record["recordChangeTag"] as? String,
            let fields = record["fields"] as? [String: Any],
            let path = (fields["path"] as? [String: Any])?["value"] as? String, CloudKitIndex.recordName(path) == name
        else { return nil }
        let modified = ((record["modified"] as? [String: Any])?["timestamp"] as? NSNumber)?.int64Value ?? 0
        let asset = (fields["file"] as? [String: Any])?["value"] as? [String: Any]
        var data: Data?
        if asset == nil {
            guard let text = (fields["data"] as? [String: Any])?["value"] as? String, let bytes = Data(base64Encoded: text) else {
                return nil
            }
            data = bytes
        }
        let size =
            ((fields["size"] as? [String: Any])?["value"] as? NSNumber)?.intValue ?? (asset?["size"] as? NSNumber)?.intValue ?? data?.count
            ?? 0
        let item = CloudKitIndex.Item(path: path, tag: tag, size: size, modified: modified, asset: asset != nil, data: data)
        return (name, item, asset?["downloadURL"] as? String)
    }

    // MARK: - Requests

    /// Sends `operations` to `records/modify` and returns one result a operation.
    private func modify(_ operations: [[String: Any]], about: String) throws -> (results: [[String: Any]], resent: Bool) {
        let (object, resent) = try api.post(
            "records/modify", database: database, body: ["operations": operations, "zoneID": zoneID, "atomic": false], about: about)
        guard let results = object["records"] as? [[String: Any]], results.count == operations.count else {
            throw CloudError.failed(path: about, reason: "iCloud's answer does not hold one result for each change")
        }
        return (results, resent)
    }

    /// Makes the zone when CloudKit said it is missing.
    private func ensureZone() throws {
        guard index.zoneMissing else { return }
        let (object, _) = try api.post(
            "zones/modify", database: database,
            body: ["operations": [["operationType": "create", "zone": ["zoneID": zoneID]]]], about: "/")
        if let result = (object["zones"] as? [[String: Any]])?.first, let error = CloudKitAPI.ServerError(result) {
            throw api.failure(error, about: "/")
        }
        mutate { $0.zoneMissing = false }
    }

    /// The record `name` as CloudKit has it now, or nil when it does not exist.
    private func lookUp(_ name: String, about: String) throws -> (item: CloudKitIndex.Item, downloadURL: String?)? {
        let (object, _) = try api.post(
            "records/lookup", database: database, body: ["records": [["recordName": name]], "zoneID": zoneID], about: about)
        guard let record = (object["records"] as? [[String: Any]])?.first else {
            throw CloudError.failed(path: about, reason: "iCloud's answer holds no record")
        }
        if let error = CloudKitAPI.ServerError(record) {
            guard ["NOT_FOUND", "ZONE_NOT_FOUND"].contains(error.code) else { throw api.failure(error, about: about) }
            mutate { $0.items[name] = nil }
            return nil
        }
        guard let parsed = Self.parse(record) else { return nil }
        state.withLock { state in
            if let url = parsed.downloadURL { state.downloadURLs[name] = url }
        }
        return (parsed.item, parsed.downloadURL)
    }

    /// Uploads `bytes` as the asset of record `name`; the receipt goes into the record. Bytes
    /// held in a file go from it with their length, never whole in memory.
    private func uploadAsset(_ bytes: CloudBytes, name: String, about: String) throws -> [String: Any] {
        let (object, _) = try api.post(
            "assets/upload", database: database,
            body: ["zoneID": zoneID, "tokens": [["recordType": Self.recordType, "recordName": name, "fieldName": "file"]]], about: about)
        guard let url = ((object["tokens"] as? [[String: Any]])?.first)?["url"] as? String else {
            throw CloudError.failed(path: about, reason: "iCloud gave no address to upload to")
        }
        var call = CloudKitAPI.Call(url: url, contentType: "application/octet-stream", about: about, kind: "asset.put")
        switch bytes {
        case .memory(let data): call.body = data
        case .file(let file): call.bodyFile = file
        }
        let reply = try api.send(call)
        guard reply.answer.status == 200, let receipt = try CloudKitAPI.object(reply.answer, about: about)["singleFile"] as? [String: Any]
        else { throw api.failure(reply.answer, about: about) }
        // The receipt says how many bytes iCloud kept: a short asset is never attached.
        if let kept = (receipt["size"] as? NSNumber)?.intValue, kept != bytes.count {
            throw CloudError.failed(path: about, reason: "iCloud kept \(kept) of the \(bytes.count) bytes sent")
        }
        return receipt
    }

    /// Saves `data` at `path` with `operationType` ("forceReplace" or "create"); returns
    /// the per-record error CloudKit gave, if any, and whether the request was sent again.
    private func save(_ path: String, _ bytes: CloudBytes, operationType: String) throws -> (error: CloudKitAPI.ServerError?, resent: Bool)
    {
        let name = try Self.checkedName(path)
        try ensureZone()
        var fields: [String: Any] = ["path": ["value": path, "type": "STRING"], "size": ["value": bytes.count, "type": "INT64"]]
        // Bytes kept in the record itself, and in the index: small files only.
        var inline: Data?
        if bytes.count <= api.options.inlineLimit {
            let data = try bytes.wholeData()
            inline = data
            fields["data"] = ["value": data.base64EncodedString(), "type": "BYTES"]
        } else {
            fields["file"] = ["value": try uploadAsset(bytes, name: name, about: path), "type": "ASSETID"]
        }
        let operation: [String: Any] = [
            "operationType": operationType, "record": ["recordName": name, "recordType": Self.recordType, "fields": fields],
        ]
        var attempt = try modify([operation], about: path)
        if let error = CloudKitAPI.ServerError(attempt.results[0]), error.code == "ZONE_NOT_FOUND" {
            // The zone went away during this sync: make it again and save once more.
            mutate { $0.zoneMissing = true }
            try ensureZone()
            attempt = try modify([operation], about: path)
        }
        let result = attempt.results[0]
        if let error = CloudKitAPI.ServerError(result) { return (error, attempt.resent) }
        // What the answer says of the record (an answer without its fields leaves the
        // rest to the next pass), and the news of a replaced zone is spent: one save.
        var item = CloudKitIndex.Item(path: path, tag: "", size: bytes.count, modified: 0, asset: inline == nil, data: inline)
        if let parsed = Self.parse(result) {
            item = parsed.item
            item.data = item.asset ? nil : inline
            item.size = bytes.count
            if let url = parsed.downloadURL { state.withLock { $0.downloadURLs[name] = url } }
        }
        mutate { index in
            index.items[name] = item
            index.replaced = nil
        }
        return (nil, attempt.resent)
    }

    /// The record name for `path`, which CloudKit must accept (at most 255 characters).
    private static func checkedName(_ path: String) throws -> String {
        let name = CloudKitIndex.recordName(path)
        guard name.utf8.count <= 255 else { throw CloudError.failed(path: path, reason: "the path is too long for an iCloud record name") }
        return name
    }

    // MARK: - CloudStorage

    /// The files directly in `folder`, from the index.
    public func list(_ folder: String) throws -> [CloudEntry] {
        try ensureCurrent()
        return index.files(in: folder).map { item in
            CloudEntry(name: String(item.path.split(separator: "/").last ?? ""), size: item.size)
        }.sorted { $0.name < $1.name }
    }

    /// The folders directly in `folder`: iCloud keeps files by path, so those that hold
    /// a file, from the index.
    public func folders(in folder: String) throws -> [String] {
        try ensureCurrent()
        return CloudPaths.folders(in: folder, holding: index.items.values.map(\.path))
    }

    /// The file's bytes: from the index when it holds them, else from its record or asset.
    public func read(_ path: String) throws -> Data? {
        try download(path, spillFrom: nil)?.body
    }

    /// The file as `read` finds it, except that an asset download of a megabyte or more
    /// (a snapshot) is kept in a temporary file as it arrives and handed over held open.
    public func readBytes(_ path: String) throws -> CloudBytes? {
        try download(path, spillFrom: CloudBytes.fileFrom)?.bytes
    }

    /// The file's contents as an answer: from the index or its record when they hold them,
    /// else its asset downloaded (into a temporary file from `spillFrom` bytes on); nil
    /// when there is none.
    private func download(_ path: String, spillFrom: Int?) throws -> HTTPAnswer? {
        func held(_ data: Data) -> HTTPAnswer { HTTPAnswer(status: 200, headers: [:], body: data) }
        try ensureCurrent()
        let name = CloudKitIndex.recordName(path)
        guard var item = index.items[name] else { return nil }
        if let data = item.data { return held(data) }
        var url = state.withLock { $0.downloadURLs[name] }
        var lookedUp = false
        if !item.asset || url == nil {
            guard let fresh = try lookUp(name, about: path) else { return nil }
            (item, url, lookedUp) = (fresh.item, fresh.downloadURL, true)
            if let data = item.data { return held(data) }
        }
        while true {
            guard let address = url?.replacingOccurrences(of: "${f}", with: Self.assetFileName(path)) else {
                throw CloudError.failed(path: path, reason: "iCloud gave no address to download it from")
            }
            let reply = try api.send(
                CloudKitAPI.Call(
                    method: "GET", url: address, maxBody: api.options.maxFileBytes, spillFrom: spillFrom, about: path,
                    kind: "asset.get"))
            switch reply.answer.status {
            case 200:
                return reply.answer
            case let status where [403, 404, 410].contains(status) && !lookedUp:
                // The address expired, or the asset was replaced: ask for a new one once.
                guard let fresh = try lookUp(name, about: path) else { return nil }
                if let data = fresh.item.data { return held(data) }
                (url, lookedUp) = (fresh.downloadURL, true)
            default:
                throw api.failure(reply.answer, about: path)
            }
        }
    }

    /// The file name an asset download asks for (`${f}` in CloudKit's address).
    private static func assetFileName(_ path: String) -> String {
        GoogleTokenService.formEncode(String(path.split(separator: "/").last ?? "file"))
    }

    /// Creates or replaces the file's record (with `forceReplace`: each file has one writer).
    public func write(_ path: String, _ data: Data) throws {
        try ensureCurrent()
        if let error = try save(path, .memory(data), operationType: "forceReplace").error { throw api.failure(error, about: path) }
    }

    /// Creates the file's record only when none exists (CloudKit's `create`).
    public func create(_ path: String, _ data: Data) throws {
        try create(path, bytes: .memory(data))
    }

    /// `create` for bytes that may be held in a file (a large snapshot): its asset goes up
    /// from the file with its length, never whole in memory.
    public func create(_ path: String, bytes: CloudBytes) throws {
        try ensureCurrent()
        if index.items[CloudKitIndex.recordName(path)] != nil { throw CloudError.exists(path: path) }
        let (error, resent) = try save(path, bytes, operationType: "create")
        guard let error else { return }
        guard error.code == "EXISTS" else { throw api.failure(error, about: path) }
        // What is there goes into the index, so a read in this pass finds it: another
        // device's first sync made the cloud's manifest at that moment, and this one's read
        // of it answered from the index taken at its start, so nothing, and the sync failed
        // saying the cloud was gone "although this device synced with it before" (found by
        // the exploratory helper, round 15C).
        if let existing = try lookUp(CloudKitIndex.recordName(path), about: path) {
            mutate { $0.items[CloudKitIndex.recordName(path)] = existing.item }
            // After a dropped connection, the first attempt may have made it: then it is ours.
            if resent, let found = try readBytes(path), try found.hasSameBytes(as: bytes) { return }
        }
        throw CloudError.exists(path: path)
    }

    /// Removes the file's record; true when it existed.
    @discardableResult
    public func delete(_ path: String) throws -> Bool {
        try deleteAll([path]) > 0
    }

    /// Removes the records of all `paths`, up to `operationsPerRequest` in each request;
    /// returns how many existed.
    public func deleteAll(_ paths: [String]) throws -> Int {
        try ensureCurrent()
        if index.zoneMissing { return 0 }
        var removed = 0
        let names = paths.map(CloudKitIndex.recordName)
        for start in stride(from: 0, to: names.count, by: max(1, api.options.operationsPerRequest)) {
            let batch = Array(names[start..<min(names.count, start + max(1, api.options.operationsPerRequest))])
            let operations: [[String: Any]] = batch.map { ["operationType": "forceDelete", "record": ["recordName": $0]] }
            let about = batch.count == 1 ? paths[start] : "/"
            let (results, _) = try modify(operations, about: about)
            // The index is saved once a batch, not once a record.
            var gone: [String] = []
            defer { mutate { index in for name in gone { index.items[name] = nil } } }
            for (name, result) in zip(batch, results) {
                if let error = CloudKitAPI.ServerError(result) {
                    guard ["NOT_FOUND", "ZONE_NOT_FOUND"].contains(error.code) else { throw api.failure(error, about: about) }
                } else {
                    removed += 1
                }
                gone.append(name)
            }
        }
        return removed
    }

    /// Deletes the zone and everything in it. For tests that run against a real iCloud
    /// and must leave nothing behind.
    package func removeEverything() throws {
        let (object, _) = try api.post(
            "zones/modify", database: database,
            body: ["operations": [["operationType": "delete", "zone": ["zoneID": zoneID]]]], about: "/")
        if let result = (object["zones"] as? [[String: Any]])?.first, let error = CloudKitAPI.ServerError(result),
            error.code != "ZONE_NOT_FOUND"
        {
            throw api.failure(error, about: "/")
        }
        var empty = CloudKitIndex(database: database.location)
        empty.zoneMissing = true
        commit(empty, downloadURLs: [:], replacing: true)
    }
}
