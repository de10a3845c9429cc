import Foundation
import MiDiccioKit
import MiDiccioTesting
import Testing

/// One iCloud account on the fake CloudKit of Tests/CloudKit (`MiDiccioTesting`'s
/// `FakeCloudKit`), for tests that sign in as a user would: the server `make test`
/// started when `MIDICCIO_ICLOUD_TEST_URL` is set, otherwise one started here and
/// stopped when this goes away. Its API token's callback is a free port of this
/// computer, so tests never wait for each other's port.
final class SignInTestCloudKit {
    private let server: FakeCloudKit
    private let startedHere: Bool
    /// This test's account.
    let tenant: FakeCloudKitTenant
    /// The callback address the API token sends the browser back to.
    let callbackURL: String
    /// A container and an API token the fake accepts.
    let container = "iCloud.app.midiccio.test"
    let apiToken = "Token1234abcd"

    init() throws {
        if let shared = FakeCloudKit.shared {
            server = shared
            startedHere = false
        } else {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("CloudKit/server.sh").path
            try #require(FileManager.default.fileExists(atPath: script), "the fake CloudKit is missing: \(script)")
            server = try FakeCloudKit.start(script: script)
            startedHere = true
        }
        tenant = server.tenant("signin")
        callbackURL = "http://127.0.0.1:\(try LoopbackPort.free())/icloud-callback"
        try tenant.configure(callbackURL: callbackURL)
    }

    deinit {
        if startedHere { server.stop() }
    }

    /// The environment that sends midiccio's iCloud requests here, with the container,
    /// API token and callback of this account, and no browser to open.
    var environment: [String: String] {
        tenant.environment.merging(
            [
                "MIDICCIO_ICLOUD_CONTAINER": container, "MIDICCIO_ICLOUD_API_TOKEN": apiToken,
                "MIDICCIO_ICLOUD_CALLBACK_URL": callbackURL, "BROWSER": "/bin/true",
            ]
        ) { $1 }
    }
}

/// What a finished iCloud sign-in left beside the library.
struct StoredICloudSignIn {
    /// The sign-in file's JSON.
    let object: [String: Any]
    /// Its permission bits.
    let mode: Int

    /// The sign-in file of the library at `libraryPath`, which must exist.
    init(libraryPath: String) throws {
        let path = ICloudCredentials.filePath(forLibrary: libraryPath)
        mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
        let data = try #require(FileManager.default.contents(atPath: path))
        object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The user's web auth token, which may never be printed. (The container's API token
    /// is not the user's secret: apps embed it, and Apple's sign-in address, which is
    /// printed, may carry it.)
    var secrets: [String] { ["webAuthToken"].compactMap { object[$0] as? String }.filter { !$0.isEmpty } }
}
