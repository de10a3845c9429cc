#if canImport(Glibc)
import Foundation
import Testing
@testable import MiDiccioCloud
@testable import MiDiccioOnline

/// A new device's first sync merges for seconds between two requests, and the server
/// closes the kept-alive connection in the meantime ("Never lose a word", finding 7).
/// Every upload must still arrive whole and at once, never after a timeout.
///
/// These tests sleep, against the style of the other tests: what they check is a race
/// between the client's next request and a real server closing a connection it found
/// idle, on lighttpd's own clock, which no injected clock can stand in for. lighttpd
/// told to close connections idle for 1 s does so between 1 and 2 s after the last
/// request, so pauses of 1.5 to 2 s are the ones that meet the closing connection; a
/// few rounds make a missed race very unlikely.
@Suite(
    "A server that closes idle connections after 1 s while the client is busy",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVIdleConnectionTests {
    /// Seconds the client is busy between two requests, round after round.
    static let pauses: [TimeInterval] = [2, 1.5, 2, 1.75]

    /// About a device record's size: the upload that hung in the issue was 313 bytes.
    static func record(_ round: Int) -> Data {
        Data(("{\"round\":\(round),\"padding\":\"" + String(repeating: "x", count: 289) + "\"}").utf8)
    }

    /// Writes a first record (which makes the folder), sets the counts back to zero,
    /// then round after round: lists the folder, stays busy for the round's pause,
    /// uploads a record and reads it back whole.
    static func uploadAfterPauses(_ storage: WebDAVStorage) throws {
        try storage.write("devices/first.json", record(-1))
        storage.resetCounts()
        for (round, pause) in pauses.enumerated() {
            #expect(try storage.list("devices").count == round + 1)
            Thread.sleep(forTimeInterval: pause)
            try storage.write("devices/\(round).json", record(round))
            #expect(try storage.read("devices/\(round).json") == record(round))
        }
    }

    @Test("after a busy pause, an upload arrives whole at the first attempt instead of waiting for a timeout")
    func busyThenUpload() throws {
        _ = try WebDAVTestServer.require()
        let server = try PrivateWebDAVServer(keepAliveIdle: 1)
        let recorder = DelayRecorder()
        // A hung upload fails after 5 s here (timeouts are not retried), not after 15.
        let storage = server.storage(try server.freshAddress("idle"), options: instantRetryOptions(timeout: 5, recorder: recorder))
        try Self.uploadAfterPauses(storage)
        #expect(storage.requestCounts["PUT"] == Self.pauses.count, "one PUT per upload: none had to be sent again")
        #expect(recorder.delays.isEmpty)
    }

    @Test("an upload sent just as the server closes its connection is sent again whole on a new one, without a timeout")
    func uploadMeetsClosingConnection() throws {
        _ = try WebDAVTestServer.require()
        let server = try PrivateWebDAVServer(keepAliveIdle: 1)
        let recorder = DelayRecorder()
        var options = instantRetryOptions(timeout: 5, recorder: recorder)
        // Reusing connections however long they sat idle, as the client did before,
        // makes most of these uploads go out on a connection the server is closing.
        options.connectionIdleLimit = 3600
        let storage = server.storage(try server.freshAddress("closing"), options: options)
        try Self.uploadAfterPauses(storage)
        // Every attempt is counted: one PUT per upload, and one more per retry.
        #expect(storage.requestCounts["PUT"] == Self.pauses.count + recorder.delays.count)
    }

    @Test("requests that follow each other share one connection, and a request after a pause opens a new one")
    func reuse() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("reuse")
        try server.storage(address).write("devices/a.json", Data("{}".utf8))
        let proxy = try FaultProxy(upstream: server.url)
        defer { proxy.stop() }
        let proxied = try WebDAVAddress.parse(proxy.url + address.url.path).address
        func exchange(_ storage: WebDAVStorage) throws {
            for _ in 0..<3 {
                #expect(try storage.list("devices").map(\.name) == ["a.json"])
                #expect(try storage.read("devices/a.json") == Data("{}".utf8))
            }
        }

        try exchange(server.storage(proxied))
        #expect(proxy.connections == 1)

        // A limit of 0 makes every gap between two requests a pause too long.
        var options = instantRetryOptions()
        options.connectionIdleLimit = 0
        let storage = server.storage(proxied, options: options)
        try exchange(storage)
        #expect(proxy.connections == 1 + storage.requestCount)
    }
}
#endif
