#if canImport(Glibc)
import Foundation
import MiDiccioTesting
import MiDiccioWeb
import Synchronization
import Testing

/// A request the server will refuse is refused when its headers arrive: its body is
/// never read into memory, however large, and a body that is too large or too slow is
/// cut off as it comes.
@Suite("A request that will be refused costs no memory", .serialized)
final class RefusedBeforeReadingTests {
    static let token = "pairing-token-for-tests"
    static let huge = 95 * 1_048_576

    func upload(_ web: WebFixture, headers: [String] = [], length: Int? = huge) throws -> OpenSocket {
        let socket = try OpenSocket(port: web.server.port)
        var lines = ["POST /api/backup/restore HTTP/1.1", "Host: \(web.host)", "X-CSRF-Token: \(web.csrfToken)"] + headers
        lines.append(length.map { "Content-Length: \($0)" } ?? "Transfer-Encoding: chunked")
        socket.send(lines.joined(separator: "\r\n") + "\r\n\r\n")
        return socket
    }

    @Test("an upload without the access token gets 401 before a byte of its body is sent")
    func noTokenIsRefusedAtTheHeaders() throws {
        let web = try WebFixture(accessToken: Self.token)
        let answer = try upload(web).answer()
        #expect(answer.status == 401)
        #expect(answer.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
    }

    @Test("a write without the CSRF token, or from a foreign Host, is refused at the headers too")
    func csrfAndHostAreCheckedAtTheHeaders() throws {
        let web = try WebFixture()
        let socket = try OpenSocket(port: web.server.port)
        socket.send("POST /api/import HTTP/1.1\r\nHost: \(web.host)\r\nContent-Length: \(Self.huge)\r\n\r\n")
        #expect(try socket.answer().status == 403)
        let foreign = try OpenSocket(port: web.server.port)
        foreign.send("POST /api/import HTTP/1.1\r\nHost: evil.example:\(web.server.port)\r\nContent-Length: \(Self.huge)\r\n\r\n")
        #expect(try foreign.answer().status == 421)
    }

    /// The import's refusal said the command line takes a file of any size, which refuses it
    /// too (found by the exploratory helper, round 27B #5).
    @Test("a backup or an import past the web app's limit is refused at its headers, saying what takes it")
    func aLargeFileNamesTheCommandLine() throws {
        let web = try WebFixture()
        let answer = try upload(web, length: WebApp.uploadLimit + 1).answer()
        #expect(answer.status == 413)
        #expect(answer.text.contains("midiccio backup restore FILE") && answer.text.contains("nothing was changed"), "\(answer.text)")
        let socket = try OpenSocket(port: web.server.port)
        socket.send(
            "POST /api/import HTTP/1.1\r\nHost: \(web.host)\r\nX-CSRF-Token: \(web.csrfToken)\r\n"
                + "Content-Length: \(WebApp.uploadLimit + 1)\r\n\r\n")
        let imported = try socket.answer()
        #expect(imported.status == 413 && imported.text.contains("imports lists of up to 100 MB: split it"), "\(imported.text)")
        #expect(!imported.text.contains("any size"), "\(imported.text)")
    }

    @Test("six 95 MB uploads without the token grow the server's memory by less than 5 MB")
    func sixHugeUploadsCostNoMemory() throws {
        let web = try WebFixture(accessToken: Self.token)
        let sockets = try (0..<6).map { index in try upload(web, length: index % 2 == 0 ? Self.huge : nil) }
        let before = ResidentMemory.current()
        ResidentMemory.resetPeak()
        let sent = Mutex([Int](repeating: 0, count: 6))
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            let count = sockets[index].sendBody(count: Self.huge, chunked: index % 2 == 1)
            sent.withLock { $0[index] = count }
        }
        let growth = max(ResidentMemory.peak(), ResidentMemory.current()) - before
        #expect(growth < 5 * 1_048_576, "the server grew by \(growth / 1024) KB")
        // The server stopped reading: far less than the body went out (socket buffers only).
        let counts = sent.withLock { $0 }
        #expect(counts.allSatisfy { $0 < 32 * 1_048_576 }, "sent \(counts)")
    }

    @Test("a chunked upload past the limit is cut off at the limit, not after its last chunk")
    func chunkedUploadIsCutAtTheLimit() throws {
        let web = try WebFixture()
        let socket = try upload(web, length: nil)
        let sent = socket.sendBody(count: 3 * WebApp.uploadLimit, chunked: true)
        #expect(sent < WebApp.uploadLimit + 32 * 1_048_576, "sent \(sent / 1_048_576) MB")
        #expect(socket.isClosed(within: 5))
    }

    @Test("a body that trickles slower than the minimum rate is dropped")
    func tricklingBodyIsDropped() throws {
        let web = try WebFixture()
        var limits = HTTPServer.Limits()
        limits.rateGrace = 1
        limits.minimumRate = 1_000
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits, handler: web.app)
        let socket = try OpenSocket(port: server.port)
        socket.send(
            "POST /api/words HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-CSRF-Token: \(web.csrfToken)\r\nContent-Length: 1000\r\n\r\n")
        let started = Date()
        var dropped = false
        for _ in 0..<8 where !dropped {
            Thread.sleep(forTimeInterval: 0.5)
            dropped = !socket.send("x")
        }
        #expect(dropped || socket.isClosed(within: 1))
        #expect(Date().timeIntervalSince(started) < 6)
        #expect(try web.library().counts().words == 0)
    }
}
#endif
