import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("A library written by a newer MiDiccio")
struct NewerSchemaTests {
    /// Makes a closed library with one word at `path`.
    private func makeLibrary(at path: String) throws {
        let library = try WordLibrary(path: path, clock: ManualClock(), environment: [:])
        try library.add(WordContent(term: "palabra"))
    }

    /// The library file and any WAL or shared-memory file beside it.
    private func files(_ path: String) -> [String: Data] {
        var result: [String: Data] = [:]
        for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: path + suffix) {
            result[suffix] = fileBytes(path + suffix)
        }
        return result
    }

    @Test("opening a library of schema 99 is refused with a clear message and the file is unchanged")
    func schema99Refused() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            try makeLibrary(at: path)
            try runSQLiteShell(path, "PRAGMA user_version = 99;")
            let before = files(path)
            #expect(before.keys.sorted() == [""])

            for create in [true, false] {
                let error = #expect(throws: LibraryError.self) {
                    _ = try WordLibrary(path: path, create: create, clock: ManualClock(), environment: [:])
                }
                guard case .newerSchema(let errorPath, let version) = error else {
                    Issue.record("expected newerSchema, got \(String(describing: error))")
                    return
                }
                #expect(errorPath == path)
                #expect(version == 99)
                #expect(
                    error?.description.hasPrefix(
                        "this library was written by a newer MiDiccio (schema 99); update MiDiccio") == true,
                    "\(String(describing: error))")
            }
            #expect(files(path) == before)
        }
    }

    @Test("a library with a migration this MiDiccio does not know is refused as newer and left alone")
    func unknownMigrationRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            try makeLibrary(at: path)
            try runSQLiteShell(path, "INSERT INTO schema_migrations (name, applied_at) VALUES ('2099-01-teleport', 0);")
            let before = files(path)
            let error = #expect(throws: LibraryError.self) {
                _ = try WordLibrary(path: path, clock: ManualClock(), environment: [:])
            }
            guard case .newerSchema(_, let version) = error else {
                Issue.record("expected newerSchema, got \(String(describing: error))")
                return
            }
            #expect(version > Migrations.all.count)
            #expect(files(path) == before)
        }
    }

    @Test("a library of the current schema opens again with its words")
    func currentSchemaOpens() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            try makeLibrary(at: path)
            let library = try WordLibrary(path: path, clock: ManualClock(), environment: [:])
            #expect(!library.isNew)
            #expect(try library.list().map(\.term) == ["palabra"])
            #expect(try library.database.integer("PRAGMA user_version") == Int64(Migrations.all.count))
            let applied = try library.database.prepare("SELECT name FROM schema_migrations ORDER BY name").rows { $0.text(0) }
            #expect(applied == Migrations.all.map(\.name).sorted())
        }
    }
}
