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

    @Test("with idle connections past the limit, a GET from another client is answered within 1 s")
    func answeredPastTheLimit() throws {
        let idle = try holdIdle(Self.limit + 100)
        let answer = try web.timedGet()
        #expect(answer.status == 200)
        #expect(answer.seconds < 1, "answered after \(answer.seconds) s")
        #expect(idle.count == Self.limit + 100)
    }

    @Test("the connections dropped are the ones idle longest; the newest stay open")
    func oldestDropped() throws {
        let idle = try holdIdle(Self.limit + 100)
        _ = try web.timedGet()
        Thread.sleep(forTimeInterval: 0.3)
        let closed = idle.indices.filter { idle[$0].isClosedNow }
        #expect(closed.count >= 100, "only \(closed.count) of \(idle.count) closed")
        #expect(web.server.droppedIdleConnections >= 100)
        // The oldest go first: those dropped are the first ones opened (give or take a few
        // that two worker threads accepted at the same moment), and the newest fifty stay.
        #expect(closed.allSatisfy { $0 < closed.count + 10 }, "closed: \(closed)")
        #expect(idle.suffix(50).allSatisfy { !$0.isClosedNow })
    }

    @Test("a connection between two requests is dropped before newer silent ones")
    func keptAliveButIdleIsDropped() throws {
        let early = try OpenSocket(port: web.server.port, from: "127.0.0.3", timeout: 5)
        early.send("GET /api/words HTTP/1.1\r\nHost: \(web.host)\r\n\r\n")
        var buffer = [UInt8](repeating: 0, count: 65_536)
        #expect(recv(early.descriptor, &buffer, buffer.count, 0) > 0)
        Thread.sleep(forTimeInterval: 0.05)
        // Twice the limit, so every worker thread holds more than its share, whichever
        // accepted the early connection; then wait until the server has caught up.
        let idle = try holdIdle(Self.limit * 2)
        for _ in 0..<50 where web.server.droppedIdleConnections < Self.limit { Thread.sleep(forTimeInterval: 0.1) }
        #expect(early.isClosed(within: 2))
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
