import Foundation
import MiDiccioFiles
import MiDiccioModel

/// This device's sign-in to Google Drive, kept in a file beside the library
/// (`library.sqlite.google-drive`) that only its owner can read (mode 0600), as the
/// WebDAV password is kept: never in the library, a backup, a log or a message.
///
/// Holds the OAuth client the user made (its id and, for a "Desktop app" client, its
/// secret), the refresh token Google gave at sign-in, and the last access token with
/// its expiry, so that a sync in a new process does not spend a request on a new one.
public struct GoogleDriveCredentials: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The OAuth client id.
    public var clientID: String
    /// The OAuth client secret, if the client has one.
    public var clientSecret: String?
    /// The refresh token.
    public var refreshToken: String
    /// The scope granted at sign-in (space separated).
    public var scope: String
    /// The last access token, if any.
    public var accessToken: String?
    /// When `accessToken` stops working (milliseconds since 1970).
    public var accessTokenExpiry: Int64?

    /// Makes credentials.
    public init(
        clientID: String, clientSecret: String?, refreshToken: String, scope: String, accessToken: String? = nil,
        accessTokenExpiry: Int64? = nil
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.refreshToken = refreshToken
        self.scope = scope
        self.accessToken = accessToken
        self.accessTokenExpiry = accessTokenExpiry
    }

    /// Never shows a secret or a token.
    public var description: String { "Google Drive sign-in (client \(clientID))" }

    /// Never shows a secret or a token, also not to `dump` or a debugger.
    public var customMirror: Mirror {
        Mirror(self, children: ["clientID": clientID, "scope": scope, "tokens": "<hidden>"], displayStyle: .struct)
    }

    /// The sign-in file of the library at `libraryPath`.
    public static func filePath(forLibrary libraryPath: String) -> String { FileSystem.sideFileBase(libraryPath) + ".google-drive" }

    /// True when the granted scope reaches `space`.
    public func covers(_ space: GoogleDriveSpace) -> Bool {
        scope.split(separator: " ").contains { String($0) == space.scope || $0 == "https://www.googleapis.com/auth/drive" }
    }

    /// The credentials stored at `path`, or nil when there is no file.
    public static func load(from path: String) throws -> GoogleDriveCredentials? {
        guard let data = try FileSystem.secretContentsIfPresent(path) else { return nil }
        guard let object = JSONText.parse(data) as? [String: Any],
            object["format"] as? String == "midiccio-google-drive",
            let clientID = object["clientId"] as? String, !clientID.isEmpty,
            let refreshToken = object["refreshToken"] as? String, !refreshToken.isEmpty,
            let scope = object["scope"] as? String
        else {
            // Says nothing about the content: it holds tokens.
            throw FileError(
                path: path, reason: "is not a MiDiccio Google Drive sign-in file; sign in again with: midiccio remote set gdrive")
        }
        return GoogleDriveCredentials(
            clientID: clientID, clientSecret: object["clientSecret"] as? String, refreshToken: refreshToken, scope: scope,
            accessToken: object["accessToken"] as? String, accessTokenExpiry: (object["accessTokenExpiry"] as? Int).map(Int64.init))
    }

    /// Writes the credentials to `path`, replacing the file atomically; the new file is
    /// made with mode 0600 before any byte is written.
    public func save(to path: String) throws {
        var object: [(String, String)] = [
            ("format", JSONText.quote("midiccio-google-drive")), ("version", "1"), ("clientId", JSONText.quote(clientID)),
            ("refreshToken", JSONText.quote(refreshToken)), ("scope", JSONText.quote(scope)),
        ]
        if let clientSecret { object.append(("clientSecret", JSONText.quote(clientSecret))) }
        if let accessToken, let accessTokenExpiry {
            object.append(("accessToken", JSONText.quote(accessToken)))
            object.append(("accessTokenExpiry", String(accessTokenExpiry)))
        }
        try FileSystem.writeAtomically(JSONText.fileObject(object), to: path, ownerOnly: true)
    }

    /// Removes the file at `path`; no file is not an error.
    public static func remove(at path: String) throws {
        try FileSystem.removeIfPresent(path)
    }
}
