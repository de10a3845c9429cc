import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

// Support for the WebDAV tests: the real lighttpd server `make test` starts, private
// servers a test can stop and start, and a fault-injecting TCP proxy.

/// The WebDAV server `make test` starts (Tests/WebDAV/server.sh), found through
/// `MIDICCIO_WEBDAV_TEST_URL`, `_USER` and `_PASSWORD`.
///
/// Without them the WebDAV tests are skipped with a reason, except under CI
/// (`CI=true`), where they run and fail: a CI run must never pass by not testing.
struct WebDAVTestServer: Sendable {
    /// The server's root URL ("http://127.0.0.1:PORT").
    let url: String
    /// The test user.
    let user: String
    /// The test user's password.
    let password: String

    private static let environment = ProcessInfo.processInfo.environment

    /// The server from the environment, if it is set.
    static let shared: WebDAVTestServer? = {
        guard let url = environment["MIDICCIO_WEBDAV_TEST_URL"], !url.isEmpty,
            let user = environment["MIDICCIO_WEBDAV_TEST_USER"], let password = environment["MIDICCIO_WEBDAV_TEST_PASSWORD"]
        else {
            return nil
        }
        return WebDAVTestServer(url: url, user: user, password: password)
    }()

    /// True when running under CI.
    static var inCI: Bool {
        let value = (environment["CI"] ?? "").lowercased()
        return value == "true" || value == "1" || value == "yes"
    }

    /// Whether the WebDAV tests run: when the server is there, and always under CI.
    static var shouldRun: Bool { shared != nil || inCI }

    /// Why the WebDAV tests were skipped.
    static let skipReason: Comment =
        "needs the WebDAV test server: run 'make test', which starts lighttpd and sets MIDICCIO_WEBDAV_TEST_URL"

    /// The server, or an error that fails the test when it is missing (under CI).
    static func require() throws -> WebDAVTestServer {
        guard let shared else {
            throw WebDAVTestSetupError(
                "MIDICCIO_WEBDAV_TEST_URL, _USER and _PASSWORD are not set, so there is no WebDAV server to test against; run the tests with 'make test'"
            )
        }
        return shared
    }

    /// A new folder on the server for one test, named after it and unique, that does not
    /// exist yet (the first write makes it).
    func freshAddress(_ label: String) throws -> WebDAVAddress {
        try WebDAVAddress.parse(url + "/\(label)-\(UUID().uuidString.prefix(8).lowercased())").address
    }

    /// A storage on `address` signed in as the test user (or with `password`).
    func storage(
        _ address: WebDAVAddress, password: String? = nil, options: WebDAVStorage.Options = WebDAVStorage.Options()
    ) -> WebDAVStorage {
        WebDAVStorage(address: address, user: user, password: password ?? self.password, options: options)
    }
}

/// The test environment is not set up; fails the test with what to do.
struct WebDAVTestSetupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Options that never wait between retries, recording the waits instead.
func instantRetryOptions(timeout: TimeInterval = 5, recorder: DelayRecorder? = nil) -> WebDAVStorage.Options {
    var options = WebDAVStorage.Options()
    options.timeout = timeout
    options.sleep = { seconds in recorder?.record(seconds) }
    return options
}

/// The waits a storage asked for between retries.
final class DelayRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [TimeInterval] = []

    func record(_ seconds: TimeInterval) {
        lock.lock()
        recorded.append(seconds)
        lock.unlock()
    }

    var delays: [TimeInterval] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}

// MARK: - Devices on a WebDAV server

/// One library syncing through its own connection to a WebDAV folder, like one device: a
/// `TestDevice` whose clock moves a second before each sync and 10 ms before each add.
/// `cloud`, when given, stands between the engine and `storage` (a fault injector).
func webdavDevice(
    name: String, directory: URL, storage: WebDAVStorage, cloud: (any CloudStorage)? = nil,
    start: Timestamp = Timestamp(milliseconds: 1_764_000_000_123)
) throws -> TestDevice {
    let device = try TestDevice(
        name: name, path: directory.appendingPathComponent("\(name).sqlite").path,
        storage: cloud ?? storage, clock: ManualClock(start: start))
    device.tick = (beforeSync: 1_000, beforeAdd: 10)
    return device
}

func withWebDAVDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    try withTemporaryDirectory(body)
}
