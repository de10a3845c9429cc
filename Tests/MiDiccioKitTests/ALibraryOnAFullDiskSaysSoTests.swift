import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync

#if canImport(Glibc)
import Glibc

/// A library whose disk is full could not even be opened, SQLite having no room for the
/// index of its write-ahead log, and every command said "disk I/O error", which sounds
/// like a damaged file (found by the exploratory helper, round 4). It says the disk is
/// full. The disk is a small tmpfs, which only root may mount: elsewhere the test is
/// skipped, and says so.
@Suite("A library on a full disk says the disk is full")
struct ALibraryOnAFullDiskSaysSoTests {
    @Test("a write, or a sync, that finds no room says the disk the library is on is full, not only SQLite's error")
    func aWriteSaysTheDiskIsFull() {
        let full = SQLiteError(code: 13, message: "database or disk is full")
        let write = LibraryError.storage(full).description
        #expect(write.hasPrefix("the disk the library is on is full; nothing was changed. Free some space"), "\(write)")
        let sync = MiDiccioSync.SyncError.stopped(cause: LibraryError.storage(full), kept: SyncKept()).description
        #expect(sync.contains("the disk the library is on is full (free some space there"), "\(sync)")
        #expect(!LibraryError.storage(SQLiteError(code: 1, message: "other")).description.contains("full"))
    }

    @Test("opening it fails saying the disk is full, and once there is room every word is there", .enabled(if: SmallDisk.canMount))
    func fullDisk() throws {
        // Room for the library and its log at their largest (a new library's migrations
        // make a log of about 0.85 MB), so that closing it empties the log into the file.
        let disk = try SmallDisk("full", size: "2m")
        let folder = disk.folder
        let path = folder + "/library.sqlite"
        do {
            let library = try WordLibrary(path: path)
            for index in 1...3 { try library.add(WordContent(term: "palabra \(index)")) }
        }
        // The log and its index go with the last connection (as after a reboot); then
        // the disk fills up.
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        let filler = disk.fill()

        #expect {
            try WordLibrary(path: path)
        } throws: { error in
            guard case LibraryError.cannotOpen(_, let reason) = error else { return false }
            return reason.contains("the disk it is on is full")
        }
        try FileManager.default.removeItem(atPath: filler)
        #expect(try WordLibrary(path: path).counts().words == 3)
    }
}
#endif
