import Foundation

/// Which of a CloudKit container's two databases a library syncs with: `development`
/// (for the app's developers; its schema can still change) or `production`.
public enum CloudKitEnvironment: String, Sendable, Hashable, CaseIterable {
    /// The container's development environment.
    case development
    /// The container's production environment, the one users' apps use.
    case production
}

/// Where in iCloud a library's cloud files live: a custom zone of the user's private
/// database in a CloudKit container and environment.
///
/// Kept in the library as the remote's location (`iCloud.app.midiccio/production/MiDiccio`);
/// it holds nothing secret. The tokens live in the library's iCloud file
/// (`ICloudCredentials`).
public struct CloudKitDatabase: Sendable, Hashable, CustomStringConvertible {
    /// The zone MiDiccio uses unless told otherwise.
    public static let defaultZone = "MiDiccio"

    /// The container identifier ("iCloud.app.midiccio").
    public var container: String
    /// Development or production.
    public var environment: CloudKitEnvironment
    /// The custom zone in the private database.
    public var zone: String

    /// Checks the parts: `nil` when the container is not an `iCloud.` identifier or the
    /// zone name is not one CloudKit accepts.
    public init?(container: String, environment: CloudKitEnvironment, zone: String = CloudKitDatabase.defaultZone) {
        guard Self.isContainer(container), Self.isZone(zone) else { return nil }
        self.container = container
        self.environment = environment
        self.zone = zone
    }

    /// Reads a stored location ("CONTAINER/ENVIRONMENT/ZONE").
    public init?(location: String) {
        let parts = location.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let environment = CloudKitEnvironment(rawValue: parts[1]) else { return nil }
        self.init(container: parts[0], environment: environment, zone: parts[2])
    }

    /// The text stored in the library: "CONTAINER/ENVIRONMENT/ZONE".
    public var location: String { "\(container)/\(environment.rawValue)/\(zone)" }

    /// For people: "icloud iCloud.app.midiccio" (with the environment when it is
    /// development, and the zone when it is not the default).
    public var description: String {
        var text = "icloud \(container)"
        if environment == .development { text += " (development)" }
        if zone != Self.defaultZone { text += " zone \(zone)" }
        return text
    }

    /// True for "iCloud." followed by letters, digits, dots, dashes and underscores.
    public static func isContainer(_ text: String) -> Bool {
        let prefix = "iCloud."
        guard text.hasPrefix(prefix), text.count > prefix.count, text.count <= 255 else { return false }
        return text.dropFirst(prefix.count).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-_".contains($0)) }
    }

    /// True for a custom zone name: 1 to 64 letters, digits, '-' or '_', not starting
    /// with '_' (CloudKit's own zones do).
    public static func isZone(_ text: String) -> Bool {
        guard (1...64).contains(text.count), !text.hasPrefix("_") else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}

/// Where the iCloud back end sends its requests: Apple's CloudKit Web Services, or a
/// stand-in named by `MIDICCIO_ICLOUD_API_URL` (the tests' fake CloudKit).
public struct CloudKitEndpoints: Sendable, Hashable {
    /// The environment variable naming another base address.
    public static let apiVariable = "MIDICCIO_ICLOUD_API_URL"
    /// Apple's address.
    public static let apple = CloudKitEndpoints(api: "https://api.apple-cloudkit.com")

    /// The base of `/database/1/...`, without a trailing slash.
    public var api: String

    /// Makes endpoints for the base address `api`.
    public init(api: String) {
        var base = api
        while base.hasSuffix("/") { base.removeLast() }
        self.api = base
    }

    /// Apple's address, or the one `MIDICCIO_ICLOUD_API_URL` names.
    public static func from(environment: [String: String]) -> CloudKitEndpoints {
        if let api = environment[apiVariable], !api.isEmpty { return CloudKitEndpoints(api: api) }
        return apple
    }

    /// The address of a call on the private database: `.../database/1/CONTAINER/ENV/private/OPERATION`.
    package func privateDatabase(_ database: CloudKitDatabase, _ operation: String) -> String {
        "\(api)/database/1/\(database.container)/\(database.environment.rawValue)/private/\(operation)"
    }

    /// The address of `users/caller`, which answers who is signed in (in the public
    /// database, where Apple documents it).
    package func caller(container: String, environment: CloudKitEnvironment) -> String {
        "\(api)/database/1/\(container)/\(environment.rawValue)/public/users/caller"
    }
}
