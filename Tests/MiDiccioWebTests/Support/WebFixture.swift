import Foundation
import MiDiccioKit
import MiDiccioTesting
import MiDiccioWeb

#if canImport(Glibc)
import Glibc
#endif

/// One test's web app: a temporary library served on a free port of 127.0.0.1.
/// Everything (server, folder) goes away with the fixture.
final class WebFixture {
    let directory: String
    let libraryPath: String
    let app: WebApp
    let server: HTTPServer

    /// `environment` is added to the app's; `now` is the clock that expires Google
    /// sign-ins (milliseconds since 1970); `port` 0 picks a free one.
    /// `hostNames` (with `bindHost`, say 0.0.0.0) serves as `--lan` does; `limits` are the
    /// server's (a test may shrink the connection limit). `housekeepingInterval` replaces
    /// the app's second between scrubs of purged text and moves of the log.
    init(
        accessToken: String? = nil, environment: [String: String] = [:], port: UInt16 = 0,
        hostNames: Set<String>? = nil, bindHost: String = "127.0.0.1", limits: HTTPServer.Limits = HTTPServer.Limits(),
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) },
        housekeepingInterval: Double? = nil
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-web-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        libraryPath = directory + "/library.sqlite"
        _ = try WordLibrary(path: libraryPath, environment: ["LANG": "en_US.UTF-8"])
        app = WebApp(
            libraryPath: libraryPath,
            policy: hostNames.map { SecurityPolicy(hostNames: $0, accessToken: accessToken) }
                ?? SecurityPolicy(host: "127.0.0.1", accessToken: accessToken),
            appVersion: "midiccio test", environment: ["LANG": "en_US.UTF-8"].merging(environment) { $1 }, now: now,
            housekeepingInterval: housekeepingInterval)
        server = try HTTPServer(host: bindHost, port: port, limits: limits, handler: app)
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var csrfToken: String { app.policy.csrfToken }
    var host: String { "127.0.0.1:\(server.port)" }

    /// A connection of its own to the library, to check what the server did.
    func library() throws -> WordLibrary { try WordLibrary(path: libraryPath) }

    /// Sends one request over a real socket. State-changing methods carry the CSRF
    /// token unless `csrf` says otherwise; `host` replaces the Host header. The answer is
    /// awaited for at most `timeout` seconds.
    func send(
        _ method: String, _ target: String, body: Data = Data(), csrf: String?? = .none,
        host: String? = nil, headers: [String: String] = [:], timeout: Int = 10
    ) throws -> RawResponse {
        var lines = ["\(method) \(target) HTTP/1.1", "Host: \(host ?? self.host)", "Connection: close"]
        let token: String? =
            switch csrf {
            case .none: ["POST", "PUT", "DELETE"].contains(method) ? csrfToken : nil
            case .some(let value): value
            }
        if let token { lines.append("X-CSRF-Token: \(token)") }
        for (name, value) in headers { lines.append("\(name): \(value)") }
        if !body.isEmpty || ["POST", "PUT"].contains(method) { lines.append("Content-Length: \(body.count)") }
        var request = Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        request.append(body)
        return try RawHTTP.exchange(port: server.port, request: request, timeout: timeout)
    }

    /// A GET of the word list from another client (`source`, a loopback address), over a
    /// connection of its own: its status (0 for none) and how long it took.
    func timedGet(from source: String = "127.0.0.2") throws -> (status: Int, seconds: Double) {
        let started = Date()
        let socket = try OpenSocket(port: server.port, from: source, timeout: 5)
        socket.send("GET /api/words HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
        let status = (try? socket.answer().status) ?? 0
        return (status, Date().timeIntervalSince(started))
    }

    /// `send` with a JSON text body.
    func send(_ method: String, _ target: String, json: String, csrf: String?? = .none, timeout: Int = 10) throws -> RawResponse {
        try send(method, target, body: Data(json.utf8), csrf: csrf, timeout: timeout)
    }
}
