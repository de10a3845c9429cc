import Foundation
import MiDiccioKit

/// The fake Google Drive the tests and the benchmark sync through
/// (`Tests/GoogleDrive/fake_drive.py`): real HTTP on 127.0.0.1, the Drive API v3 and
/// Google's token service as documented, with the quirks that break naive clients.
///
/// `make test` starts one and names it in `MIDICCIO_GDRIVE_TEST_URL`; `start(script:)`
/// starts a private one. Each test works in a tenant of its own: an empty Drive with
/// its own tokens, faults and request counts.
package final class FakeGoogleDrive: Sendable {
    private let process: FakeServerProcess

    private init(_ process: FakeServerProcess) { self.process = process }

    /// The server's base ("http://127.0.0.1:PORT").
    package var url: String { process.url }

    /// The variable `make test` names the server in.
    package static let variable = "MIDICCIO_GDRIVE_TEST_URL"

    /// The server `make test` started, if any.
    package static let shared: FakeGoogleDrive? = FakeServerProcess.shared(variable).map(FakeGoogleDrive.init)

    /// Starts a private server with `script` (Tests/GoogleDrive/server.sh); `stop()` ends it.
    package static func start(script: String) throws -> FakeGoogleDrive {
        FakeGoogleDrive(
            try FakeServerProcess.start(script: script, prefix: "midiccio-fake-drive") {
                FakeDriveError("the fake Google Drive did not say where it listens (\($0)/url)")
            })
    }

    /// Stops a server started by `start(script:)`.
    package func stop() { process.stop() }

    /// A new, empty Drive on this server.
    package func tenant(_ label: String) -> FakeDriveTenant {
        let name = label.filter { $0.isLetter || $0.isNumber || $0 == "-" }.prefix(40) + "-" + UUID().uuidString.prefix(8).lowercased()
        return FakeDriveTenant(base: url + "/t/" + name)
    }
}

/// One empty Drive on the fake server, with its own tokens, faults and counts.
package struct FakeDriveTenant: Sendable {
    /// Its base address ("http://127.0.0.1:PORT/t/NAME").
    package let base: String

    /// The addresses a storage uses for it.
    package var endpoints: GoogleDriveEndpoints {
        GoogleDriveEndpoints(api: base, authorize: base + "/oauth/authorize", token: base + "/oauth/token", revoke: base + "/oauth/revoke")
    }

    /// The environment that points MiDiccio at this Drive.
    package var environment: [String: String] {
        [GoogleDriveEndpoints.apiVariable: base, GoogleDriveEndpoints.oauthVariable: base + "/oauth"]
    }

    /// A refresh token for `scope`, as a sign-in would give.
    package func grant(scope: String, clientID: String = "test-client") throws -> String {
        let object = try request("POST", "/_fake/grant", json: ["client_id": clientID, "scope": scope])
        guard let token = object["refresh_token"] as? String else { throw FakeDriveError("the fake gave no refresh token") }
        return token
    }

    /// Credentials signed in to `space`.
    package func credentials(for space: GoogleDriveSpace, clientID: String = "test-client") throws -> GoogleDriveCredentials {
        GoogleDriveCredentials(
            clientID: clientID, clientSecret: nil, refreshToken: try grant(scope: space.scope, clientID: clientID), scope: space.scope)
    }

    /// A storage on `space`, signed in with fresh credentials (kept in memory).
    package func storage(
        _ space: GoogleDriveSpace, options: GoogleDriveStorage.Options = FakeDriveTenant.quickOptions()
    ) throws
        -> GoogleDriveStorage
    {
        try storage(space, credentials: credentials(for: space), options: options)
    }

    /// A storage on `space` signed in with `credentials`.
    package func storage(
        _ space: GoogleDriveSpace, credentials: GoogleDriveCredentials, path: String? = nil,
        options: GoogleDriveStorage.Options = FakeDriveTenant.quickOptions()
    ) -> GoogleDriveStorage {
        let tokens = GoogleAccessTokens(credentials: credentials, path: path, service: GoogleTokenService(endpoints: endpoints, timeout: 5))
        return GoogleDriveStorage(space: space, tokens: tokens, endpoints: endpoints, options: options)
    }

    /// Options that retry without waiting, with a short timeout.
    package static func quickOptions() -> GoogleDriveStorage.Options {
        var options = GoogleDriveStorage.Options()
        options.timeout = 5
        options.sleep = { _ in }
        return options
    }

    /// Sets faults (see Tests/GoogleDrive/README.md); a null value removes one.
    package func setFaults(_ faults: [String: Any]) throws {
        _ = try request("POST", "/_fake/faults", json: faults)
    }

    /// Drive API requests served so far, in all and by endpoint ("files.list" ...).
    package func stats() throws -> (total: Int, byEndpoint: [String: Int]) {
        let object = try request("GET", "/_fake/stats")
        let counts = (object["byEndpoint"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue }
        return ((object["total"] as? NSNumber)?.intValue ?? 0, counts)
    }

    /// Sets the request counts back to zero.
    package func resetStats() throws { _ = try request("POST", "/_fake/stats/reset", json: [:]) }

    /// Every file and folder, as the fake holds them (trashed ones included).
    package func rawFiles() throws -> [[String: Any]] {
        let object = try request("GET", "/_fake/files")
        return object["files"] as? [[String: Any]] ?? []
    }

    /// The id of this Drive's app data folder.
    package func appDataFolderID() throws -> String {
        guard let id = try request("GET", "/_fake/files")["appDataFolderId"] as? String else {
            throw FakeDriveError("the fake did not name its app data folder")
        }
        return id
    }

    /// Makes a file or folder directly, as another program would (duplicates, files
    /// "by someone else"); returns its id.
    @discardableResult
    package func create(
        name: String, parent: String, folder: Bool = false, createdTime: String? = nil, content: Data? = nil
    ) throws
        -> String
    {
        var body: [String: Any] = [
            "name": name, "parents": [parent],
            "mimeType": folder ? "application/vnd.google-apps.folder" : "application/octet-stream",
        ]
        if let createdTime { body["createdTime"] = createdTime }
        if let content { body["content_base64"] = content.base64EncodedString() }
        let object = try request("POST", "/_fake/create", json: body)
        guard let id = object["id"] as? String else { throw FakeDriveError("the fake made no file") }
        return id
    }

    /// The content of every file below the MiDiccio folder, by path ("devices/x.json"):
    /// below the app data folder, or below every folder named `folder` outside others.
    package func files(folder: String? = nil) throws -> [String: Data] {
        let all = try rawFiles().filter { ($0["trashed"] as? Bool) != true }
        var byID: [String: [String: Any]] = [:]
        for file in all { if let id = file["id"] as? String { byID[id] = file } }
        func path(of id: String) -> String? {
            var parts: [String] = []
            var current = id
            for _ in 0..<64 {
                guard let file = byID[current], let name = file["name"] as? String else { return nil }
                let parent = (file["parents"] as? [String])?.first
                let isFolder = file["mimeType"] as? String == "application/vnd.google-apps.folder"
                if let folder {
                    if isFolder, name == folder, parent.map({ byID[$0] == nil }) ?? true { return parts.reversed().joined(separator: "/") }
                } else if parent.map({ byID[$0] == nil }) ?? true {
                    parts.append(name)
                    return parts.reversed().joined(separator: "/")
                }
                parts.append(name)
                guard let parent else { return nil }
                current = parent
            }
            return nil
        }
        var result: [String: Data] = [:]
        for file in all where file["mimeType"] as? String != "application/vnd.google-apps.folder" {
            guard let id = file["id"] as? String, let path = path(of: id), !path.isEmpty else { continue }
            result[path] = Data(base64Encoded: file["content_base64"] as? String ?? "") ?? Data()
        }
        return result
    }

    private func request(_ method: String, _ path: String, json: [String: Any]? = nil) throws -> [String: Any] {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        let answer = BlockingJSONRequest.send(method, URL(string: base + path)!, body: body)
        guard (200..<300).contains(answer.status) else { throw FakeDriveError("the fake answered \(method) \(path) with an error") }
        return answer.object ?? [:]
    }
}

/// The fake Google Drive is missing or misbehaved.
package struct FakeDriveError: Error, CustomStringConvertible {
    package var description: String
    init(_ description: String) { self.description = description }
}
