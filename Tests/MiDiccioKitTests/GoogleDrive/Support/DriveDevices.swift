import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// Devices that sync through one fake Google Drive, each with its own library file,
/// clock and storage (so each keeps its own index of the Drive in its library).
final class DriveDevices {
    let tenant: FakeDriveTenant
    let space: GoogleDriveSpace
    let directory: URL
    let credentials: GoogleDriveCredentials
    var options: GoogleDriveStorage.Options
    private(set) var storages: [String: GoogleDriveStorage] = [:]
    private(set) var devices: [TestDevice] = []
    private var clock = CloudBackendFixture.start.milliseconds

    init(
        tenant: FakeDriveTenant, space: GoogleDriveSpace, directory: URL,
        options: GoogleDriveStorage.Options = FakeDriveTenant.quickOptions()
    ) throws {
        self.tenant = tenant
        self.space = space
        self.directory = directory
        self.options = options
        credentials = try tenant.credentials(for: space)
    }

    /// A new device with an empty library.
    func device(_ name: String) throws -> TestDevice {
        let storage = tenant.storage(space, credentials: credentials, options: options)
        storages[name] = storage
        let device = try TestDevice(
            name: name, path: directory.appendingPathComponent("\(name).sqlite").path, storage: storage,
            clock: ManualClock(start: Timestamp(milliseconds: clock)))
        devices.append(device)
        return device
    }

    /// The storage device `name` syncs through.
    func storage(_ name: String) -> GoogleDriveStorage { storages[name]! }

    /// Moves every device's clock forward.
    func advance(_ milliseconds: Int64) {
        for device in devices { device.clock.advance(by: milliseconds) }
    }

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

/// Runs `body` with devices on a fresh fake Drive.
func withDrive<T>(_ label: String, space: GoogleDriveSpace = .appData, _ body: (DriveDevices) throws -> T) throws -> T {
    let tenant = try GoogleDriveTests.tenant(label)
    return try withTemporaryDirectory { directory in
        try body(try DriveDevices(tenant: tenant, space: space, directory: directory))
    }
}
