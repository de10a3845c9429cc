import Foundation
import MiDiccioKit
import MiDiccioTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One empty Drive on the fake Google Drive of Tests/GoogleDrive (`MiDiccioTesting`'s
/// `FakeGoogleDrive`), for tests that sign in as a user would: the server `make test`
/// started when `MIDICCIO_GDRIVE_TEST_URL` is set, otherwise one started here with
/// Tests/GoogleDrive/server.sh and stopped (by the process id it recorded) when this goes
/// away.
final class SignInTestDrive {
    private let server: FakeGoogleDrive
    private let startedHere: Bool
    /// This test's Drive.
    let tenant: FakeDriveTenant

    init() throws {
        if let shared = FakeGoogleDrive.shared {
            server = shared
            startedHere = false
        } else {
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("GoogleDrive/server.sh").path
            try #require(FileManager.default.fileExists(atPath: script), "the fake Google Drive is missing: \(script)")
            server = try FakeGoogleDrive.start(script: script)
            startedHere = true
        }
        tenant = server.tenant("signin")
    }

    deinit {
        if startedHere { server.stop() }
    }

    /// The environment that sends midiccio's Drive and sign-in requests here.
    var environment: [String: String] { tenant.environment }

    /// Sets the tenant's faults, e.g. `{"denyConsent": true}`.
    func setFaults(_ json: String) throws {
        let faults = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        try tenant.setFaults(faults)
    }

    /// How many requests each endpoint got ("oauth.revoke": 1 ...).
    func requestCounts() throws -> [String: Int] { try tenant.stats().byEndpoint }
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
        let answer: RawResponse
        do {
            answer = try RawHTTP.exchange(port: UInt16(port), request: request, timeout: 15)
        } catch let failure as RawHTTP.Failure {
            throw Failure(description: "\(failure.message) (\(address))")
        }
        return Answer(status: answer.status, headers: answer.headers, body: answer.text)
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
