import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// A `serve` left running while a newer MiDiccio updated its library went on writing, as
/// its own schema knew it: a tag edit left the newer tag clock behind, and the devices
/// disagreed for good while `status` said "in agreement" (round 15A, LOST). Every write
/// of MiDiccio changes `library_info`, whose triggers now check the writer knows the file's
/// schema.
@Suite("A MiDiccio left running across an update stops writing")
struct AMiDiccioLeftRunningAcrossAnUpdateStopsWritingTests {
    @Test("a library updated by a newer MiDiccio under an open one: its next change is refused, naming the schema, and nothing is written")
    func newerUpdateUnderAnOpenLibrary() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let id = try library.add(WordContent(term: "uno", tags: ["x"])).word.id
            // A newer MiDiccio opens the file and updates it one step further.
            let newer = try Database(path: library.path, create: false)
            try newer.defineSchemaGuard(newest: Migrations.all.count + 1)
            try newer.write {
                try newer.run(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES ('2099-01-a-newer-step', 0)")
                try newer.execute("PRAGMA user_version = \(Migrations.all.count + 1)")
                try newer.run("INSERT OR REPLACE INTO library_info (key, value) VALUES ('newer.key', 'set')")
            }
            let error = #expect(throws: LibraryError.self) { _ = try library.edit(id, WordEdit(tags: ["x", "z"])) }
            #expect(
                error.map { "\($0)" }?.contains("written by a newer MiDiccio (schema \(Migrations.all.count + 1))") == true,
                "\(String(describing: error))")
            #expect(throws: LibraryError.self) { _ = try library.add(WordContent(term: "dos")) }
            let words = try newer.prepare("SELECT term, tags FROM words").rows { "\($0.text(0)) \($0.text(1))" }
            #expect(words == ["uno [\"x\"]"], "nothing the older one tried was written")
        }
    }

    @Test("a connection that does not know the check (a MiDiccio from before it) can read the library but not write it")
    func earlierMiDiccioCannotWrite() throws {
        try withTemporaryLibrary { temporary in
            try temporary.library.add(WordContent(term: "uno"))
            let earlier = try Database(path: temporary.library.path, create: false)
            #expect(try earlier.integer("SELECT count(*) FROM words") == 1)
            // The writes every MiDiccio makes with each change: refused.
            for sql in [
                "UPDATE library_info SET value = value WHERE key = 'change.counter'",
                "INSERT OR REPLACE INTO library_info (key, value) VALUES ('change.counter', '99')",
                "DELETE FROM library_info WHERE key = 'sync.digest'",
            ] {
                let error = #expect(throws: SQLiteError.self) { try earlier.write { try earlier.run(sql) } }
                #expect(
                    error?.message.contains("no such function: \(Database.schemaGuardFunction)") == true,
                    "\(sql): \(String(describing: error))")
            }
            // The library itself goes on.
            try temporary.library.add(WordContent(term: "dos"))
            #expect(try temporary.library.counts().words == 2)
        }
    }
}
