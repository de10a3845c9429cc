import Foundation
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// `serve --tls-cert --tls-key`: HTTPS through libmicrohttpd's own TLS, with a Secure
/// cookie. The certificate is made for the test by the openssl command, and the client
/// is curl (both installed by `make`).
@Suite("Serving HTTPS")
final class HTTPSTests {
    static let token = "https-token-for-tests"
    let web: WebFixture

    init() throws { web = try WebFixture(accessToken: Self.token) }

    func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    func tlsServer() throws -> HTTPServer {
        let key = web.directory + "/key.pem", certificate = web.directory + "/cert.pem"
        _ = try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj",
                "/CN=127.0.0.1", "-keyout", key, "-out", certificate,
            ])
        let pem = (try String(contentsOfFile: certificate, encoding: .utf8), try String(contentsOfFile: key, encoding: .utf8))
        return try HTTPServer(host: "127.0.0.1", port: 0, tls: (certificate: pem.0, key: pem.1), handler: web.app)
    }

    @Test("the page is served over HTTPS and the cookie it trades for the token is Secure")
    func cookieIsSecure() throws {
        let server = try tlsServer()
        #expect(server.usesTLS)
        let head = try run("/usr/bin/curl", ["-sk", "-o", "/dev/null", "-D", "-", "https://127.0.0.1:\(server.port)/?token=\(Self.token)"])
        #expect(head.hasPrefix("HTTP/1.1 303"))
        let cookie = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") } ?? ""
        #expect(cookie.contains("; Secure"))
        #expect(head.lowercased().contains("content-security-policy:"))
    }

    @Test("a write from the page's own https origin is accepted; plain HTTP gets no answer")
    func httpsOriginIsTheOwnOrigin() throws {
        let server = try tlsServer()
        let origin = "https://127.0.0.1:\(server.port)"
        let status = try run(
            "/usr/bin/curl",
            [
                "-sk", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Authorization: Bearer \(Self.token)",
                "-H", "X-CSRF-Token: \(web.csrfToken)", "-H", "Origin: \(origin)", "-H", "Content-Type: application/json",
                "--data", #"{"term": "casa"}"#, origin + "/api/words",
            ])
        #expect(status == "201")
        #expect(try web.library().counts().words == 1)
        #expect((try? RawHTTP.exchange(port: server.port, request: Data("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8), timeout: 3)) == nil)
    }
}
