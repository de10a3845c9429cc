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

/// A server that answers too slowly: every request has a timeout, the sync fails as
/// "the cloud is not available now" without changing anything, and once the server is
/// quick again a normal sync works. The slowness comes from a proxy on 127.0.0.1 that
/// holds back lighttpd's answers.
@Suite(
    "A slow WebDAV server hits the timeout, then a normal sync works",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVSlowServerTests {
    @Test("a server slower than the timeout makes the sync unavailable, and the next sync at normal speed works")
    func slowThenNormal() throws {
        let server = try WebDAVTestServer.require()
        let proxy = try FaultProxy(upstream: server.url)
        defer { proxy.stop() }
        let address = try WebDAVAddress.parse(proxy.url + "/slow-\(UUID().uuidString.prefix(8))").address
        try withWebDAVDirectory { directory in
            let storage = server.storage(address, options: instantRetryOptions(timeout: 0.5))
            let device = try webdavDevice(name: "a", directory: directory, storage: storage)
            let id = try device.add("lento")
            let before = try device.library.snapshot()

            proxy.delay = 3
            let started = Date()
            do {
                try device.sync()
                Issue.record("the sync should have timed out")
            } catch let SyncError.cloud(.unavailable(reason)) {
                #expect(reason.contains("did not answer within 0.5 s"), "\(reason)")
            }
            // The timeout is per request and a timed-out request is not retried: the
            // user waits about one timeout, not three seconds or more.
            #expect(Date().timeIntervalSince(started) < 2.5)
            #expect(try device.library.snapshot() == before, "nothing changed locally")

            // At normal speed, with the usual timeout: a 0.5 s one failed this sync now and
            // then on a machine busy with other tests (CI, stop 56), which is not what this
            // test is about.
            proxy.delay = 0
            let normal = try webdavDevice(name: "a", directory: directory, storage: server.storage(address))
            try normal.sync()
            #expect(try normal.pendingCount() == 0)
            let reader = try webdavDevice(name: "c", directory: directory, storage: server.storage(address))
            try reader.sync()
            #expect(try reader.word(id).term == "lento")
        }
    }

    @Test("a large file that keeps arriving is not cut off by the timeout, which measures silence")
    func slowButSteady() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("steady")
        let writer = server.storage(address)
        let big = Data((0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try writer.write("snapshots/x/000000000001.snap", big)
        let proxy = try FaultProxy(upstream: server.url)
        defer { proxy.stop() }
        // Each 64 KB piece waits 0.05 s: about 1.5 s in all, three times the timeout.
        proxy.delay = 0.05
        let proxied = try WebDAVAddress.parse(proxy.url + address.url.path).address
        let reader = server.storage(proxied, options: instantRetryOptions(timeout: 0.5))
        #expect(try reader.read("snapshots/x/000000000001.snap") == big)
    }
}
#endif
