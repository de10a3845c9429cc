import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// The real cloud back ends the scenario tests of "never lose a word" run through: a
/// folder on disk, a folder on the WebDAV test server, and the app data folder of the
/// fake Google Drive, and a zone of the fake CloudKit (`make test` starts the servers;
/// under CI their tests run, and fail, without them).
enum CloudBackend: String, CaseIterable, CustomTestStringConvertible {
    case folder, webdav, gdrive, icloud

    /// The back ends this test run can use.
    static var available: [CloudBackend] {
        [.folder] + (WebDAVTestServer.shouldRun ? [.webdav] : []) + (GoogleDriveTests.shouldRun ? [.gdrive] : [])
            + (ICloudTests.shouldRun ? [.icloud] : [])
    }

    var testDescription: String { rawValue }
}

/// One cloud location on a back end, shared by several devices, each with its own
/// library file, clock and connection, in a temporary folder removed afterwards.
final class CloudBackendFixture {
    /// Where every device's clock starts unless told otherwise.
    static let start = Timestamp(milliseconds: 1_764_000_000_123)

    let backend: CloudBackend
    /// The folder holding this test's library files.
    let directory: URL
    /// The cloud's files on disk: the folder itself, or the WebDAV server's folder.
    let cloudRoot: String
    private let webdav: (server: WebDAVTestServer, address: WebDAVAddress)?
    private let drive: (tenant: FakeDriveTenant, credentials: GoogleDriveCredentials)?
    private var iCloud: (tenant: FakeCloudKitTenant, credentials: ICloudCredentials)?
    /// Every device made so far.
    private(set) var devices: [TestDevice] = []

    fileprivate init(backend: CloudBackend, directory: URL) throws {
        self.backend = backend
        self.directory = directory
        switch backend {
        case .folder:
            cloudRoot = directory.appendingPathComponent("cloud").path
            try FileManager.default.createDirectory(atPath: cloudRoot, withIntermediateDirectories: true)
            webdav = nil
            drive = nil
        case .gdrive:
            let tenant = try GoogleDriveTests.requireServer().tenant("never-lose")
            drive = (tenant, try tenant.credentials(for: .appData))
            webdav = nil
            cloudRoot = ""
        case .icloud:
            let tenant = try ICloudTests.tenant("never-lose")
            iCloud = (tenant, try ICloudTests.credentials(tenant))
            drive = nil
            webdav = nil
            cloudRoot = ""
        case .webdav:
            let server = try WebDAVTestServer.require()
            guard let state = ProcessInfo.processInfo.environment["MIDICCIO_WEBDAV_TEST_STATE"], !state.isEmpty else {
                throw WebDAVTestSetupError(
                    "MIDICCIO_WEBDAV_TEST_STATE is not set, so the server's files cannot be looked at; run 'make test'")
            }
            let address = try server.freshAddress("never-lose")
            webdav = (server, address)
            drive = nil
            cloudRoot = state + "/root" + address.decodedPath.dropFirst(URL(string: server.url)!.path.count)
        }
    }

    /// A new connection to the cloud, as a device makes its own.
    func storage() -> any CloudStorage {
        switch backend {
        case .folder: return FolderStorage(root: cloudRoot)
        case .webdav: return webdav!.server.storage(webdav!.address, options: instantRetryOptions())
        case .gdrive: return drive!.tenant.storage(.appData, credentials: drive!.credentials)
        case .icloud: return ICloudTests.storage(iCloud!.tenant, credentials: iCloud!.credentials)
        }
    }

    /// A path for a file named `name` in the test's folder.
    func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A new device with an empty library, its clock at `start` plus `clockOffset` ms.
    func device(_ name: String, clockOffset: Int64 = 0) throws -> TestDevice {
        try register(
            TestDevice(
                name: name, path: file("\(name).sqlite"), storage: storage(),
                clock: ManualClock(start: Timestamp(milliseconds: Self.start.milliseconds + clockOffset))))
    }

    /// A device whose library is a copy of `source`'s file, as copied to a new laptop.
    func copy(of source: TestDevice, as name: String) throws -> TestDevice {
        try source.copyLibraryFile(to: file("\(name).sqlite"))
        return try register(
            TestDevice(
                name: name, path: file("\(name).sqlite"), storage: storage(),
                clock: ManualClock(start: source.clock.now())))
    }

    private func register(_ device: TestDevice) -> TestDevice {
        devices.append(device)
        return device
    }

    /// Moves every device's clock forward by `milliseconds`.
    func advanceClocks(by milliseconds: Int64) {
        for device in devices { device.clock.advance(by: milliseconds) }
    }

    /// Syncs `devices` one after another, `rounds` times, a second apart.
    func syncRounds(_ devices: [TestDevice], _ rounds: Int = 2) throws {
        for _ in 0..<rounds {
            for device in devices {
                advanceClocks(by: 1_000)
                try device.sync()
            }
        }
    }

    /// Every file in the cloud by path, read from disk (temporary files included).
    var files: [String: Data] {
        if let drive { return (try? drive.tenant.files()) ?? [:] }
        if let iCloud { return (try? ICloudTests.files(iCloud.tenant)) ?? [:] }
        var result: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: cloudRoot) else { return result }
        for case let relative as String in walker {
            var isDirectory: ObjCBool = false
            let full = cloudRoot + "/" + relative
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            result[relative] = FileManager.default.contents(atPath: full)
        }
        return result
    }

    /// True when some cloud file holds `text` (batch files are looked at uncompressed).
    func cloudHolds(_ text: String) -> Bool {
        files.values.contains { data in
            let bytes = (try? BatchCodec.decompress(data)) ?? [UInt8](data)
            return String(decoding: bytes, as: UTF8.self).contains(text)
        }
    }

    /// The path on disk of the cloud file `path`.
    func diskPath(_ path: String) -> String { cloudRoot + "/" + path }
}

/// Runs `body` with a fresh fixture on `backend`, in its own temporary folder.
func withBackend<T>(_ backend: CloudBackend, _ body: (CloudBackendFixture) throws -> T) throws -> T {
    try withTemporaryDirectory { directory in
        try body(try CloudBackendFixture(backend: backend, directory: directory))
    }
}

extension TestDevice {
    /// Every word outside the Trash, by term (for messages).
    func terms() throws -> [String] { try library.list().map(\.term).sorted() }
}

extension CloudBackendFixture {
    /// A laptop and a phone that have synced a first word, and a backup of the laptop's
    /// library file made then.
    func laptopAndPhoneWithABackup(first: String) throws -> (laptop: TestDevice, phone: TestDevice, backup: String) {
        let laptop = try device("laptop")
        let phone = try device("phone")
        try laptop.add(first)
        try syncRounds([laptop, phone])
        let backup = file("laptop-backup.sqlite")
        try laptop.copyLibraryFile(to: backup)
        return (laptop, phone, backup)
    }
}
