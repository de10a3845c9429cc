import Foundation

/// The fake CloudKit Web Services server the tests sync through
/// (`Tests/CloudKit/fake_cloudkit.py`): real HTTP on 127.0.0.1, the private database of
/// iCloud accounts with zones, records, changes, assets, the 421 sign-in answer and token
/// rotation, as the contract of issue 17 describes them.
///
/// `make test` starts one and names it in `MIDICCIO_ICLOUD_TEST_URL`; `start(script:)`
/// starts a private one. Each test works in a tenant of its own: an empty iCloud account
/// with its own tokens, settings, faults and request counts.
package final class FakeCloudKit: Sendable {
    private let process: FakeServerProcess

    private init(_ process: FakeServerProcess) { self.process = process }

    /// The server's base ("http://127.0.0.1:PORT").
    package var url: String { process.url }

    /// The variable `make test` names the server in.
    package static let variable = "MIDICCIO_ICLOUD_TEST_URL"

    /// The server `make test` started, if any.
    package static let shared: FakeCloudKit? = FakeServerProcess.shared(variable).map(FakeCloudKit.init)

    /// Starts a private server with `script` (Tests/CloudKit/server.sh); `stop()` ends it.
    package static func start(script: String) throws -> FakeCloudKit {
        FakeCloudKit(
            try FakeServerProcess.start(script: script, prefix: "midiccio-fake-cloudkit") {
                FakeCloudKitError("the fake CloudKit server did not say where it listens (\($0)/url)")
            })
    }

    /// Stops a server started by `start(script:)`.
    package func stop() { process.stop() }

    /// A new, empty iCloud account on this server, named after `label` (its ASCII letters,
    /// digits and dashes) and a random suffix.
    package func tenant(_ label: String) -> FakeCloudKitTenant {
        let name =
            label.filter { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" }.prefix(40) + "-"
            + UUID().uuidString.prefix(8).lowercased()
        return FakeCloudKitTenant(base: url + "/t/" + name)
    }
}

/// A fault the fake answers the next matching requests with (`POST _fake/faults`).
package struct FakeCloudKitFault: Sendable {
    /// The operation it applies to ("records/modify", "changes/zone", "asset.put", ...), or "*".
    package var op: String
    /// The HTTP status; the fake picks one from `code` when nil.
    package var status: Int?
    /// The `serverErrorCode` ("THROTTLED", "TRY_AGAIN_LATER", ...); the fake picks one from `status` when nil.
    package var code: String?
    /// The `retryAfter` seconds the answer carries.
    package var retryAfter: Double?
    /// How many matching requests fail.
    package var times: Int
    /// Whether the connection is closed with no answer instead.
    package var drop: Bool
    /// For "asset.put": the upload succeeds but keeps only this many bytes (and says so).
    package var keep: Int?
    /// Whether the request takes effect and is answered, but the connection closes after
    /// the headers and half the body.
    package var cutBody = false

    /// A fault for the next `times` requests of `op`.
    package init(
        op: String = "*", status: Int? = nil, code: String? = nil, retryAfter: Double? = nil, times: Int = 1, drop: Bool = false
    ) {
        self.op = op
        self.status = status
        self.code = code
        self.retryAfter = retryAfter
        self.times = times
        self.drop = drop
    }

    /// `times` answers of 429 THROTTLED with `retryAfter` seconds.
    package static func throttled(_ op: String = "*", retryAfter: Double = 0, times: Int = 1) -> FakeCloudKitFault {
        FakeCloudKitFault(op: op, status: 429, code: "THROTTLED", retryAfter: retryAfter, times: times)
    }

    /// The next asset upload keeps only its first `bytes` bytes.
    package static func assetKeeping(_ bytes: Int) -> FakeCloudKitFault {
        var fault = FakeCloudKitFault(op: "asset.put")
        fault.keep = bytes
        return fault
    }

    /// The next request of `op` takes effect, and its answer is cut after the headers.
    package static func bodyCut(_ op: String = "*") -> FakeCloudKitFault {
        var fault = FakeCloudKitFault(op: op)
        fault.cutBody = true
        return fault
    }

    /// `times` connections closed with no answer.
    package static func dropped(_ op: String = "*", times: Int = 1) -> FakeCloudKitFault {
        FakeCloudKitFault(op: op, times: times, drop: true)
    }

    /// The fault as the control API takes it.
    var json: [String: Any] {
        var object: [String: Any] = ["op": op, "times": times, "drop": drop]
        if let status { object["status"] = status }
        if let code { object["code"] = code }
        if let retryAfter { object["retryAfter"] = retryAfter }
        if let keep { object["keep"] = keep }
        if cutBody { object["cutBody"] = true }
        return object
    }
}

/// A tenant's storage quota, as `FakeCloudKitTenant.configure(quota:)` sets it.
package enum FakeCloudKitQuota: Sendable {
    /// Writes that would store more than this many bytes (fields and assets) fail with QUOTA_EXCEEDED.
    case bytes(Int)
    /// No quota (the default).
    case unlimited
}

/// One empty iCloud account on the fake server, with its own data per container and
/// environment, tokens, settings, faults and counts.
package struct FakeCloudKitTenant: Sendable {
    /// Its base address ("http://127.0.0.1:PORT/t/NAME"), standing for Apple's API address.
    package let base: String

    /// The environment that points MiDiccio at this account.
    package var environment: [String: String] { ["MIDICCIO_ICLOUD_API_URL": base] }

    /// The sign-in page's address for `apiToken` (where a 421's `redirectURL` leads).
    package func signInURL(apiToken: String) -> String {
        base + "/_signin?apiToken=" + (apiToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? apiToken)
    }

    /// Changes the account's settings; nil leaves one as it is.
    /// - Parameters:
    ///   - callbackURL: where the sign-in page sends the user back with `ckWebAuthToken`.
    ///   - rotate: whether every successful answer carries a new web auth token.
    ///   - rotationGrace: seconds a rotated-out token keeps working (0: none).
    ///   - tokenLifetime: seconds a new web auth token lasts (default 1800).
    ///   - deny: whether the sign-in page sends the user back without a token.
    ///   - quota: the storage quota.
    ///   - downloadLifetime: seconds an asset's download URL lasts (default 3600).
    ///   - apiTokens: the API tokens the account accepts (by default any of 8 or more letters and digits).
    package func configure(
        callbackURL: String? = nil, rotate: Bool? = nil, rotationGrace: Double? = nil, tokenLifetime: Double? = nil,
        deny: Bool? = nil, quota: FakeCloudKitQuota? = nil, downloadLifetime: Double? = nil, apiTokens: [String]? = nil
    ) throws {
        var changes: [String: Any] = [:]
        if let callbackURL { changes["callbackURL"] = callbackURL }
        if let rotate { changes["rotate"] = rotate }
        if let rotationGrace { changes["rotationGrace"] = rotationGrace }
        if let tokenLifetime { changes["tokenLifetime"] = tokenLifetime }
        if let deny { changes["deny"] = deny }
        switch quota {
        case .bytes(let bytes): changes["quota"] = bytes
        case .unlimited: changes["quota"] = NSNull()
        case nil: break
        }
        if let downloadLifetime { changes["downloadLifetime"] = downloadLifetime }
        if let apiTokens { changes["apiTokens"] = apiTokens }
        _ = try request("POST", "/_fake/config", json: changes)
    }

    /// A web auth token, as signing in would give, and the user's record name.
    package func grant() throws -> (token: String, user: String) {
        let object = try request("POST", "/_fake/grant", json: [:])
        guard let token = object["webAuthToken"] as? String, let user = object["userRecordName"] as? String else {
            throw FakeCloudKitError("the fake gave no web auth token")
        }
        return (token, user)
    }

    /// Makes every web auth token of the account stop working at once.
    package func expireTokens() throws { _ = try request("POST", "/_fake/expire-tokens", json: [:]) }

    /// Deletes a zone and its records, as the user deleting the app's data in iCloud Settings.
    package func deleteZone(container: String, environment: String, zone: String) throws {
        _ = try request("POST", "/_fake/delete-zone", json: ["container": container, "environment": environment, "zoneName": zone])
    }

    /// Replaces the account's faults with `faults` (an empty list clears them).
    package func setFaults(_ faults: [FakeCloudKitFault]) throws {
        _ = try request("POST", "/_fake/faults", body: try JSONSerialization.data(withJSONObject: faults.map(\.json)))
    }

    /// Requests served so far, by operation ("records/modify", "changes/zone", "asset.put", ...).
    package func stats() throws -> [String: Int] {
        let object = try request("GET", "/_fake/stats")
        return (object["requests"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue }
    }

    /// The bytes the account stores: record fields and assets.
    package func bytesStored() throws -> Int {
        (try request("GET", "/_fake/stats")["bytesStored"] as? NSNumber)?.intValue ?? 0
    }

    /// Sets the request counts back to zero.
    package func resetStats() throws { _ = try request("POST", "/_fake/stats/reset", json: [:]) }

    /// The records of a zone as the fake stores them, by name: `recordName`, `recordType`,
    /// `recordChangeTag`, `fields` (an asset's value holds `fileChecksum`, `size` and
    /// `content_base64`), `created` and `modified`. Throws when the zone does not exist.
    package func records(container: String, environment: String = "development", zone: String) throws -> [[String: Any]] {
        var query = URLComponents()
        query.queryItems = [
            URLQueryItem(name: "container", value: container), URLQueryItem(name: "environment", value: environment),
            URLQueryItem(name: "zone", value: zone),
        ]
        let object = try request("GET", "/_fake/records?" + (query.percentEncodedQuery ?? ""))
        return object["records"] as? [[String: Any]] ?? []
    }

    /// The records of a zone in a typed form: each field's value, with BYTES fields and
    /// assets as their bytes.
    package func recordContents(
        container: String, environment: String = "development", zone: String
    ) throws
        -> [String: FakeCloudKitRecord]
    {
        var result: [String: FakeCloudKitRecord] = [:]
        for raw in try records(container: container, environment: environment, zone: zone) {
            guard let name = raw["recordName"] as? String else { continue }
            var record = FakeCloudKitRecord(
                name: name, type: raw["recordType"] as? String ?? "", changeTag: raw["recordChangeTag"] as? String ?? "")
            for (field, body) in raw["fields"] as? [String: [String: Any]] ?? [:] {
                switch body["type"] as? String {
                case "BYTES": record.data[field] = Data(base64Encoded: body["value"] as? String ?? "")
                case "ASSETID":
                    let value = body["value"] as? [String: Any] ?? [:]
                    record.data[field] = Data(base64Encoded: value["content_base64"] as? String ?? "")
                case "STRING": record.strings[field] = body["value"] as? String
                default: record.numbers[field] = (body["value"] as? NSNumber)?.int64Value
                }
            }
            result[name] = record
        }
        return result
    }

    private func request(_ method: String, _ path: String, json: [String: Any]) throws -> [String: Any] {
        try request(method, path, body: try JSONSerialization.data(withJSONObject: json))
    }

    private func request(_ method: String, _ path: String, body: Data? = nil) throws -> [String: Any] {
        guard let url = URL(string: base + path) else { throw FakeCloudKitError("bad control address \(base + path)") }
        let answer = BlockingJSONRequest.send(method, url, body: body)
        guard (200..<300).contains(answer.status) else { throw FakeCloudKitError("the fake answered \(method) \(path) with an error") }
        return answer.object ?? [:]
    }
}

/// A record as the fake stores it, in a typed form (`FakeCloudKitTenant.recordContents`).
package struct FakeCloudKitRecord: Sendable, Equatable {
    /// Its `recordName`.
    package var name: String
    /// Its `recordType`.
    package var type: String
    /// Its `recordChangeTag`.
    package var changeTag: String
    /// Its STRING fields.
    package var strings: [String: String] = [:]
    /// Its INT64, TIMESTAMP and DOUBLE fields (doubles truncated).
    package var numbers: [String: Int64] = [:]
    /// Its BYTES fields, decoded, and its assets' bytes.
    package var data: [String: Data] = [:]
}

/// The fake CloudKit server is missing or misbehaved.
package struct FakeCloudKitError: Error, CustomStringConvertible {
    /// What went wrong.
    package var description: String
    init(_ description: String) { self.description = description }
}
