import Foundation
import MiDiccioModel

/// What a sign-in to iCloud needs besides the user: the CloudKit container and its API
/// token (both made by whoever packages MiDiccio, in the CloudKit Console), the
/// environment and zone, and the callback address Apple sends the browser back to (the
/// API token's "Sign-In Callback" in the CloudKit Console must be this very address).
///
/// Each value is given (a flag, or a field of the web page), else named by an environment
/// variable, else built into the binary, else a default where there is one.
public struct ICloudSignInSettings: Sendable, Hashable, CustomStringConvertible {
    /// The environment variable naming the container.
    public static let containerVariable = "MIDICCIO_ICLOUD_CONTAINER"
    /// The environment variable holding the API token.
    public static let apiTokenVariable = "MIDICCIO_ICLOUD_API_TOKEN"
    /// The environment variable naming the environment.
    public static let environmentVariable = "MIDICCIO_ICLOUD_ENVIRONMENT"
    /// The environment variable naming the callback address.
    public static let callbackVariable = "MIDICCIO_ICLOUD_CALLBACK_URL"
    /// The callback address unless another is named.
    public static let defaultCallbackURL = "http://127.0.0.1:47297/icloud-callback"

    /// Values built into the binary by `make build` (see BuiltInICloudApp.swift).
    public struct BuiltIn: Sendable, Hashable {
        /// The container id.
        public var container: String
        /// The container's API token.
        public var apiToken: String
        /// "development" or "production", or "" for the default.
        public var environment: String
        /// The callback address, or "" for the default.
        public var callbackURL: String
    }

    /// One of the values.
    public enum Field: String, Sendable, Hashable {
        /// The container id.
        case container
        /// Development or production.
        case environment
        /// The zone's name.
        case zone
        /// The API token.
        case apiToken
        /// The callback address.
        case callbackURL
    }

    /// Where a value came from.
    public enum Origin: String, Sendable, Hashable {
        /// A flag, or a field of the page.
        case given
        /// An environment variable.
        case environment
        /// Built into the binary.
        case builtIn = "built-in"
        /// MiDiccio's default.
        case standard
    }

    /// Why no settings could be made.
    public enum Problem: Error, Sendable, Equatable {
        /// No value anywhere, and no default.
        case missing(Field)
        /// A value that cannot be used: where it came from and why (for people; it never
        /// repeats an API token).
        case invalid(Field, Origin, String)
    }

    /// The container, environment and zone.
    public var database: CloudKitDatabase
    /// The container's API token (`ckAPIToken`).
    public var apiToken: String
    /// Where Apple sends the browser back.
    public var callback: ICloudCallback
    /// Where the API token came from.
    public var apiTokenOrigin: Origin

    /// Names the container and the callback, never the API token.
    public var description: String { "\(database) (callback \(callback.url))" }

    /// Settings from the given values (nil or empty: not given), else the environment
    /// variables of `variables`, else the built-in values, else the defaults.
    public static func resolve(
        container: String? = nil, environment: String? = nil, zone: String? = nil, apiToken: String? = nil, callbackURL: String? = nil,
        variables: [String: String], builtIn: BuiltIn? = ICloudSignInSettings.builtIn
    ) throws(Problem) -> ICloudSignInSettings {
        func pick(_ given: String?, _ variable: String, _ built: String?) -> (value: String, origin: Origin)? {
            if let given = given?.trimmed, !given.isEmpty { return (given, .given) }
            if let named = variables[variable], !named.isEmpty { return (named, .environment) }
            if let built, !built.isEmpty { return (built, .builtIn) }
            return nil
        }
        guard let container = pick(container, containerVariable, builtIn?.container) else { throw .missing(.container) }
        guard CloudKitDatabase.isContainer(container.value) else {
            throw .invalid(
                .container, container.origin, "must be a CloudKit container id such as iCloud.app.midiccio, not '\(container.value)'")
        }
        let environment = pick(environment, environmentVariable, builtIn?.environment) ?? ("production", .standard)
        guard let kind = CloudKitEnvironment(rawValue: environment.value) else {
            throw .invalid(.environment, environment.origin, "must be development or production, not '\(environment.value)'")
        }
        let typedZone = zone?.trimmed ?? ""
        let zone = typedZone.isEmpty ? CloudKitDatabase.defaultZone : typedZone
        guard let database = CloudKitDatabase(container: container.value, environment: kind, zone: zone) else {
            throw .invalid(
                .zone, .given, "must be 1 to 64 letters, digits, '-' or '_', not starting with '_' ('\(zone)')")
        }
        guard let token = pick(apiToken, apiTokenVariable, builtIn?.apiToken) else { throw .missing(.apiToken) }
        guard isToken(token.value) else {
            throw .invalid(.apiToken, token.origin, "must be the API token the CloudKit Console shows (letters and digits)")
        }
        let callbackText = pick(callbackURL, callbackVariable, builtIn?.callbackURL) ?? (defaultCallbackURL, .standard)
        let callback: ICloudCallback
        do {
            callback = try ICloudCallback(callbackText.value)
        } catch {
            throw .invalid(.callbackURL, callbackText.origin, error.description)
        }
        return ICloudSignInSettings(database: database, apiToken: token.value, callback: callback, apiTokenOrigin: token.origin)
    }

    /// What a form can be filled in with before anything is typed: the container, the
    /// environment and whether an API token is at hand without typing one. Never the token.
    public static func prefill(
        variables: [String: String], builtIn: BuiltIn? = ICloudSignInSettings.builtIn
    ) -> (
        container: String?, environment: CloudKitEnvironment, apiTokenAtHand: Bool
    ) {
        let container = [variables[containerVariable], builtIn?.container].compactMap { $0 }.first { !$0.isEmpty }
        let environment = [variables[environmentVariable], builtIn?.environment].compactMap { $0 }.first { !$0.isEmpty }
        let token = [variables[apiTokenVariable], builtIn?.apiToken].compactMap { $0 }.first { !$0.isEmpty }
        return (container, environment.flatMap(CloudKitEnvironment.init(rawValue:)) ?? .production, token != nil)
    }

    /// True for text that can be an API token: 8 to 512 ASCII letters and digits.
    static func isToken(_ text: String) -> Bool {
        (8...512).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}

/// The address Apple sends the browser back to after a sign-in, on this computer:
/// `http://127.0.0.1:PORT/PATH` (or `localhost`), where MiDiccio listens.
public struct ICloudCallback: Sendable, Hashable {
    /// Why an address cannot be a callback.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        /// For people.
        public var description: String
    }

    /// The whole address, as set in the CloudKit Console.
    public let url: String
    /// Its port.
    public let port: UInt16
    /// Its path ("/icloud-callback"; "/" when it has none).
    public let path: String

    /// Reads `text`: http, host 127.0.0.1 or localhost, an explicit port, a path, no
    /// query, fragment or user.
    public init(_ text: String) throws(Problem) {
        guard let parts = URLComponents(string: text), parts.scheme?.lowercased() == "http",
            let host = parts.host?.lowercased(), host == "127.0.0.1" || host == "localhost"
        else {
            throw Problem(description: "must be an http:// address on 127.0.0.1 or localhost, not '\(text)'")
        }
        guard let port = parts.port, (1...65_535).contains(port) else {
            throw Problem(description: "must name its port (http://127.0.0.1:47297/icloud-callback), not '\(text)'")
        }
        guard parts.query == nil, parts.fragment == nil, parts.user == nil, parts.password == nil else {
            throw Problem(description: "must have no query, fragment or user name ('\(text)')")
        }
        url = text
        self.port = UInt16(port)
        path = parts.path.isEmpty ? "/" : parts.path
    }
}
