import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: the folder back end (Dropbox, iCloud Drive, Syncthing ... folders) writes each
/// file to a temporary name and renames it, so a reader never sees half a file; it is
/// reached only through list, read, write and delete.
@Suite("A cloud folder on disk: atomic writes, plain listings, clear errors when unmounted")
struct FolderStorageTests {
    /// Every name in `path`, hidden ones included.
    private func names(in path: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }

    private func inode(_ path: String) throws -> UInt64? {
        (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.uint64Value
    }

    @Test("a file held open (a large snapshot) is copied in a piece at a time, byte for byte, and never over another")
    func createFromFile() throws {
        try withSyncFixture { fixture in
            let root = fixture.file("cloud")
            try LargeCloudFiles.expectCreatedFromFile(FolderStorage(root: root))
            #expect(try names(in: root + "/snapshots/d") == ["000000000003-ef.snap"])
        }
    }

    @Test("a write replaces the file through a temporary name and leaves no temporary file behind")
    func writeIsAtomic() throws {
        try withSyncFixture { fixture in
            let root = fixture.file("cloud")
            let storage = FolderStorage(root: root)
            let path = "changes/device/000000000001.chg"
            try storage.write(path, Data("first".utf8))
            #expect(try storage.read(path) == Data("first".utf8))
            #expect(try names(in: root + "/changes/device") == ["000000000001.chg"])
            let before = try inode(root + "/" + path)

            try storage.write(path, Data("second, longer than the first".utf8))
            #expect(try storage.read(path) == Data("second, longer than the first".utf8))
            #expect(try names(in: root + "/changes/device") == ["000000000001.chg"], "no temporary file remains")
            #expect(try inode(root + "/" + path) != before, "a new file was renamed into place, not rewritten in place")
        }
    }

    @Test("a write that fails leaves the old file whole and no temporary file")
    func failedWriteLeavesNoTrace() throws {
        try withSyncFixture { fixture in
            let root = fixture.file("cloud")
            let storage = FolderStorage(root: root)
            // A folder where the file should go: the rename cannot replace it.
            try FileManager.default.createDirectory(atPath: root + "/devices/blocked.json", withIntermediateDirectories: true)
            try Data("keep".utf8).write(to: URL(fileURLWithPath: root + "/devices/blocked.json/inside"))
            #expect(throws: CloudError.self) { try storage.write("devices/blocked.json", Data("new".utf8)) }
            #expect(try names(in: root + "/devices") == ["blocked.json"], "no temporary file remains")
            #expect(try names(in: root + "/devices/blocked.json") == ["inside"])
        }
    }

    @Test("a listing shows the files in a folder, not its subfolders, and a missing folder is empty")
    func listIgnoresSubfolders() throws {
        try withSyncFixture { fixture in
            let storage = FolderStorage(root: fixture.file("cloud"))
            try storage.write("changes/a.chg", Data("12345".utf8))
            try storage.write("changes/b.chg", Data("1".utf8))
            try storage.write("changes/sub/c.chg", Data("1".utf8))
            try storage.write("top.json", Data("{}".utf8))
            let entries = try storage.list("changes").sorted { $0.name < $1.name }
            #expect(entries == [CloudEntry(name: "a.chg", size: 5), CloudEntry(name: "b.chg", size: 1)])
            #expect(try storage.list("").map(\.name) == ["top.json"])
            #expect(try storage.list("missing").isEmpty)
        }
    }

    @Test("reading a missing file gives nothing, and removing one is not an error")
    func missingFiles() throws {
        try withSyncFixture { fixture in
            let storage = FolderStorage(root: fixture.file("cloud"))
            #expect(try storage.read("devices/nobody.json") == nil)
            #expect(try storage.delete("devices/nobody.json") == false)
            try storage.write("devices/somebody.json", Data("x".utf8))
            #expect(try storage.delete("devices/somebody.json"))
            #expect(try storage.read("devices/somebody.json") == nil)
        }
    }

    @Test("a cloud folder on a drive that is not mounted is unavailable, and nothing is created")
    func unmountedRootIsUnavailable() throws {
        try withSyncFixture { fixture in
            let drive = fixture.file("unmounted-drive")
            let storage = FolderStorage(root: drive + "/MiDiccio")
            func isUnavailable(_ error: CloudError?) -> Bool {
                if case .unavailable = error { return true }
                return false
            }
            #expect(isUnavailable(#expect(throws: CloudError.self) { try storage.list("devices") }))
            #expect(isUnavailable(#expect(throws: CloudError.self) { try storage.read(CloudLayout.manifestPath) }))
            #expect(isUnavailable(#expect(throws: CloudError.self) { try storage.write(CloudLayout.manifestPath, Data()) }))
            #expect(!FileManager.default.fileExists(atPath: drive), "a write must not create the missing drive")
        }
    }

    @Test("a sync to an unmounted folder fails as unavailable and changes nothing locally")
    func syncToUnmountedFolder() throws {
        try withSyncFixture { fixture in
            let clock = ManualClock(start: SyncFixture.start)
            let library = try WordLibrary(path: fixture.file("lib.sqlite"), clock: clock, environment: [:])
            let id = try library.add(WordContent(term: "sin red")).word.id
            let engine = SyncEngine(library: library, storage: FolderStorage(root: fixture.file("unmounted/MiDiccio")))
            let error = #expect(throws: SyncError.self) { try engine.sync() }
            if case .cloud(.unavailable) = error {} else { Issue.record("expected cloud unavailable, got \(String(describing: error))") }
            #expect(try library.guarded { try library.stored(id)?.pending } == true)
        }
    }

    @Test("a cloud folder that is missing but whose parent exists is created on the first write")
    func missingRootCreated() throws {
        try withSyncFixture { fixture in
            let root = fixture.file("Dropbox/MiDiccio")
            try FileManager.default.createDirectory(atPath: fixture.file("Dropbox"), withIntermediateDirectories: true)
            let storage = FolderStorage(root: root)
            #expect(try storage.list("").isEmpty)
            try storage.write(CloudLayout.manifestPath, Data("{}".utf8))
            #expect(FileManager.default.fileExists(atPath: root + "/" + CloudLayout.manifestPath))
        }
    }

    @Test("two libraries sync through one folder")
    func twoLibrariesThroughOneFolder() throws {
        try withSyncFixture { fixture in
            let root = fixture.file("Sync/MiDiccio")
            try FileManager.default.createDirectory(atPath: fixture.file("Sync"), withIntermediateDirectories: true)
            let clockA = ManualClock(start: SyncFixture.start), clockB = ManualClock(start: SyncFixture.start)
            let a = try WordLibrary(path: fixture.file("a.sqlite"), clock: clockA, environment: [:])
            let b = try WordLibrary(path: fixture.file("b.sqlite"), clock: clockB, environment: [:])
            let engineA = SyncEngine(library: a, storage: FolderStorage(root: root))
            let engineB = SyncEngine(library: b, storage: FolderStorage(root: root))

            let id = try a.add(WordContent(term: "carpeta", meaning: "folder")).word.id
            try engineA.sync()
            try engineB.sync()
            #expect(try b.word(id)?.meaning == "folder")
            clockB.advance(by: 1_000)
            try b.edit(id, WordEdit(notes: "edited on b"))
            try engineB.sync()
            try engineA.sync()
            #expect(try a.word(id)?.notes == "edited on b")
            #expect(try a.word(id) == b.word(id))
            let everything = try FileManager.default.subpathsOfDirectory(atPath: root)
            #expect(!everything.contains { $0.hasSuffix(".tmp") }, "no temporary files left: \(everything)")
        }
    }
}
