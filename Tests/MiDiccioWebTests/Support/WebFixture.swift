import Foundation
import MiDiccioKit
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
    /// sign-ins (milliseconds since 1970).
    init(
        accessToken: String? = nil, environment: [String: String] = [:],
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-web-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        libraryPath = directory + "/library.sqlite"
        _ = try WordLibrary(path: libraryPath, environment: ["LANG": "en_US.UTF-8"])
        app = WebApp(
            libraryPath: libraryPath, policy: SecurityPolicy(host: "127.0.0.1", accessToken: accessToken),
            appVersion: "midiccio test", environment: ["LANG": "en_US.UTF-8"].merging(environment) { $1 }, now: now)
        server = try HTTPServer(host: "127.0.0.1", port: 0, handler: app)
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
    /// token unless `csrf` says otherwise; `host` replaces the Host header.
    func send(
        _ method: String, _ target: String, body: Data = Data(), csrf: String?? = .none,
        host: String? = nil, headers: [String: String] = [:]
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
        return try RawHTTP.exchange(port: server.port, request: request)
    }

    /// `send` with a JSON text body.
    func send(_ method: String, _ target: String, json: String, csrf: String?? = .none) throws -> RawResponse {
        try send(method, target, body: Data(json.utf8), csrf: csrf)
    }
}

/// What came back: status, headers by lower-cased name, body.
struct RawResponse {
    var status: Int
    var headers: [String: String]
    var body: Data

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object (empty when it is not one).
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }

    /// The `words` array of a JSON answer.
    var words: [[String: Any]] { json["words"] as? [[String: Any]] ?? [] }
}

/// A deliberately plain HTTP/1.1 client over a blocking socket: it sends exactly the
/// bytes a test writes (a forged Host header, a broken body) and reads until the
/// server closes the connection.
enum RawHTTP {
    struct Failure: Error { var message: String }

    static func exchange(port: UInt16, request: Data) throws -> RawResponse {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(message: "socket failed") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(message: "cannot connect to port \(port)") }
        // The server may answer (413) and close before the whole body is sent; a failed
        // send is then expected, and the answer is still there to read.
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        guard let split = received.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(message: "no HTTP answer (got \(received.count) bytes)")
        }
        let head = String(decoding: received[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return RawResponse(status: status, headers: headers, body: Data(received[split.upperBound...]))
    }
}
