import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// Where the iCloud tests find the fake CloudKit: the one `make test` starts
/// (`MIDICCIO_ICLOUD_TEST_URL`). Without it they are skipped with a reason, except under
/// CI, where they run and fail: a CI run must never pass by not testing.
enum ICloudTests {
    /// Whether the iCloud tests run.
    static var shouldRun: Bool { FakeCloudKit.shared != nil || WebDAVTestServer.inCI }

    /// Why they were skipped.
    static let skipReason: Comment = "needs the fake CloudKit: run 'make test', which starts it and sets MIDICCIO_ICLOUD_TEST_URL"

    /// The container, environment and zone every test uses (each test has an iCloud
    /// account, a tenant, of its own).
    static let database = CloudKitDatabase(container: "iCloud.app.midiccio.tests", environment: .development)!

    /// The API token the tests sign in with.
    static let apiToken = "midiccioTestApiToken"

    /// The server, or an error that fails the test.
    static func requireServer() throws -> FakeCloudKit {
        guard let server = FakeCloudKit.shared else {
            throw WebDAVTestSetupError("MIDICCIO_ICLOUD_TEST_URL is not set, so there is no fake CloudKit; run the tests with 'make test'")
        }
        return server
    }

    /// A fresh, empty iCloud account for one test.
    static func tenant(_ label: String) throws -> FakeCloudKitTenant { try requireServer().tenant(label) }

    /// Options that retry without waiting, with a short timeout.
    static func quickOptions() -> CloudKitStorage.Options {
        var options = CloudKitStorage.Options()
        options.timeout = 5
        options.sleep = { _ in }
        return options
    }

    /// Credentials with a web auth token the fake just granted.
    static func credentials(_ tenant: FakeCloudKitTenant, database: CloudKitDatabase = database) throws -> ICloudCredentials {
        let grant = try tenant.grant()
        return ICloudCredentials(
            container: database.container, environment: database.environment, apiToken: apiToken, webAuthToken: grant.token,
            userRecordName: grant.user)
    }

    /// Every cloud file in the account's MiDiccio zone by path, as the fake stores it.
    static func files(_ tenant: FakeCloudKitTenant, database: CloudKitDatabase = database) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let records = try tenant.recordContents(
            container: database.container, environment: database.environment.rawValue, zone: database.zone)
        for record in records.values {
            if let path = record.strings["path"] { result[path] = record.data["data"] ?? record.data["file"] ?? Data() }
        }
        return result
    }

    /// A storage on `tenant`, signed in with `credentials` (saved to `path` when renewed).
    static func storage(
        _ tenant: FakeCloudKitTenant, credentials: ICloudCredentials, path: String? = nil, database: CloudKitDatabase = database,
        options: CloudKitStorage.Options = quickOptions()
    ) -> CloudKitStorage {
        CloudKitStorage(
            database: database, session: ICloudSession(credentials: credentials, path: path),
            endpoints: CloudKitEndpoints(api: tenant.base), options: options)
    }
}

/// Devices that sync through one fake iCloud account, each with its own library file,
/// clock and storage (so each keeps its own index of the zone in its library).
final class ICloudDevices {
    let tenant: FakeCloudKitTenant
    let directory: URL
    let credentials: ICloudCredentials
    var options: CloudKitStorage.Options
    private(set) var storages: [String: CloudKitStorage] = [:]
    private(set) var devices: [TestDevice] = []

    init(tenant: FakeCloudKitTenant, directory: URL, options: CloudKitStorage.Options = ICloudTests.quickOptions()) throws {
        self.tenant = tenant
        self.directory = directory
        self.options = options
        credentials = try ICloudTests.credentials(tenant)
    }

    /// A new device with an empty library.
    func device(_ name: String) throws -> TestDevice {
        let storage = ICloudTests.storage(tenant, credentials: credentials, options: options)
        storages[name] = storage
        let device = try TestDevice(
            name: name, path: directory.appendingPathComponent("\(name).sqlite").path, storage: storage,
            clock: ManualClock(start: CloudBackendFixture.start))
        devices.append(device)
        return device
    }

    /// The storage device `name` syncs through.
    func storage(_ name: String) -> CloudKitStorage { storages[name]! }

    /// Syncs `devices` in turn, `rounds` times, a second apart.
    func syncRounds(_ devices: [TestDevice], _ rounds: Int = 2) throws {
        for _ in 0..<rounds {
            for device in devices {
                for each in self.devices { each.clock.advance(by: 1_000) }
                try device.sync()
            }
        }
    }
}

/// Runs `body` with devices on a fresh fake iCloud account.
func withICloud<T>(_ label: String, _ body: (ICloudDevices) throws -> T) throws -> T {
    let tenant = try ICloudTests.tenant(label)
    return try withTemporaryDirectory { directory in
        try body(try ICloudDevices(tenant: tenant, directory: directory))
    }
}
