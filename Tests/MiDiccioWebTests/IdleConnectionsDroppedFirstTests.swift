#if canImport(Glibc)
import Foundation
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// Near its connection limit the server drops the connections idle longest (connected
/// but silent, or between requests), so a client that asks for something gets in.
@Suite("Idle connections dropped first", .serialized)
final class IdleConnectionsDroppedFirstTests {
    static let limit = 200
    let web: WebFixture

    init() throws {
        var limits = HTTPServer.Limits()
        limits.connections = Self.limit
        limits.perAddress = 10_000
        web = try WebFixture(limits: limits)
    }

    /// Opens `count` connections from 127.0.0.10 on, one after another, each sending
    /// half a request line and nothing more.
    func holdIdle(_ count: Int) throws -> [OpenSocket] {
        try (0..<count).map { index in
            let socket = try OpenSocket(port: web.server.port, from: "127.0.0.\(10 + index % 20)", timeout: 1)
            socket.send("GET /api/wo")
            if index % 50 == 49 { Thread.sleep(forTimeInterval: 0.05) }
            return socket
        }
    }

    func timedGet() throws -> (status: Int, seconds: Double) {
        let started = Date()
        let socket = try OpenSocket(port: web.server.port, from: "127.0.0.2", timeout: 5)
        socket.send("GET /api/words HTTP/1.1\r\nHost: \(web.host)\r\nConnection: close\r\n\r\n")
        let status = (try? socket.answer().status) ?? 0
        return (status, Date().timeIntervalSince(started))
    }

    @Test("with idle connections past the limit, a GET from another client is answered within 1 s")
    func answeredPastTheLimit() throws {
        let idle = try holdIdle(Self.limit + 100)
        let answer = try timedGet()
        #expect(answer.status == 200)
        #expect(answer.seconds < 1, "answered after \(answer.seconds) s")
        #expect(idle.count == Self.limit + 100)
    }

    @Test("the connections dropped are the ones idle longest; the newest stay open")
    func oldestDropped() throws {
        let idle = try holdIdle(Self.limit + 100)
        _ = try timedGet()
        Thread.sleep(forTimeInterval: 0.3)
        let closed = idle.indices.filter { idle[$0].isClosedNow }
        #expect(closed.count >= 100, "only \(closed.count) of \(idle.count) closed")
        #expect(web.server.droppedIdleConnections >= 100)
        // Each worker thread drops its own oldest, so the order is by worker; every one
        // dropped is still among the oldest two thirds, and the newest fifty all stay.
        #expect(closed.allSatisfy { $0 < 200 }, "closed: \(closed)")
        #expect(idle.suffix(50).allSatisfy { !$0.isClosedNow })
    }

    @Test("a connection between two requests is dropped before newer silent ones")
    func keptAliveButIdleIsDropped() throws {
        let early = try OpenSocket(port: web.server.port, from: "127.0.0.3", timeout: 5)
        early.send("GET /api/words HTTP/1.1\r\nHost: \(web.host)\r\n\r\n")
        var buffer = [UInt8](repeating: 0, count: 65_536)
        #expect(recv(early.descriptor, &buffer, buffer.count, 0) > 0)
        Thread.sleep(forTimeInterval: 0.05)
        let idle = try holdIdle(Self.limit + 100)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(early.isClosed(within: 1))
        #expect(idle.suffix(50).allSatisfy { !$0.isClosedNow })
    }

    @Test("a connection with a request in progress is not dropped, however old")
    func busyIsKept() throws {
        let uploading = try OpenSocket(port: web.server.port, from: "127.0.0.4", timeout: 5)
        uploading.send(
            "POST /api/words HTTP/1.1\r\nHost: \(web.host)\r\nX-CSRF-Token: \(web.csrfToken)\r\nContent-Type: application/json\r\nContent-Length: 40\r\nConnection: close\r\n\r\n{\"term\":"
        )
        Thread.sleep(forTimeInterval: 0.1)
        let idle = try holdIdle(Self.limit + 100)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(!uploading.isClosedNow)
        #expect(idle.prefix(50).contains { $0.isClosedNow })
        uploading.send("\"gato\",\"meaning\":\"cat\"}".padding(toLength: 32, withPad: " ", startingAt: 0))
        let answer = try uploading.answer()
        #expect(answer.status < 500 && answer.status != 0, "status \(answer.status)")
    }
}
#endif
