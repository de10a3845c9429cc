import Foundation
import MiDiccioFiles
import MiDiccioModel
import Synchronization

/// This device's sign-in to iCloud, kept in a file beside the library
/// (`library.sqlite.icloud`) that only its owner can read (mode 0600), as the other
/// back ends' credentials are kept: never in the library, a backup, a log or a message.
///
/// Holds the container's API token (made by the app's developer in the CloudKit Console)
/// and the web auth token Apple gave when the user signed in. CloudKit may send a new web
/// auth token with any answer; the newest one is written back here (`ICloudSession`).
public struct ICloudCredentials: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The container the tokens belong to.
    public var container: String
    /// The environment the API token was made for.
    public var environment: CloudKitEnvironment
    /// The container's API token (`ckAPIToken`).
    public var apiToken: String
    /// The user's web auth token (`ckWebAuthToken`).
    public var webAuthToken: String
    /// The signed-in user's record name in the container, when known; a sign-in to
    /// another Apple Account gives another one.
    public var userRecordName: String?

    /// Makes credentials.
    public init(container: String, environment: CloudKitEnvironment, apiToken: String, webAuthToken: String, userRecordName: String? = nil)
    {
        self.container = container
        self.environment = environment
        self.apiToken = apiToken
        self.webAuthToken = webAuthToken
        self.userRecordName = userRecordName
    }

    /// Never shows a token.
    public var description: String { "iCloud sign-in (\(container), \(environment.rawValue))" }

    /// Never shows a token, also not to `dump` or a debugger.
    public var customMirror: Mirror {
        Mirror(
            self, children: ["container": container, "environment": environment.rawValue, "tokens": "<hidden>"],
            displayStyle: .struct)
    }

    /// The sign-in file of the library at `libraryPath`.
    public static func filePath(forLibrary libraryPath: String) -> String { FileSystem.sideFileBase(libraryPath) + ".icloud" }

    /// True when these tokens are for `database`'s container and environment.
    public func covers(_ database: CloudKitDatabase) -> Bool {
        container == database.container && environment == database.environment
    }

    /// What every message about a lost sign-in says.
    public static let signInAgain = "iCloud needs you to sign in again: midiccio remote set icloud"

    /// The credentials stored at `path`, or nil when there is no file.
    public static func load(from path: String) throws -> ICloudCredentials? {
        guard let data = try FileSystem.secretContentsIfPresent(path) else { return nil }
        guard let object = JSONText.parse(data) as? [String: Any],
            object["format"] as? String == "midiccio-icloud",
            let container = object["container"] as? String, CloudKitDatabase.isContainer(container),
            let environment = (object["environment"] as? String).flatMap(CloudKitEnvironment.init(rawValue:)),
            let apiToken = object["apiToken"] as? String, !apiToken.isEmpty,
            let webAuthToken = object["webAuthToken"] as? String, !webAuthToken.isEmpty
        else {
            // Says nothing about the content: it holds tokens.
            throw FileError(path: path, reason: "is not a MiDiccio iCloud sign-in file; sign in again with: midiccio remote set icloud")
        }
        return ICloudCredentials(
            container: container, environment: environment, apiToken: apiToken, webAuthToken: webAuthToken,
            userRecordName: object["userRecordName"] as? String)
    }

    /// Writes the credentials to `path`, replacing the file atomically; the new file is
    /// made with mode 0600 before any byte is written.
    public func save(to path: String) throws {
        var object: [(String, String)] = [
            ("format", JSONText.quote("midiccio-icloud")), ("version", "1"), ("container", JSONText.quote(container)),
            ("environment", JSONText.quote(environment.rawValue)), ("apiToken", JSONText.quote(apiToken)),
            ("webAuthToken", JSONText.quote(webAuthToken)),
        ]
        if let userRecordName { object.append(("userRecordName", JSONText.quote(userRecordName))) }
        try FileSystem.writeAtomically(JSONText.fileObject(object), to: path, ownerOnly: true)
    }

    /// Removes the file at `path`; no file is not an error.
    public static func remove(at path: String) throws {
        try FileSystem.removeIfPresent(path)
    }
}

/// The tokens one storage signs its requests with. CloudKit may answer with a new web
/// auth token (header `X-Apple-CloudKit-Web-Auth-Token`); `renew` keeps the newest, in
/// memory and in the sign-in file.
public final class ICloudSession: Sendable {
    private let path: String?
    private let credentials: Mutex<ICloudCredentials>

    /// A session for `credentials`, saved to `path` when a token is renewed (nil: kept
    /// in memory only).
    public init(credentials: ICloudCredentials, path: String?) {
        self.credentials = Mutex(credentials)
        self.path = path
    }

    /// The tokens as they are now.
    public var current: ICloudCredentials { credentials.withLock { $0 } }

    /// Takes the web auth token the sign-in file holds when it is another than this
    /// session's, of the same account (user, container, API token): another process
    /// renewed it since this session read the file. True when it took one. A sync that
    /// waited for another sync's lock held the token as it was before that sync renewed
    /// it, and CloudKit refused it: "iCloud needs you to sign in again" of a sign-in that
    /// worked (found by the exploratory helper, round 22B #1).
    package func takeNewerTokenFromFile() -> Bool {
        guard let path, let file = (try? ICloudCredentials.load(from: path)) ?? nil else { return false }
        return credentials.withLock { stored in
            guard file.webAuthToken != stored.webAuthToken, !file.webAuthToken.isEmpty, file.userRecordName == stored.userRecordName,
                file.container == stored.container, file.apiToken == stored.apiToken
            else { return false }
            stored.webAuthToken = file.webAuthToken
            return true
        }
    }

    /// Keeps `token` when it differs from the stored one, and writes it to the sign-in file
    /// when that file still holds the token it replaces.
    package func renew(_ token: String) {
        guard !token.isEmpty else { return }
        let renewed = credentials.withLock { stored -> (updated: ICloudCredentials, replaced: String)? in
            guard stored.webAuthToken != token else { return nil }
            let replaced = stored.webAuthToken
            stored.webAuthToken = token
            return (stored, replaced)
        }
        // Best effort: a file that cannot be written keeps the older token, which CloudKit
        // still takes until it expires. Not over another account's sign-in: a person who
        // signed in to another account while this sync ran had the old account's token
        // written back over theirs (found by the exploratory helper, round 22B #2). Over
        // the same account's (another process renewed it too), the newest stays.
        guard let renewed, let path, let file = (try? ICloudCredentials.load(from: path)) ?? nil else { return }
        let sameUser = file.userRecordName != nil && file.userRecordName == renewed.updated.userRecordName
        guard file.webAuthToken == renewed.replaced || sameUser else { return }
        try? renewed.updated.save(to: path)
    }
}
