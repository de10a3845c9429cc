import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A server that refuses the credentials stops the sync with "the server refused the
/// user name or password", and the library is left exactly as it was.
@Suite(
    "A wrong WebDAV password stops the sync with a clear error and changes nothing",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVWrongPasswordTests {
    static func refusal(_ body: () throws -> Void) -> CloudError? {
        do {
            try body()
        } catch let SyncError.cloud(error) {
            return error
        } catch let error as CloudError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
        }
        return nil
    }

    @Test("a wrong password gives the unauthorized error, without the password in it, and changes nothing locally")
    func wrongPassword() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("wrong-password")
        let wrong = "not-the-password-\(UUID().uuidString)"
        try withWebDAVDirectory { directory in
            // The cloud already holds another device's words.
            let other = try webdavDevice(name: "other", directory: directory, storage: server.storage(address))
            _ = try other.add("ajeno")
            try other.sync()

            let refused = server.storage(address, password: wrong)
            let device = try webdavDevice(name: "a", directory: directory, storage: refused)
            _ = try device.add("propio")
            let before = try device.library.snapshot()
            let error = Self.refusal { try device.sync() }
            guard case .unauthorized(let reason)? = error else {
                Issue.record("expected unauthorized, got \(String(describing: error))")
                return
            }
            #expect(reason == "the server refused the user name or password")
            let message = "\(SyncError.cloud(error!))"
            #expect(message.contains("the server refused the user name or password"))
            // What to do, and no promise that waiting helps.
            #expect(message.contains("midiccio remote set webdav") && !message.contains("will try again"), "\(message)")
            #expect(!message.contains(wrong) && !message.contains(server.password))
            #expect(try device.library.snapshot() == before, "nothing changed locally")
            #expect(try device.pendingCount() == 1, "the new word is still waiting to be uploaded")
            // One request, not retried: a refused password does not get better by waiting.
            #expect(refused.requestCount == 1)
        }
    }

    @Test("no credentials at all on a server that requires them is the same error")
    func noCredentials() throws {
        let server = try WebDAVTestServer.require()
        let storage = WebDAVStorage(address: try server.freshAddress("anonymous"), user: nil, password: nil, options: instantRetryOptions())
        guard case .unauthorized? = Self.refusal({ _ = try storage.read(CloudLayout.manifestPath) }) else {
            Issue.record("expected unauthorized")
            return
        }
        guard case .unauthorized? = Self.refusal({ try storage.write("devices/x.json", Data("{}".utf8)) }) else {
            Issue.record("expected unauthorized")
            return
        }
    }

    @Test("a user with no password stored (a library copied without its credentials file) is told that, not 'refused'")
    func noPasswordStored() throws {
        let server = try WebDAVTestServer.require()
        let storage = WebDAVStorage(
            address: try server.freshAddress("no-password"), user: server.user, password: nil, options: instantRetryOptions())
        guard case .unauthorized(let reason)? = Self.refusal({ _ = try storage.read(CloudLayout.manifestPath) }) else {
            Issue.record("expected unauthorized")
            return
        }
        #expect(reason.contains("none is stored for this library") && !reason.contains("refused"), "\(reason)")
    }

    @Test("the right password after a wrong one syncs normally")
    func recovers() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("then-right")
        try withWebDAVDirectory { directory in
            let wrong = try webdavDevice(name: "a", directory: directory, storage: server.storage(address, password: "nope"))
            let id = try wrong.add("uno")
            _ = Self.refusal { try wrong.sync() }
            let right = SyncEngine(library: wrong.library, storage: server.storage(address), appVersion: "midiccio-tests")
            try right.sync()
            #expect(try wrong.pendingCount() == 0)
            let reader = try webdavDevice(name: "b", directory: directory, storage: server.storage(address))
            try reader.sync()
            #expect(try reader.word(id).term == "uno")
        }
    }
}
