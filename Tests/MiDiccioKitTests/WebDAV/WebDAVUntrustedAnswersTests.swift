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

/// What a server answers is never trusted: a redirect is reported instead of followed
/// (it would carry the password elsewhere), an answer over its size limit is dropped,
/// and a hostile listing is an error, never a crash.
@Suite(
    "A WebDAV server's answers are not trusted: no redirects, bounded sizes, checked listings",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVUntrustedAnswersTests {
    static func proxied(_ options: WebDAVStorage.Options = instantRetryOptions()) throws -> (FaultProxy, WebDAVStorage) {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("untrusted")
        try server.storage(address).write("devices/a.json", Data(repeating: 65, count: 3_000))
        let proxy = try FaultProxy(upstream: server.url)
        return (proxy, server.storage(try WebDAVAddress.parse(proxy.url + address.url.path).address, options: options))
    }

    @Test("a redirect is reported with its host, not followed, so the password never goes elsewhere")
    func redirectNotFollowed() throws {
        let (proxy, storage) = try Self.proxied()
        defer { proxy.stop() }
        proxy.answer(["301 Moved Permanently\r\nLocation: http://elsewhere.example.com/MiDiccio/devices/a.json"])
        #expect {
            try storage.read("devices/a.json")
        } throws: { error in
            guard case CloudError.failed(_, let reason) = error else { return false }
            return reason.contains("redirects (to http://elsewhere.example.com/MiDiccio/devices/a.json)")
        }
        #expect(storage.requestCount == 1)
    }

    @Test("a redirect's user, password and query are not shown")
    func redirectShownWithoutSecrets() throws {
        let (proxy, storage) = try Self.proxied()
        defer { proxy.stop() }
        proxy.answer(["302 Found\r\nLocation: https://me:secret@dav.example.com:8443/remote.php/dav/?token=abc"])
        #expect {
            try storage.read("devices/a.json")
        } throws: { error in
            guard case CloudError.failed(_, let reason) = error else { return false }
            return reason.contains("(to https://dav.example.com:8443/remote.php/dav/)") && !reason.contains("secret")
                && !reason.contains("abc")
        }
    }

    @Test("a server that takes only Digest authentication is said so, not that it refused the password")
    func digestOnlySaidSo() throws {
        let (proxy, storage) = try Self.proxied()
        defer { proxy.stop() }
        proxy.answer(["401 Unauthorized\r\nWWW-Authenticate: Digest realm=\"dav\", nonce=\"abc\", qop=\"auth\"\r\nContent-Length: 0"])
        #expect {
            try storage.read("devices/a.json")
        } throws: { error in
            guard case CloudError.unauthorized(let reason) = error else { return false }
            return reason.contains("asks for Digest authentication, which MiDiccio does not use") && !reason.contains("refused")
        }
    }

    @Test(
        "an upload limit or a lock is said as what it is, with what to do",
        arguments: [
            (
                "413 Payload Too Large",
                "refuses uploads this large (413 Payload Too Large); raise its upload limit (nginx: client_max_body_size"
            ),
            ("423 Locked", "locked by another program (423 Locked)"),
        ])
    func limitAndLockExplained(status: String, said: String) throws {
        let (proxy, storage) = try Self.proxied()
        defer { proxy.stop() }
        proxy.answer([status + "\r\nContent-Length: 0"])
        #expect {
            try storage.write("devices/b.json", Data("{}".utf8))
        } throws: { error in
            guard case CloudError.failed(_, let reason) = error else { return false }
            return reason.contains(said)
        }
    }

    @Test("a file over the size limit is refused without being kept")
    func oversizedFile() throws {
        var options = instantRetryOptions()
        options.maxFileBytes = 1_000
        let (proxy, storage) = try Self.proxied(options)
        defer { proxy.stop() }
        #expect {
            try storage.read("devices/a.json")
        } throws: { error in
            guard case CloudError.failed(_, let reason) = error else { return false }
            return reason.contains("larger than")
        }
    }

    @Test(
        "a hostile listing from the server is an error naming the folder, not a crash",
        arguments: [
            String(repeating: "<D:x>", count: 10_000),
            "<D:response><D:propstat><D:prop/><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>",
            "<D:response><D:href>/x",
        ])
    func hostileListing(inner: String) throws {
        let (proxy, storage) = try Self.proxied()
        defer { proxy.stop() }
        let body = Data("<?xml version=\"1.0\"?><D:multistatus xmlns:D=\"DAV:\">\(inner)</D:multistatus>".utf8)
        proxy.answer("207 Multi-Status\r\nContent-Type: application/xml", body: body)
        #expect {
            try storage.list("devices")
        } throws: { error in
            guard case CloudError.failed(let path, let reason) = error else { return false }
            return path == "devices" && reason.contains("listing cannot be read")
        }
    }

    @Test("an answer that is not a listing at all is an error too")
    func htmlInsteadOfListing() throws {
        let (proxy, storage) = try Self.proxied()
        defer { proxy.stop() }
        proxy.answer("207 Multi-Status\r\nContent-Type: text/html", body: Data("<html><body>Login</body></html>".utf8))
        #expect(throws: CloudError.self) { try storage.list("devices") }
    }
}
#endif
