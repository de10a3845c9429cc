import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioFiles
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Finding 8: a sync killed while writing leaves its temporary file in the cloud. The
/// device removes its own leftovers, and status counts them while they are there.
@Suite("Temporary files a stopped sync left in the cloud")
struct LeftoverTemporaryFileTests {
    /// A folder storage that dies half way through creating a file: the temporary file
    /// is written in full, and the rename never happens.
    final class DyingFolder: CloudStorage {
        let folder: FolderStorage
        var dieOnCreate = false
        init(root: String) { folder = FolderStorage(root: root) }
        var displayName: String { folder.displayName }
        var cloudNow: Timestamp? { folder.cloudNow }
        func list(_ path: String) throws -> [CloudEntry] { try folder.list(path) }
        func folders(in path: String) throws -> [String] { try folder.folders(in: path) }
        func read(_ path: String) throws -> Data? { try folder.read(path) }
        func write(_ path: String, _ data: Data) throws { try folder.write(path, data) }
        func delete(_ path: String) throws -> Bool { try folder.delete(path) }
        func create(_ path: String, _ data: Data) throws {
            guard dieOnCreate else { return try folder.create(path, data) }
            let name = String(path.split(separator: "/").last!)
            let temporary = folder.root + "/" + path.dropLast(name.count) + FileSystem.temporaryName(for: name)
            try FileSystem.createDirectory(FileSystem.parent(of: temporary))
            try data.write(to: URL(fileURLWithPath: temporary))
            throw CloudError.unavailable("the process was killed while writing \(path)")
        }
    }

    @Test("a sync killed while writing leaves a temporary file that status counts and the device's next sync removes, purged text and all")
    func leftoverIsRemoved() throws {
        try withTemporaryDirectory { directory in
            let root = directory.appendingPathComponent("cloud").path
            let dying = DyingFolder(root: root)
            let a = try TestDevice(
                name: "a", path: directory.appendingPathComponent("a.sqlite").path, storage: dying,
                clock: ManualClock())
            try a.add("uno")
            try a.sync()
            let doomed = try a.add("secreto", notes: "qzxleftoverqzx")
            dying.dieOnCreate = true
            a.clock.advance(by: 1_000)
            #expect(throws: SyncError.self) { try a.sync() }
            dying.dieOnCreate = false
            func leftovers() throws -> [String] {
                try FileManager.default.subpathsOfDirectory(atPath: root).filter {
                    FileSystem.isTemporaryName(String($0.split(separator: "/").last!))
                }
            }
            #expect(try leftovers().count == 1)

            try a.library.delete([doomed])
            try a.library.purge([doomed])
            let status = try a.engine.status()
            #expect(status.purgedContentRemains.contains { $0.contains("1 temporary file") }, "\(status.purgedContentRemains)")

            a.clock.advance(by: 1_000)
            let report = try a.sync()
            #expect(report.temporaryFilesRemoved == 1)
            #expect(try leftovers().isEmpty)
            a.clock.advance(by: 1_000)
            try a.sync()
            let after = try a.engine.status()
            #expect(after.purgedContentRemains.isEmpty, "\(after.purgedContentRemains)")
            for path in try FileManager.default.subpathsOfDirectory(atPath: root) {
                let data = FileManager.default.contents(atPath: root + "/" + path) ?? Data()
                let text = String(decoding: (try? BatchCodec.decompress(data)) ?? [UInt8](data), as: UTF8.self)
                #expect(!text.contains("qzxleftoverqzx"), "\(path)")
            }
        }
    }
}
