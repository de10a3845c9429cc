import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// nginx as people set it up for WebDAV (Tests/WebDAV/nginx.sh): its own dav module, the
/// dav-ext module for listings, and no `create_full_put_path`, so that a PUT into a missing
/// folder is answered 500 ("No such file or directory" in its log). MiDiccio made folders
/// only after a 404 or 409, waited the 500s out, and never synced there; and nginx without
/// the dav-ext module answered every listing 405, which MiDiccio passed on as it came, with
/// "the next sync will try again" (found by the exploratory helper, round 20B #2 and #10).
@Suite(
    "A WebDAV server on nginx",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVOnNginxTests {
    @Test("two libraries sync through nginx, whose PUT into a folder not made yet is answered 500, without waiting it out")
    func syncsThroughNginx() throws {
        let server = try PrivateWebDAVServer(software: .nginx(listing: true))
        let address = try server.freshAddress("nginx")
        let recorder = DelayRecorder()
        try withWebDAVDirectory { directory in
            let a = try webdavDevice(
                name: "a", directory: directory, storage: server.storage(address, options: instantRetryOptions(recorder: recorder)))
            let b = try webdavDevice(name: "b", directory: directory, storage: server.storage(address))
            let casa = try a.add("casa", meaning: "house")
            try a.sync()
            try b.sync()
            #expect(try b.word(casa).meaning == "house")
            _ = try b.add("perro", meaning: "dog")
            try b.sync()
            try a.sync()
            #expect(try a.everyWord() == b.everyWord() && a.everyWord().count == 2)
            #expect(try a.pendingCount() == 0 && b.pendingCount() == 0)
            #expect(recorder.delays.isEmpty, "a 500 into a missing folder makes the folder, with no wait: \(recorder.delays)")
        }
        let log = try String(contentsOfFile: server.state + "/access.log", encoding: .utf8)
        #expect(log.contains("\"PUT ") && log.contains("\" 500 "), "nginx answered a PUT into a missing folder 500, as it does")
    }

    @Test("a 500 to a PUT into a folder that exists is waited out as any other 500, and named when it stays")
    func aRealServerErrorStillFails() throws {
        let server = try PrivateWebDAVServer(software: .nginx(listing: true))
        let address = try server.freshAddress("nginx-500")
        let recorder = DelayRecorder()
        let storage = server.storage(address, options: instantRetryOptions(recorder: recorder))
        try storage.write("devices/a.json", Data("{}".utf8))
        // The folder is there, and the server cannot write anything any more.
        let body = server.state + "/body"
        try FileManager.default.removeItem(atPath: body)
        try Data().write(to: URL(fileURLWithPath: body))
        let fresh = server.storage(address, options: instantRetryOptions(recorder: recorder))
        #expect {
            try fresh.write("devices/a.json", Data("{\"b\":1}".utf8))
        } throws: { error in
            guard case CloudError.unavailable(let reason) = error else { return false }
            return reason.contains("500")
        }
        #expect(fresh.requestCounts["MKCOL"] == 1, "one look whether the folder is missing")
        #expect(recorder.delays == [0.5, 1, 2], "then waited out: \(recorder.delays)")
    }

    @Test("nginx without listings is said to be no WebDAV server there, not a passing failure")
    func noListings() throws {
        let server = try PrivateWebDAVServer(software: .nginx(listing: false))
        let address = try server.freshAddress("nginx-no-propfind")
        try withWebDAVDirectory { directory in
            let a = try webdavDevice(name: "a", directory: directory, storage: server.storage(address))
            _ = try a.add("casa")
            let error = #expect(throws: (any Error).self) { try a.sync() }
            let said = "\(error.map { "\($0)" } ?? "")"
            #expect(said.contains("does not list folders") && said.contains("405"), "\(said)")
            #expect(said.contains("dav_ext_methods PROPFIND") && !said.contains("try again"), "\(said)")
        }
    }
}
