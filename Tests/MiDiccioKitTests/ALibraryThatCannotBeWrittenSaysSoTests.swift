import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioFiles
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A library SQLite may not write (its file, its folder or its disk read-only) says so in
/// plain words, and what to do. It said "the library could not be updated: SQLite error 8:
/// attempt to write a readonly database (in: INSERT INTO words (id, term, ...", the
/// statement over two lines (found by the exploratory helper, round 12B). SQLite's
/// `query_only` gives the same error a read-only file does, also to root.
@Suite("A library that cannot be written says so")
struct ALibraryThatCannotBeWrittenSaysSoTests {
    @Test("adding a word to a read-only library says it is read-only and what to do, without the SQL, and changes nothing")
    func readOnlySaysSo() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.add(WordContent(term: "uno"))
            try library.database.execute("PRAGMA query_only = 1")
            #expect {
                try library.add(WordContent(term: "dos"))
            } throws: { error in
                let text = "\(error)"
                return text.hasPrefix("the library cannot be written: its file, its folder or its disk is read-only; nothing was changed")
                    && text.contains("copy the library somewhere you can write") && !text.contains("INSERT")
            }
            try library.database.execute("PRAGMA query_only = 0")
            #expect(try library.list().map(\.term) == ["uno"])
        }
    }

    @Test(
        "a sync of a library in a folder that cannot be written says so, not that its lock file cannot be made",
        .enabled(if: FileManager.default.fileExists(atPath: "/sys/kernel")))
    func syncOfAReadOnlyFolder() throws {
        // No one, root included, may make a file in /sys (EACCES, or EROFS where it is
        // mounted read-only): as a library on a read-only disk (round 14C).
        #expect {
            _ = try SyncLock(libraryPath: "/sys/midiccio-library.sqlite", timeout: 0)
        } throws: { error in
            let text = "\(error)"
            return text.contains("the library cannot be written, so it cannot sync") && !text.contains("sync lock")
        }
    }

    @Test("a log left read-only while the library was read-only takes the library's permissions again once it is writable")
    func aReadOnlyLogIsMadeWritableAgain() throws {
        try withTemporaryDirectory { directory in
            // SQLite makes its log and index with the file's mode: while the file was
            // read-only, they came out read-only. The person then made the file writable, as
            // told. (Run as root, SQLite itself would not mind: the modes are checked here.)
            let path = directory.appendingPathComponent("library.sqlite").path
            for (suffix, mode) in [("", 0o600), ("-wal", 0o444), ("-shm", 0o444)] as [(String, mode_t)] {
                #expect(FileManager.default.createFile(atPath: path + suffix, contents: Data()))
                #expect(chmod(path + suffix, mode) == 0)
            }
            FileSystem.matchSideFileModes(of: path)
            for suffix in ["-wal", "-shm"] {
                #expect(FileSystem.status(path + suffix).map { $0.st_mode & 0o777 } == 0o600, "\(suffix)")
            }
            // A library still read-only leaves them as they are.
            #expect(chmod(path, 0o444) == 0 && chmod(path + "-wal", 0o400) == 0)
            FileSystem.matchSideFileModes(of: path)
            #expect(FileSystem.status(path + "-wal").map { $0.st_mode & 0o777 } == 0o400)
        }
    }

    @Test("a library file's stamp changes with its permissions, so the web app opens its connections again once it is writable")
    func theStampSeesPermissions() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            #expect(FileManager.default.createFile(atPath: path, contents: Data("words".utf8)))
            #expect(chmod(path, 0o444) == 0)
            let readOnly = try #require(FileSystem.stamp(path))
            #expect(chmod(path, 0o600) == 0)
            let writable = try #require(FileSystem.stamp(path))
            #expect(readOnly != writable)
            #expect(readOnly.isSameFile(as: writable))
        }
    }
}
