import Foundation
import MiDiccioKit
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The fake Google Drive of Tests/GoogleDrive (fake_drive.py, Drive API and Google's
/// OAuth endpoints over real HTTP on 127.0.0.1), for tests that sign in as a user would.
///
/// It is the server `make test` started when `MIDICCIO_GDRIVE_TEST_URL` is set; otherwise
/// one started here with Tests/GoogleDrive/server.sh in a temporary folder, and stopped
/// by that script (by the process id it recorded) when this goes away. Each instance is
/// a tenant of its own: an empty Drive with its own sign-ins and faults.
final class FakeGoogleDrive {
    /// `http://127.0.0.1:PORT`.
    let base: String
    /// This test's tenant.
    let tenant: String
    /// The folder of a server started here (nil: the one `make test` started).
    private let stateDirectory: String?

    init() throws {
        tenant = "signin" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        if let given = ProcessInfo.processInfo.environment["MIDICCIO_GDRIVE_TEST_URL"], !given.isEmpty {
            base = given.hasSuffix("/") ? String(given.dropLast()) : given
            stateDirectory = nil
            return
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("GoogleDrive/server.sh").path
        try #require(FileManager.default.fileExists(atPath: script), "the fake Google Drive is missing: \(script)")
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-fake-drive-\(UUID().uuidString)").path
        try Self.runScript(script, "start", state)
        stateDirectory = state
        base = try String(contentsOfFile: state + "/url", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        guard let stateDirectory else { return }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("GoogleDrive/server.sh").path
        try? Self.runScript(script, "stop", stateDirectory)
    }

    /// The environment that sends midiccio's Drive and sign-in requests here.
    var environment: [String: String] {
        [GoogleDriveEndpoints.apiVariable: "\(base)/t/\(tenant)", GoogleDriveEndpoints.oauthVariable: "\(base)/t/\(tenant)/oauth"]
    }

    /// Sets the tenant's faults, e.g. `{"denyConsent": true}`.
    func setFaults(_ json: String) throws {
        let answer = try LoopbackHTTP.send("POST", "\(base)/t/\(tenant)/_fake/faults", body: json)
        try #require(answer.status == 200, "setting faults failed: \(answer.status) \(answer.body)")
    }

    /// How many requests each endpoint got ("oauth.revoke": 1 ...).
    func requestCounts() throws -> [String: Int] {
        let answer = try LoopbackHTTP.send("GET", "\(base)/t/\(tenant)/_fake/stats")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any])
        return object["byEndpoint"] as? [String: Int] ?? [:]
    }

    /// Runs server.sh with posix_spawn (Foundation's Process can hang when tests wait for
    /// several at once), with this process's environment for its PATH.
    private static func runScript(_ script: String, _ command: String, _ state: String) throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-fake-drive-\(UUID().uuidString).log").path
        defer { unlink(log) }
        let child = try ChildProcess(
            executable: "/bin/bash", arguments: [script, command, state], environment: ProcessInfo.processInfo.environment,
            outputPath: log, errorPath: log)
        let ending = child.wait(timeout: 60) ?? child.killNow()
        try #require(ending.succeeded, "server.sh \(command) failed (\(ending)): \(child.errorOutput)")
    }
}

/// A plain HTTP/1.1 client for servers on 127.0.0.1 that never follows a redirect, so a
/// test can act as the browser one step at a time: read the 302's Location, then decide
/// whether to go there or paste it somewhere.
enum LoopbackHTTP {
    /// What came back.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String

        /// The Location header.
        var location: String? { headers["location"] }
    }

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// Sends one request to `address` (`http://127.0.0.1:PORT/...`) and reads the answer
    /// to its end.
    static func send(_ method: String, _ address: String, body: String = "") throws -> Answer {
        guard let url = URLComponents(string: address), url.scheme == "http", url.host == "127.0.0.1", let port = url.port else {
            throw Failure(description: "not an address on 127.0.0.1: \(address)")
        }
        let target = (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath) + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if !body.isEmpty || method == "POST" { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        let request = Data((head + "\r\n" + body).utf8)

        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = UInt16(port).bigEndian
        socketAddress.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "cannot connect to 127.0.0.1:\(port)") }
        _ = request.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        guard let split = received.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "no HTTP answer from \(address)")
        }
        let lines = String(decoding: received[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ").dropFirst().first ?? "") ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, headers: headers, body: String(decoding: received[split.upperBound...], as: UTF8.self))
    }
}

/// A pipe a test writes a child's standard input through, as a user types into it.
final class InputPipe {
    /// The end the child reads: pass it to `ChildProcesses.start(_:input:)`.
    let readEnd: Int32
    private var writeEnd: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw LoopbackHTTP.Failure(description: "pipe failed") }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        closeInput()
    }

    /// Writes `line` and a newline.
    func type(_ line: String) {
        let data = Data((line + "\n").utf8)
        _ = data.withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
    }

    /// Ends the input (the child reads end of file).
    func closeInput() {
        if writeEnd >= 0 { close(writeEnd) }
        writeEnd = -1
    }
}

extension ChildProcess {
    /// The first line of its standard output that contains `text`, trimmed, once it is
    /// there; fails when the child ends first or `timeout` seconds pass.
    func line(containing text: String, timeout: TimeInterval = 30) throws -> String {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            let lines = output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            if let line = lines.first(where: { $0.contains(text) }) { return line }
            if poll() != nil { break }
            usleep(10_000)
        }
        Issue.record("no line with '\(text)' in the output of \(commandLine): \(output) \(errorOutput)")
        throw LoopbackHTTP.Failure(description: "no line with '\(text)'")
    }
}
