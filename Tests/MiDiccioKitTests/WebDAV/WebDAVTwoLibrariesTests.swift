import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// The same end-to-end scenarios as the folder back end, through a real WebDAV server
/// (lighttpd with mod_webdav): two libraries, each with its own connection, one folder.
@Suite(
    "Two libraries sync through one WebDAV server",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVTwoLibrariesTests {
    @Test("add on one, sync both, edit different fields on both, delete and restore across them")
    func endToEnd() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("two-libraries")
        try withWebDAVDirectory { directory in
            let a = try webdavDevice(name: "a", directory: directory, storage: server.storage(address))
            let b = try webdavDevice(name: "b", directory: directory, storage: server.storage(address))

            let palabra = try a.add("palabra", meaning: "word")
            let casa = try a.add("casa", meaning: "house")
            try a.sync()
            try b.sync()
            #expect(try b.word(palabra).meaning == "word")
            #expect(try b.everyWord() == a.everyWord())

            // Different fields of one word on both devices: both edits survive.
            a.clock.advance(by: 1_000)
            b.clock.advance(by: 1_000)
            _ = try a.library.edit(palabra, WordEdit(meaning: "a word"))
            _ = try b.library.edit(palabra, WordEdit(notes: "from b"))
            try a.sync()
            try b.sync()
            try a.sync()
            #expect(try a.word(palabra).meaning == "a word")
            #expect(try a.word(palabra).notes == "from b")
            #expect(try b.everyWord() == a.everyWord())

            // Deleted on one, restored from the other's Trash.
            _ = try a.library.delete([casa])
            try a.sync()
            try b.sync()
            #expect(try b.library.trash().map(\.id) == [casa])
            _ = try b.library.restore([casa])
            try b.sync()
            try a.sync()
            #expect(try a.library.trash().isEmpty)
            #expect(try a.word(casa).meaning == "house")
            #expect(try a.everyWord() == b.everyWord())
            #expect(try a.pendingCount() == 0 && b.pendingCount() == 0)
        }
    }

    @Test("the first sync makes the MiDiccio folder and its sub-folders on the server")
    func makesFolders() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("new-folder")
        let storage = server.storage(address)
        #expect(try storage.list("") == [], "the folder does not exist yet")
        try withWebDAVDirectory { directory in
            let device = try webdavDevice(name: "a", directory: directory, storage: storage)
            _ = try device.add("nuevo")
            try device.sync()
            let inspector = server.storage(address)
            #expect(try inspector.list("").map(\.name) == [CloudLayout.manifestPath])
            #expect(try inspector.list(CloudLayout.devicesFolder).map(\.name) == ["\(device.library.deviceID).json"])
            #expect(storage.requestCounts["MKCOL", default: 0] >= 1)
            // Every temporary upload was renamed into place: no hidden file is left.
            for folder in [
                "", CloudLayout.devicesFolder, CloudLayout.changesFolder(device.library.deviceID),
                CloudLayout.snapshotsFolder(device.library.deviceID),
            ] {
                #expect(try inspector.list(folder).allSatisfy { !$0.name.hasPrefix(".") }, "\(folder)")
            }
        }
    }

    @Test("read, write, replace, list and delete a file; a missing file reads as nil and deletes as false")
    func storageOperations() throws {
        let server = try WebDAVTestServer.require()
        let storage = server.storage(try server.freshAddress("operations"))
        #expect(try storage.read("devices/none.json") == nil)
        #expect(try storage.list("devices") == [])
        try storage.write("devices/a b+ü.json", Data("one".utf8))
        try storage.write("devices/a b+ü.json", Data("two!".utf8))
        #expect(try storage.read("devices/a b+ü.json") == Data("two!".utf8))
        #expect(try storage.list("devices") == [CloudEntry(name: "a b+ü.json", size: 4)])
        let big = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try storage.write("snapshots/x/000000000001.snap", big)
        #expect(try storage.read("snapshots/x/000000000001.snap") == big)
        #expect(try storage.delete("devices/a b+ü.json"))
        #expect(try storage.delete("devices/a b+ü.json") == false)
        #expect(try storage.read("devices/a b+ü.json") == nil)
    }

    @Test("the direct-PUT write mode syncs too, with one request per file")
    func directPut() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("direct-put")
        var options = WebDAVStorage.Options()
        options.writeMode = .directPut
        try withWebDAVDirectory { directory in
            let storageA = server.storage(address, options: options)
            let a = try webdavDevice(name: "a", directory: directory, storage: storageA)
            let b = try webdavDevice(name: "b", directory: directory, storage: server.storage(address, options: options))
            let id = try a.add("directo")
            try a.sync()
            try b.sync()
            #expect(try b.word(id).term == "directo")
            #expect(storageA.requestCounts["MOVE"] == nil)
        }
    }

    @Test("a URL whose parent folder does not exist is a clear error that names it, and nothing changes locally")
    func missingBase() throws {
        let server = try WebDAVTestServer.require()
        let address = try WebDAVAddress.parse(server.url + "/no-such-parent-\(UUID().uuidString.prefix(8))/MiDiccio").address
        try withWebDAVDirectory { directory in
            let device = try webdavDevice(name: "a", directory: directory, storage: server.storage(address))
            _ = try device.add("perdido")
            let before = try device.library.allStored()
            do {
                try device.sync()
                Issue.record("the sync should have failed")
            } catch let error as SyncError {
                guard case .cloud(let cloud) = error, case .notThere(let reason) = cloud else {
                    Issue.record("unexpected error \(error)")
                    return
                }
                #expect(reason.contains("does not exist there"))
                #expect(!"\(error)".contains("cannot be reached") && !"\(error)".contains("will try again"))
                #expect(reason.contains(address.url.deletingLastPathComponent().absoluteString))
            }
            #expect(try device.library.allStored() == before)
        }
    }
}
