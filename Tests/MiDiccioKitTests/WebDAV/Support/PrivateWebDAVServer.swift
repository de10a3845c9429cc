import Foundation
@testable import MiDiccioKit

/// A lighttpd WebDAV server of one test's own, started with Tests/WebDAV/server.sh, so
/// the test can stop it and start it again without disturbing tests running alongside.
/// Stopped (by its process id) and removed when the test releases it.
final class PrivateWebDAVServer {
    /// Where the script keeps this server's config, files, port and process id.
    let state: String
    /// The server's root URL.
    let url: String
    /// The test user.
    let user: String
    /// The test user's password.
    let password: String

    /// Starts a new server on a free port.
    init() throws {
        let environment = ProcessInfo.processInfo.environment
        // Inside the state folder of `make test` when there is one, so that its final
        // `server.sh stop` also stops this server if the test process dies.
        let parent = environment["MIDICCIO_WEBDAV_TEST_STATE"].flatMap { $0.isEmpty ? nil : $0 } ?? NSTemporaryDirectory()
        state = parent + "/private-\(UUID().uuidString.prefix(8).lowercased())"
        let state = self.state
        try Self.script("start", state)
        func read(_ name: String) throws -> String {
            try String(contentsOfFile: state + "/" + name, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        url = try read("url")
        user = try read("user")
        password = try read("password")
    }

    deinit {
        try? Self.script("stop", state)
    }

    /// Stops the server; its files and port are kept for `start`.
    func halt() throws { try Self.script("halt", state) }

    /// Starts the server again on the same port, with the same files.
    func start() throws { try Self.script("start", state) }

    /// A new folder on this server for one test (made by the first write).
    func freshAddress(_ label: String) throws -> WebDAVAddress {
        try WebDAVAddress.parse(url + "/\(label)-\(UUID().uuidString.prefix(8).lowercased())").address
    }

    /// A storage on `address` signed in as the test user.
    func storage(_ address: WebDAVAddress, options: WebDAVStorage.Options = instantRetryOptions()) -> WebDAVStorage {
        WebDAVStorage(address: address, user: user, password: password, options: options)
    }

    /// Tests/WebDAV/server.sh: from `MIDICCIO_WEBDAV_TEST_SCRIPT`, else found from this
    /// source file's place in the repository.
    static var scriptPath: String {
        if let path = ProcessInfo.processInfo.environment["MIDICCIO_WEBDAV_TEST_SCRIPT"], !path.isEmpty { return path }
        var url = URL(fileURLWithPath: #filePath)
        while url.lastPathComponent != "Tests", url.pathComponents.count > 1 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("WebDAV/server.sh").path
    }

    private static func script(_ command: String, _ state: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [scriptPath, command, state]
        // Files, not pipes: the server started in the background inherits these, and a
        // pipe it holds open would never reach end-of-file.
        let log = state + ".log"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: log) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw WebDAVTestSetupError("server.sh \(command) failed (\(process.terminationStatus)): \(output)")
        }
    }
}

/// Forwards every call to a storage, first running `before` with the call's kind
/// ("list", "read", "write", "delete") and its number in order (from 1): tests use it to
/// stop the server at an exact point of a sync.
final class InterceptingStorage: CloudStorage {
    let storage: any CloudStorage
    var before: ((_ kind: String, _ number: Int, _ path: String) throws -> Void)?
    private(set) var calls = 0

    init(_ storage: any CloudStorage) { self.storage = storage }

    var displayName: String { storage.displayName }

    private func note(_ kind: String, _ path: String) throws {
        calls += 1
        try before?(kind, calls, path)
    }

    func list(_ folder: String) throws -> [CloudEntry] {
        try note("list", folder)
        return try storage.list(folder)
    }

    func read(_ path: String) throws -> Data? {
        try note("read", path)
        return try storage.read(path)
    }

    func write(_ path: String, _ data: Data) throws {
        try note("write", path)
        try storage.write(path, data)
    }

    @discardableResult
    func delete(_ path: String) throws -> Bool {
        try note("delete", path)
        return try storage.delete(path)
    }
}
