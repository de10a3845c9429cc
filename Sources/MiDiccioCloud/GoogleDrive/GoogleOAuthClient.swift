import Foundation

/// The OAuth client a Google sign-in goes through: one the user made in the Google
/// Cloud console (a "Desktop app" client; README, "Sync through Google Drive"), or one
/// built into this binary by whoever packaged it.
///
/// A desktop client's secret is not a secret in OAuth's sense (every copy of the app
/// holds it), but it is still never printed or sent to the web page.
public struct GoogleOAuthClient: Sendable, Hashable, CustomStringConvertible {
    /// Where a client came from, so messages can say which one is used.
    public enum Origin: String, Sendable, Hashable {
        /// Given on the command line or typed into the page.
        case given
        /// Built into this binary (`make build MIDICCIO_GDRIVE_CLIENT_ID=...`).
        case builtIn = "built-in"
        /// `MIDICCIO_GDRIVE_CLIENT_ID` (and `MIDICCIO_GDRIVE_CLIENT_SECRET`).
        case environment
    }

    /// The environment variable naming the client id when none is built in.
    public static let idVariable = "MIDICCIO_GDRIVE_CLIENT_ID"
    /// The environment variable holding the client secret, if the client has one.
    public static let secretVariable = "MIDICCIO_GDRIVE_CLIENT_SECRET"

    /// The client id (`1234-abc.apps.googleusercontent.com`).
    public var id: String
    /// The client secret, if any.
    public var secret: String?
    /// Where it came from.
    public var origin: Origin

    /// A client; nil when `id` or `secret` cannot be one (empty, spaces, control
    /// characters, longer than 512 characters).
    public init?(id: String, secret: String?, origin: Origin) {
        guard Self.isPlausible(id), secret.map(Self.isPlausible) ?? true else { return nil }
        self.id = id
        self.secret = secret
        self.origin = origin
    }

    /// Names the client, never its secret.
    public var description: String { "OAuth client \(id) (\(origin.rawValue))" }

    /// The client used when none is given: the built-in one, else the one the
    /// environment names, else nil.
    public static func standard(environment: [String: String]) -> GoogleOAuthClient? {
        if let builtIn { return builtIn }
        guard let id = environment[idVariable], !id.isEmpty else { return nil }
        return GoogleOAuthClient(id: id, secret: secret(environment: environment), origin: .environment)
    }

    /// `MIDICCIO_GDRIVE_CLIENT_SECRET`, when set and not empty.
    public static func secret(environment: [String: String]) -> String? {
        environment[secretVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func isPlausible(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 512 && text.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 32 && $0.value < 127 }
    }
}
