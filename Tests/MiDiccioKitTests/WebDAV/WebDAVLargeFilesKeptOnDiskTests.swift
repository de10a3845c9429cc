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
@Suite(
    "A large file from a WebDAV server is kept on disk while it downloads",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVLargeFilesKeptOnDiskTests {
    /// `count` bytes that barely compress, so the server sends them as they are.
    private static func noise(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Every byte of `bytes`, read back a piece at a time.
    private static func contents(_ bytes: CloudBytes) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 100_000)
        while true {
            let read = try buffer.withUnsafeMutableBytes { try bytes.read(at: data.count, into: $0) }
            if read == 0 { return data }
            data.append(contentsOf: buffer[0..<read])
        }
    }

    @Test("a file of a megabyte or more is handed over from a temporary file, byte for byte; a small one from memory")
    func largeFromDisk() throws {
        let server = try WebDAVTestServer.require()
        let storage = server.storage(try server.freshAddress("large-files"))
        let large = Self.noise(3 << 20), small = Self.noise(5_000)
        try storage.write("snapshots/d/000000000001-ab.snap", large)
        try storage.write("changes/d/000000000002-cd.chg", small)

        let held = try #require(try storage.readBytes("snapshots/d/000000000001-ab.snap"))
        guard case .file(let file) = held else {
            Issue.record("a 3 MB download was kept in memory")
            return
        }
        #expect(file.size == large.count)
        #expect(try Self.contents(held) == large)
        guard case .memory(let data) = try #require(try storage.readBytes("changes/d/000000000002-cd.chg")) else {
            Issue.record("a 5 KB download was kept on disk")
            return
        }
        #expect(data == small)
        #expect(try storage.readBytes("snapshots/d/missing.snap") == nil)
    }

    @Test("the size limit still holds for a download kept on disk")
    func limitHolds() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("large-limit")
        try server.storage(address).write("snapshots/d/000000000001-ab.snap", Self.noise(3 << 20))
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
            let rows = (0..<12_000).map { "palabra\($0)\t\(Self.noise(60).base64EncodedString())" }
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
