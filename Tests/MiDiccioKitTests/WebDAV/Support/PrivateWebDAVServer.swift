import Foundation
import MiDiccioTesting

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

#if canImport(Glibc)
import Glibc
#endif

/// A WebDAV server of one test's own, lighttpd started with Tests/WebDAV/server.sh (or
/// nginx, with Tests/WebDAV/nginx.sh), so the test can stop it and start it again without
/// disturbing tests running alongside. Stopped (by its process id) and removed when the
/// test releases it.
final class PrivateWebDAVServer {
    /// Which server software.
    enum Software {
        /// lighttpd with mod_webdav (Tests/WebDAV/server.sh).
        case lighttpd
        /// nginx with its dav module, and the dav-ext module for PROPFIND unless `listing`
        /// is false (Tests/WebDAV/nginx.sh).
        case nginx(listing: Bool)
    }

    /// The script that starts and stops it.
    let script: String
    /// Where the script keeps this server's config, files, port and process id.
    let state: String
    /// The server's root URL.
    let url: String
    /// The test user.
    let user: String
    /// The test user's password.
    let password: String

    /// Starts a new server on a free port. With `keepAliveIdle`, the server closes a
    /// kept-alive connection that has carried no request for that many seconds
    /// (lighttpd's default is 5).
    init(keepAliveIdle: Int? = nil, software: Software = .lighttpd) throws {
        let environment = ProcessInfo.processInfo.environment
        // Inside the state folder of `make test` when there is one, so that its final
        // `server.sh stop` also stops this server if the test process dies.
        let parent = environment["MIDICCIO_WEBDAV_TEST_STATE"].flatMap { $0.isEmpty ? nil : $0 } ?? NSTemporaryDirectory()
        state = parent + "/private-\(UUID().uuidString.prefix(8).lowercased())"
        let state = self.state
        switch software {
        case .lighttpd:
            script = Self.scriptPath
        case .nginx(let listing):
            script = URL(fileURLWithPath: Self.scriptPath).deletingLastPathComponent().appendingPathComponent("nginx.sh").path
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            if !listing { try Data().write(to: URL(fileURLWithPath: state + "/no-propfind")) }
        }
        if let keepAliveIdle {
            // server.sh includes extra.conf in the config it writes at the first start.
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            try Data("server.max-keep-alive-idle = \(keepAliveIdle)\n".utf8).write(to: URL(fileURLWithPath: state + "/extra.conf"))
        }
        try Self.run(script, "start", state)
        func read(_ name: String) throws -> String {
            try String(contentsOfFile: state + "/" + name, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        url = try read("url")
        user = try read("user")
        password = try read("password")
    }

    deinit {
        try? Self.run(script, "stop", state)
    }

    /// Stops the server; its files and port are kept for `start`.
    func halt() throws { try Self.run(script, "halt", state) }

    /// Starts the server again on the same port, with the same files.
    func start() throws { try Self.run(script, "start", state) }

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

    /// Runs a server's script with posix_spawn and waitpid: Foundation's Process sometimes
    /// never notices that the script ended while tests run in parallel.
    private static func run(_ scriptPath: String, _ command: String, _ state: String) throws {
        #if canImport(Glibc)
        let log = state + ".log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Files, not pipes: the server started in the background inherits these, and a
        // pipe it holds open would never reach end-of-file.
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = ["/bin/bash", scriptPath, command, state]
        var pointers: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        // The test runner's threads block signals; the server inherits the mask, and with
        // SIGTERM blocked it would only stop when killed outright.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, &attributes, &pointers, environ)
        guard spawned == 0 else { throw WebDAVTestSetupError("cannot run \(scriptPath): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw WebDAVTestSetupError("waitpid failed: \(errno)") }
        }
        // WIFEXITED and WEXITSTATUS are macros that Swift does not import.
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        guard exited, code == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw WebDAVTestSetupError("\(scriptPath) \(command) failed (status \(status)): \(output)")
        }
        #else
        throw WebDAVTestSetupError("private WebDAV servers need Linux")
        #endif
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
    var cloudNow: Timestamp? { storage.cloudNow }

    /// Numbers calls from 1 again.
    func resetCalls() { calls = 0 }

    private func note(_ kind: String, _ path: String) throws {
        calls += 1
        try before?(kind, calls, path)
    }

    func list(_ folder: String) throws -> [CloudEntry] {
        try note("list", folder)
        return try storage.list(folder)
    }

    func folders(in folder: String) throws -> [String] {
        try note("list", folder)
        return try storage.folders(in: folder)
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
