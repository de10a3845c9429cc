import Foundation
import MiDiccioKit
import Testing

/// What a finished sign-in left beside the library, checked the way a careful user would.
struct StoredGoogleSignIn {
    /// The sign-in file's JSON.
    let object: [String: Any]
    /// Its permission bits.
    let mode: Int

    /// The sign-in file of the library at `libraryPath`, which must exist.
    init(libraryPath: String) throws {
        let path = GoogleDriveCredentials.filePath(forLibrary: libraryPath)
        mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
        let data = try #require(FileManager.default.contents(atPath: path))
        object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The refresh token Google gave.
    var refreshToken: String { object["refreshToken"] as? String ?? "" }
    /// Every token and secret in the file, none of which may ever be printed.
    var secrets: [String] {
        ["refreshToken", "accessToken", "clientSecret"].compactMap { object[$0] as? String }.filter { !$0.isEmpty }
    }
}

/// The remote of the library at `path`, read in this process.
func remote(ofLibraryAt path: String) throws -> RemoteConfig? {
    try WordLibrary(path: path, create: false, environment: ["LANG": "en_US.UTF-8"]).remote()
}

/// `address` with the value of its `state` parameter replaced: the address of another
/// sign-in, as an old browser tab would hold.
func withOtherState(_ address: String) throws -> String {
    var components = try #require(URLComponents(string: address))
    components.queryItems = components.queryItems?.map { $0.name == "state" ? URLQueryItem(name: "state", value: "not-this-one") : $0 }
    return try #require(components.string)
}
