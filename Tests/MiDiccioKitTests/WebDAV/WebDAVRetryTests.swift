#if canImport(Glibc)
import Foundation
import Testing
@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync
import MiDiccioTesting

/// 5xx answers, 429 and dropped connections are retried with exponential backoff,
/// honouring Retry-After, a bounded number of times; other failures are not retried.
/// A proxy on 127.0.0.1 in front of lighttpd plays the overloaded or flaky server.
@Suite(
    "WebDAV requests are retried with backoff on 5xx, 429 and dropped connections",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVRetryTests {
    /// A proxy in front of the shared server, and a storage on a folder through it
    /// holding one file.
    /// A socket bound to a free port of 127.0.0.1 that does not listen, and its port.
    static func portNobodyListensOn() throws -> (socket: Int32, port: UInt16) {
        let held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(held, $0, length) == 0 && getsockname(held, $0, &length) == 0 }
        }
        guard held >= 0, bound else { throw WebDAVTestSetupError("cannot hold a port on 127.0.0.1") }
        return (held, UInt16(bigEndian: address.sin_port))
    }

    static func setUp() throws -> (proxy: FaultProxy, storage: WebDAVStorage, recorder: DelayRecorder) {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("retry")
        try server.storage(address).write("devices/a.json", Data("{}".utf8))
        let proxy = try FaultProxy(upstream: server.url)
        let recorder = DelayRecorder()
        let proxied = try WebDAVAddress.parse(proxy.url + address.url.path).address
        return (proxy, server.storage(proxied, options: instantRetryOptions(recorder: recorder)), recorder)
    }

    @Test("503 with Retry-After is retried after the seconds the server asked for")
    func retryAfter() throws {
        let (proxy, storage, recorder) = try Self.setUp()
        defer { proxy.stop() }
        proxy.answer(["503 Service Unavailable\r\nRetry-After: 2", "503 Service Unavailable\r\nRetry-After: 1"])
        #expect(try storage.read("devices/a.json") == Data("{}".utf8))
        #expect(recorder.delays == [2, 1])
        #expect(storage.requestCounts["GET"] == 3)
    }

    @Test("500, 502, 504 and 429 without Retry-After are retried with exponential backoff")
    func backoff() throws {
        let (proxy, storage, recorder) = try Self.setUp()
        defer { proxy.stop() }
        proxy.answer(["500 Internal Server Error", "429 Too Many Requests", "502 Bad Gateway"])
        #expect(try storage.list("devices").map(\.name) == ["a.json"])
        #expect(recorder.delays == [0.5, 1, 2])
        #expect(storage.requestCounts["PROPFIND"] == 4)
    }

    @Test("an overloaded server is given up on after the last attempt, as unavailable")
    func givesUp() throws {
        let (proxy, storage, recorder) = try Self.setUp()
        defer { proxy.stop() }
        proxy.answer(Array(repeating: "503 Service Unavailable", count: 10))
        #expect {
            try storage.read("devices/a.json")
        } throws: { error in
            guard case CloudError.unavailable(let reason) = error else { return false }
            // A server that answers was reached: the words say it is not available now.
            return reason.contains("503") && reason.contains("4 times") && "\(error)".hasPrefix("the cloud is not available now: ")
        }
        #expect(storage.requestCounts["GET"] == 4)
        #expect(recorder.delays.count == 3)
    }

    @Test("a Retry-After longer than the longest wait is not waited for")
    func longRetryAfter() throws {
        let (proxy, storage, recorder) = try Self.setUp()
        defer { proxy.stop() }
        proxy.answer(["503 Service Unavailable\r\nRetry-After: 3600"])
        #expect {
            try storage.read("devices/a.json")
        } throws: { error in
            guard case CloudError.unavailable(let reason) = error else { return false }
            return reason.contains("asks to wait 3600 s")
        }
        #expect(recorder.delays.isEmpty)
    }

    @Test("dropped connections are retried, on reads and on writes")
    func droppedConnections() throws {
        let (proxy, storage, recorder) = try Self.setUp()
        defer { proxy.stop() }
        proxy.dropConnections(2)
        #expect(try storage.read("devices/a.json") == Data("{}".utf8))
        #expect(recorder.delays == [0.5, 1])
        proxy.dropConnections(1)
        try storage.write("devices/b.json", Data("[]".utf8))
        #expect(try storage.read("devices/b.json") == Data("[]".utf8))
    }

    @Test("a download cut part way through its body is retried, as a dropped connection is")
    func bodyCutShort() throws {
        let (proxy, storage, recorder) = try Self.setUp()
        defer { proxy.stop() }
        // The status and the first bytes came, then the connection closed (a reset on a
        // phone's network): it read "network error -1" and was not retried (round 13C).
        proxy.answer("200 OK", body: Data("{\"wo".utf8), claiming: 4_000)
        #expect(try storage.read("devices/a.json") == Data("{}".utf8))
        #expect(recorder.delays == [0.5])
        #expect(storage.requestCounts["GET"] == 2)
    }

    @Test("a new file whose answer was lost is not written twice: the retry finds its own bytes there; someone else's are refused")
    func lostAnswerOfACreate() throws {
        let (proxy, storage, _) = try Self.setUp()
        defer { proxy.stop() }
        let bytes = Data("a change file".utf8)
        proxy.loseAnswers(1)
        try storage.create("devices/c.bin", bytes)
        #expect(try storage.read("devices/c.bin") == bytes)
        #expect(storage.requestCounts["PUT"] == 2, "the first went through; the second found it")
        #expect(try storage.list("devices").map(\.name).sorted() == ["a.json", "c.bin"])

        proxy.loseAnswers(1)
        #expect {
            try storage.create("devices/c.bin", Data("another device's bytes".utf8))
        } throws: { error in
            guard case CloudError.exists = error else { return false }
            return true
        }
        #expect(try storage.read("devices/c.bin") == bytes)
    }

    @Test("a write the server forbids (403) while reads go through says the user may not write there, not that the password is wrong")
    func forbiddenWrite() throws {
        let (proxy, storage, _) = try Self.setUp()
        defer { proxy.stop() }
        proxy.answer(["403 Forbidden"])
        #expect {
            try storage.write("devices/b.json", Data("[]".utf8))
        } throws: { error in
            guard case CloudError.failed(_, let reason) = error else { return false }
            return reason.contains("does not let this user change it (403 Forbidden)")
        }
        #expect(storage.requestCounts["PUT"] == 1, "not retried")
        proxy.answer(["403 Forbidden"])
        #expect {
            try storage.read("devices/a.json")
        } throws: { error in
            guard case CloudError.unauthorized = error else { return false }
            return true
        }
    }

    @Test("errors that waiting cannot fix are not retried: a missing file, a refused password, nothing listening")
    func notRetried() throws {
        let (proxy, storage, recorder) = try Self.setUp()
        defer { proxy.stop() }
        #expect(try storage.read("devices/none.json") == nil)
        #expect(storage.requestCounts["GET"] == 1)

        let server = try WebDAVTestServer.require()
        let refused = WebDAVStorage(
            address: storage.address, user: server.user, password: "wrong", options: instantRetryOptions(recorder: recorder))
        #expect(throws: CloudError.self) { try refused.read("devices/a.json") }
        #expect(refused.requestCount == 1)

        // A port held by a socket that never listens: connecting is refused, and no other
        // test's server can take the port meanwhile (as one could take the proxy's once
        // stopped, and keep the request waiting).
        let (held, port) = try Self.portNobodyListensOn()
        defer { close(held) }
        let closed = WebDAVStorage(
            address: try WebDAVAddress.parse("http://127.0.0.1:\(port)/midiccio").address, user: server.user,
            password: server.password, options: instantRetryOptions(recorder: recorder))
        #expect {
            try closed.read("devices/a.json")
        } throws: { error in
            guard case CloudError.unavailable(let reason) = error else { return false }
            return reason.contains("nothing answers at 127.0.0.1:\(port)")
        }
        #expect(closed.requestCount == 1)
        #expect(recorder.delays.isEmpty)
    }

    @Test("the backoff doubles from the base wait up to the longest wait, and stops at the last attempt")
    func policy() {
        let policy = HTTPRetryPolicy(maxAttempts: 6, baseDelay: 1, maxDelay: 5)
        #expect((1...6).map { policy.delay(afterAttempt: $0, retryAfter: nil) } == [1, 2, 4, 5, 5, nil])
        #expect(policy.delay(afterAttempt: 1, retryAfter: 3) == 3)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 6) == nil)
        #expect(HTTPRetryPolicy.retryAfterSeconds(" 7 ") == 7)
        #expect(HTTPRetryPolicy.retryAfterSeconds("Wed, 21 Oct 2015 07:28:00 GMT") == nil)
        #expect(HTTPRetryPolicy.retryAfterSeconds("-1") == nil)
        #expect(HTTPRetryPolicy.retryAfterSeconds("99999999999999999999") == nil)
        for status in [500, 502, 503, 504, 429, 408] { #expect(HTTPRetryPolicy.isRetryable(status: status)) }
        for status in [400, 401, 403, 404, 409, 501, 507] { #expect(!HTTPRetryPolicy.isRetryable(status: status)) }
    }
}
#endif
