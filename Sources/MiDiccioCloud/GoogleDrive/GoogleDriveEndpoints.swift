import Foundation

/// Where the Google Drive back end sends its requests: Google's own addresses, or a
/// stand-in named by the environment (the tests' fake Drive).
///
/// - `MIDICCIO_GDRIVE_API_URL` is the base of `/drive/v3` and `/upload/drive/v3`
///   (Google's is `https://www.googleapis.com`).
/// - `MIDICCIO_GDRIVE_OAUTH_URL` is the base of `/authorize`, `/token` and `/revoke`,
///   standing in for Google's sign-in page and token service.
public struct GoogleDriveEndpoints: Sendable, Hashable {
    /// The environment variable naming another base for the Drive API.
    public static let apiVariable = "MIDICCIO_GDRIVE_API_URL"
    /// The environment variable naming another base for sign-in and tokens.
    public static let oauthVariable = "MIDICCIO_GDRIVE_OAUTH_URL"

    /// The base of `/drive/v3/...` and `/upload/drive/v3/...`, without a trailing slash.
    public var api: String
    /// The page the user signs in on.
    public var authorize: String
    /// The token service (codes and refresh tokens are exchanged here).
    public var token: String
    /// Where a refresh token is revoked.
    public var revoke: String

    /// Google's real addresses.
    public static let google = GoogleDriveEndpoints(
        api: "https://www.googleapis.com",
        authorize: "https://accounts.google.com/o/oauth2/v2/auth",
        token: "https://oauth2.googleapis.com/token",
        revoke: "https://oauth2.googleapis.com/revoke")

    /// Makes endpoints from explicit addresses.
    public init(api: String, authorize: String, token: String, revoke: String) {
        self.api = Self.trimmed(api)
        self.authorize = authorize
        self.token = token
        self.revoke = revoke
    }

    /// Google's addresses, with either base replaced when its variable is set.
    public static func from(environment: [String: String]) -> GoogleDriveEndpoints {
        var endpoints = google
        if let api = environment[apiVariable], !api.isEmpty { endpoints.api = trimmed(api) }
        if let oauth = environment[oauthVariable], !oauth.isEmpty {
            let base = trimmed(oauth)
            endpoints.authorize = base + "/authorize"
            endpoints.token = base + "/token"
            endpoints.revoke = base + "/revoke"
        }
        return endpoints
    }

    private static func trimmed(_ base: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        return base
    }
}

/// Which part of the user's Drive MiDiccio keeps its files in, and the OAuth scope
/// that reaches exactly that part.
public enum GoogleDriveSpace: Sendable, Hashable {
    /// The hidden application data folder: the user does not see it in Drive, and the
    /// scope reaches nothing else (`drive.appdata`, a non-sensitive scope).
    case appData
    /// A visible folder of this name in My Drive; the scope reaches only the files
    /// MiDiccio made (`drive.file`).
    case folder(String)

    /// The OAuth scope to ask for.
    public var scope: String {
        switch self {
        case .appData: "https://www.googleapis.com/auth/drive.appdata"
        case .folder: "https://www.googleapis.com/auth/drive.file"
        }
    }

    /// The `spaces` parameter of list and changes requests.
    package var spacesParameter: String {
        switch self {
        case .appData: "appDataFolder"
        case .folder: "drive"
        }
    }

    /// For people: "the hidden app folder" or "folder “Words”".
    public var displayName: String {
        switch self {
        case .appData: "app data folder"
        case .folder(let name): "folder \(name)"
        }
    }
}
