#if canImport(Glibc)
import Foundation
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// Connections that open and say nothing cannot lock the user out: one address may
/// hold only a few, and many addresses together stay far below what the server takes.
@Suite("Idle connections", .serialized)
final class IdleConnectionTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    /// Opens `count` connections spread over `addresses` loopback addresses (from
    /// 127.0.0.10 on), each sending half a request line and nothing more.
    func holdIdle(_ count: Int, over addresses: Int) -> [OpenSocket] {
        (0..<count).compactMap { index in
            let socket = try? OpenSocket(port: web.server.port, from: "127.0.0.\(10 + index % addresses)", timeout: 1)
            socket?.send("GET /api/wo")
            return socket
        }
    }

    @Test("2,000 idle connections from one address, then another client's GET is answered within 1 s")
    func oneAddressCannotLockOthersOut() throws {
        let idle = holdIdle(2_000, over: 1)
        let answer = try web.timedGet()
        #expect(answer.status == 200)
        #expect(answer.seconds < 1, "answered after \(answer.seconds) s")
        #expect(idle.count > 0)
    }

    @Test("2,000 idle connections from 40 addresses, then another client's GET is answered within 1 s")
    func manyAddressesCannotLockOthersOut() throws {
        let idle = holdIdle(2_000, over: 40)
        let answer = try web.timedGet()
        #expect(answer.status == 200)
        #expect(answer.seconds < 1, "answered after \(answer.seconds) s")
        #expect(idle.count == 2_000)
    }

    @Test("one address holds at most the per-address limit; the rest are closed at once")
    func perAddressLimit() throws {
        let idle = holdIdle(HTTPServer.Limits().perAddress + 20, over: 1)
        Thread.sleep(forTimeInterval: 0.3)
        let closed = idle.filter(\.isClosedNow).count
        #expect(closed >= 20)
        #expect(closed < idle.count)
    }
}
#endif
