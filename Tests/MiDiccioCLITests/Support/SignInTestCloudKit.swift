import Foundation
import MiDiccioKit
import MiDiccioTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One iCloud account on the fake CloudKit of Tests/CloudKit, for tests that sign in as a
/// user would: the server named by `MIDICCIO_ICLOUD_TEST_URL` when set, otherwise one
/// started here with Tests/CloudKit/server.sh and stopped (by the process id it recorded)
/// when this goes away. Its API token's callback is a free port of this computer, so
/// tests never wait for each other's port.
final class SignInTestCloudKit {
    private let state: String?
    /// The server's address (`http://127.0.0.1:PORT`).
    let server: String
    /// This test's account on it.
    let tenant = "signin-" + UUID().uuidString.prefix(8).lowercased()
    /// The callback address the API token sends the browser back to.
    let callbackURL: String
    /// A container and an API token the fake accepts.
    let container = "iCloud.app.midiccio.test"
    let apiToken = "Token1234abcd"

    init() throws {
        if let shared = ProcessInfo.processInfo.environment["MIDICCIO_ICLOUD_TEST_URL"], !shared.isEmpty {
            server = shared
            state = nil
        } else {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("CloudKit/server.sh").path
            try #require(FileManager.default.fileExists(atPath: script), "the fake CloudKit is missing: \(script)")
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-ck-\(UUID().uuidString)").path
            try ServerScript.run(script, ["start", folder])
            state = folder
            server = try String(contentsOfFile: folder + "/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        callbackURL = "http://127.0.0.1:\(try Self.freePort())/icloud-callback"
        try configure(#"{"callbackURL": "\#(callbackURL)"}"#)
    }

    deinit {
        if let state {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("CloudKit/server.sh").path
            try? ServerScript.run(script, ["stop", state])
        }
    }

    /// The tenant's base: what `MIDICCIO_ICLOUD_API_URL` names.
    var base: String { "\(server)/t/\(tenant)" }

    /// The environment that sends midiccio's iCloud requests here, with the container,
    /// API token and callback of this account, and no browser to open.
    var environment: [String: String] {
        [
            "MIDICCIO_ICLOUD_API_URL": base, "MIDICCIO_ICLOUD_CONTAINER": container, "MIDICCIO_ICLOUD_API_TOKEN": apiToken,
            "MIDICCIO_ICLOUD_CALLBACK_URL": callbackURL, "BROWSER": "/bin/true",
        ]
    }

    /// Sets the account's configuration (`{"deny": true}` ...).
    func configure(_ json: String) throws {
        let answer = try LoopbackHTTP.send("POST", "\(base)/_fake/config", body: json)
        try #require(answer.status == 200, "\(answer.status) \(answer.body)")
    }

    /// How many requests each operation got ("users/caller": 2 ...).
    func requestCounts() throws -> [String: Int] {
        let answer = try LoopbackHTTP.send("GET", "\(base)/_fake/stats")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        return object["requests"] as? [String: Int] ?? [:]
    }

    /// A port no one listens on now.
    static func freePort() throws -> Int {
        let held = try holdPort()
        close(held.socket)
        return held.port
    }

    /// A socket listening on a free port of 127.0.0.1, as another program holding it
    /// would; close it when done.
    static func holdPort() throws -> (socket: Int32, port: Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 && listen(socket, 1) == 0
            }
        }
        guard bound else {
            close(socket)
            throw LoopbackHTTP.Failure(description: "no free port")
        }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
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
