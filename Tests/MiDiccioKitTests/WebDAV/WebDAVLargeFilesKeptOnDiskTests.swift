import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// A snapshot downloaded from a WebDAV server is kept in a temporary file as it arrives,
/// not in memory: a new device's first sync of a million words stays within its memory.
/// A snapshot uploaded goes from its temporary file with its length, as it is read.
@Suite(
    "A large file from a WebDAV server is kept on disk while it downloads",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVLargeFilesKeptOnDiskTests {
    @Test("a file of a megabyte or more is handed over from a temporary file, byte for byte; a small one from memory")
    func largeFromDisk() throws {
        let server = try WebDAVTestServer.require()
        let storage = server.storage(try server.freshAddress("large-files"))
        try LargeCloudFiles.expectLargeOnDiskSmallInMemory(writer: storage, reader: storage)
        #expect(try storage.readBytes("snapshots/d/missing.snap") == nil)
    }

    @Test("a file held open is uploaded from it with its length, byte for byte, its size checked, and never over another")
    func uploadFromFile() throws {
        let server = try WebDAVTestServer.require()
        let storage = server.storage(try server.freshAddress("large-upload"))
        try LargeCloudFiles.expectCreatedFromFile(storage)
        // The size the server kept is asked for after the upload.
        #expect(storage.requestCounts["HEAD"] == 1)
    }

    /// A fresh folder on the test server, reached through a fault proxy (`storage`) and
    /// directly (`direct`). Its snapshot folder is made directly, so the first request
    /// through the proxy is an upload.
    private static func throughProxy(_ name: String) throws -> (proxy: FaultProxy, storage: WebDAVStorage, direct: WebDAVStorage) {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress(name)
        let direct = server.storage(address)
        try direct.write("snapshots/d/000000000001-aa.snap", Data("small".utf8))
        let proxy = try FaultProxy(upstream: server.url)
        return (proxy, server.storage(try WebDAVAddress.parse(proxy.url + address.url.path).address), direct)
    }

    @Test("a connection dropped while a file held open goes out: the file is sent again, whole and with its length")
    func droppedWhileSending() throws {
        let (proxy, storage, direct) = try Self.throughProxy("large-upload-dropped")
        defer { proxy.stop() }
        proxy.dropConnections(1)
        let bytes = LargeCloudFiles.noise(2 << 20)
        let path = "snapshots/d/000000000002-bb.snap"
        try storage.create(path, bytes: try LargeCloudFiles.heldInFile(bytes))
        #expect(try direct.read(path) == bytes)
        #expect(storage.requestCounts["PUT"] == 2)
        #expect(storage.requestCounts["HEAD"] == 1)
    }

    @Test("a server that keeps fewer bytes than a file's upload announced fails it, saying so, and keeps no short file")
    func shortFileRefused() throws {
        let (proxy, storage, direct) = try Self.throughProxy("large-upload-short")
        defer { proxy.stop() }
        proxy.truncateNextBody(by: 1_000)
        let bytes = LargeCloudFiles.noise(2 << 20)
        let path = "snapshots/d/000000000002-bb.snap"
        #expect {
            try storage.create(path, bytes: try LargeCloudFiles.heldInFile(bytes))
        } throws: { error in
            guard case CloudError.failed(let failed, let reason) = error else { return false }
            return failed == path && reason == "the server kept \(bytes.count - 1_000) of the \(bytes.count) bytes sent"
        }
        #expect(try direct.read(path) == nil)
        // Sent again, with nothing left out on the way, it is kept whole.
        try storage.create(path, bytes: try LargeCloudFiles.heldInFile(bytes))
        #expect(try direct.read(path) == bytes)
    }

    @Test("with no room for its named copy, a file held open is sent from memory, whole and byte for byte")
    func noRoomForTheCopy() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("large-upload-no-copy")
        var options = WebDAVStorage.Options()
        options.copyFolder = "/nonexistent-midiccio-folder"
        try server.storage(address).write("snapshots/d/000000000001-aa.snap", Data("small".utf8))
        let storage = server.storage(address, options: options)
        let bytes = LargeCloudFiles.noise(2 << 20)
        try storage.create("snapshots/d/000000000002-bb.snap", bytes: try LargeCloudFiles.heldInFile(bytes))
        #expect(try server.storage(address).read("snapshots/d/000000000002-bb.snap") == bytes)
        #expect(storage.requestCounts["PUT"] == 1)
        #expect(storage.requestCounts["HEAD"] == 1)
    }

    @Test("the size limit still holds for a download kept on disk")
    func limitHolds() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("large-limit")
        try server.storage(address).write("snapshots/d/000000000001-ab.snap", LargeCloudFiles.noise(3 << 20))
        var options = WebDAVStorage.Options()
        options.maxFileBytes = 2 << 20
        #expect {
            try server.storage(address, options: options).readBytes("snapshots/d/000000000001-ab.snap")
        } throws: { error in
            guard case CloudError.failed(_, let reason) = error else { return false }
            return reason.contains("larger than")
        }
    }

    @Test("a new device takes a snapshot of several megabytes through the server")
    func firstSyncFromDisk() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("large-first-sync")
        try withWebDAVDirectory { directory in
            let a = try webdavDevice(name: "a", directory: directory, storage: server.storage(address))
            let sheet = directory.appendingPathComponent("words.tsv").path
            let rows = (0..<12_000).map { "palabra\($0)\t\(LargeCloudFiles.noise(60).base64EncodedString())" }
            try Data(("term\tmeaning\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: sheet))
            _ = try a.library.importWords(from: sheet)
            try a.sync()
            let b = try webdavDevice(name: "b", directory: directory, storage: server.storage(address))
            try b.sync()
            #expect(try b.everyWord() == a.everyWord())
            #expect(try b.everyWord().count == 12_000)
        }
    }
}
