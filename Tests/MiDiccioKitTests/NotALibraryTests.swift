import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("A file that is not a MiDiccio library")
struct NotALibraryTests {
    /// Every file in `directory` with its bytes: nothing may appear, vanish or change.
    private func contents(of directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            result[name] = fileBytes(directory.appendingPathComponent(name).path)
        }
        return result
    }

    private func expectRefused(_ path: String, in directory: URL, reason: String) throws {
        let before = try contents(of: directory)
        for create in [true, false] {
            let error = #expect(throws: LibraryError.self) {
                _ = try WordLibrary(path: path, create: create, clock: ManualClock(), environment: [:])
            }
            guard case .notALibrary(let errorPath, let errorReason) = error else {
                Issue.record("expected notALibrary, got \(String(describing: error))")
                return
            }
            #expect(errorPath == path)
            #expect(errorReason == reason)
            #expect(error?.description.contains("is not a MiDiccio library") == true)
            #expect(error?.description.contains("left untouched") == true)
        }
        #expect(try contents(of: directory) == before)
    }

    @Test(
        "a text file is refused and left byte for byte as it was",
        arguments: [
            "my shopping list\nmilk\neggs\n",
            "SQLite format 3",
            String(repeating: "x", count: 4_096),
        ])
    func textFileRefused(text: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("notes.txt").path
            try writeText(text, to: path)
            try expectRefused(path, in: directory, reason: "it is not an SQLite database")
            #expect(fileBytes(path) == Data(text.utf8))
        }
    }

    @Test("another application's SQLite database is refused and left byte for byte as it was")
    func otherDatabaseRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("other-app.db").path
            try runSQLiteShell(
                path,
                """
                CREATE TABLE contacts (name TEXT, phone TEXT);
                INSERT INTO contacts VALUES ('Ana', '555-0100'), ('Luis', '555-0199');
                """)
            let original = fileBytes(path)
            #expect(original.count >= 100)
            try expectRefused(path, in: directory, reason: "it is another application's SQLite database")
            #expect(fileBytes(path) == original)
        }
    }

    @Test("another application's database in WAL mode is refused and its files are left alone")
    func otherWALDatabaseRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("other-app.db").path
            try runSQLiteShell(path, "PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            try expectRefused(path, in: directory, reason: "it is another application's SQLite database")
        }
    }

    @Test("a missing library with create off is an error and no file appears")
    func missingWithoutCreate() throws {
        try withTemporaryDirectory { directory throws in
            let path = directory.appendingPathComponent("sub/library.sqlite").path
            let error = #expect(throws: LibraryError.self) {
                _ = try WordLibrary(path: path, create: false, clock: ManualClock(), environment: [:])
            }
            guard case .libraryGone(let errorPath) = error else {
                Issue.record("expected libraryGone, got \(String(describing: error))")
                return
            }
            #expect(errorPath == path)
            #expect(error?.description.contains("is not there any more") == true)
            #expect(try contents(of: directory).isEmpty)
        }
    }

    @Test("a missing library is created, folders included, with MiDiccio's application id")
    func missingIsCreated() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("a/b/library.sqlite").path
            let library = try WordLibrary(path: path, clock: ManualClock(), environment: [:])
            #expect(library.isNew)
            #expect(try library.database.integer("PRAGMA application_id") == Int64(LibraryFile.applicationID))
            #expect(try library.database.text("PRAGMA journal_mode") == "wal")
            #expect(try library.database.integer("PRAGMA foreign_keys") == 1)
            let header = fileBytes(path)
            #expect(header.prefix(16) == Data("SQLite format 3\0".utf8))
        }
    }
}
