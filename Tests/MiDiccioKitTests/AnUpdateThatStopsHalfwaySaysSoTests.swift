import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// Bringing a library made by an earlier MiDiccio up to date is a one-way step: each
/// migration commits on its own, and older builds no longer open the file. An update that
/// failed after its first steps said "the library could not be updated (nothing was
/// changed)" while the earlier MiDiccio already refused the file (round 15A F10); and an
/// update that went through said nothing at all (F7). The open now tells which schema it
/// came from, and a failure after the first step says how far the file got.
@Suite("An update that stops halfway says so")
struct AnUpdateThatStopsHalfwaySaysSoTests {
    /// The position of the migration named `name` among all (0 for the first).
    private func position(_ name: String) throws -> Int {
        try #require(Migrations.all.firstIndex { $0.name == name })
    }

    /// The library at `path` set back as a MiDiccio without the migrations `names` left it
    /// (their records gone, its version that of the one before the first of them), through
    /// a raw connection; `sql` then runs there too. Only migrations that can run again.
    private func setBack(_ path: String, _ names: [String], then sql: String = "") throws {
        let newest = Migrations.all.count
        let version = try names.map(position).min() ?? newest
        let raw = try Database(path: path, create: false)
        try raw.defineSchemaGuard(newest: newest)
        try raw.write {
            for name in names { try raw.run("DELETE FROM schema_migrations WHERE name = ?", [.text(name)]) }
            try raw.execute("PRAGMA user_version = \(version)")
            if !sql.isEmpty { try raw.execute(sql) }
        }
    }

    /// Migrations that can run again: the guard's triggers (dropped first) and the floor of
    /// old tag lists.
    private static let guardTriggers = "2026-12-writers-know-the-schema", oldListsFloor = "2026-12-old-lists-floor-at-last-pull"

    @Test("an open that brings an earlier library up to date says which schema it came from; others say nothing")
    func theOpenTellsTheUpgrade() throws {
        try withTemporaryLibrary { temporary in
            try temporary.library.add(WordContent(term: "uno"))
            #expect(temporary.library.upgradedFrom == nil, "a new library")
            #expect(try WordLibrary(path: temporary.library.path, clock: temporary.clock, environment: [:]).upgradedFrom == nil)
            try setBack(temporary.library.path, [Self.oldListsFloor])
            let upgraded = try WordLibrary(path: temporary.library.path, clock: temporary.clock, environment: [:])
            #expect(upgraded.upgradedFrom == (try position(Self.oldListsFloor)))
            let raw = try Database(path: temporary.library.path, create: false)
            #expect(try raw.integer("PRAGMA user_version") == Int64(Migrations.all.count), "the newest, not the one run again")
            #expect(try upgraded.list().map(\.term) == ["uno"])
        }
    }

    @Test("a migration that fails after an earlier one committed names the schema reached, not 'nothing was changed'")
    func aMigrationFailsAfterAnother() throws {
        try withTemporaryLibrary { temporary in
            let path = temporary.library.path
            let id = try temporary.library.add(WordContent(term: "uno", tags: ["x"])).word.id
            // The last migration meets a word it changes, and a trigger refuses the change.
            let lastSync = temporary.clock.now().milliseconds - 1_000
            try setBack(
                path, [Self.guardTriggers, Self.oldListsFloor],
                then: """
                    DROP TRIGGER library_info_insert_guard; DROP TRIGGER library_info_update_guard;
                    DROP TRIGGER library_info_delete_guard;
                    INSERT OR REPLACE INTO sync_state (id, value) VALUES (1, '{"state":{"lastSync":\(lastSync)}}');
                    UPDATE words SET tag_clock = NULL, pending = 1, created_at = \(lastSync - 1) WHERE id = '\(id.rawValue)';
                    CREATE TRIGGER refuse_for_test BEFORE UPDATE OF tag_clock ON words BEGIN SELECT RAISE(ABORT, 'refused for the test'); END;
                    """)
            let error = #expect(throws: LibraryError.self) { _ = try WordLibrary(path: path, clock: temporary.clock, environment: [:]) }
            let text = error.map { "\($0)" } ?? ""
            let from = try position(Self.guardTriggers), reached = from + 1
            #expect(text.contains("made by an earlier MiDiccio (library schema \(from))"), "\(text)")
            #expect(text.contains("reached schema \(reached), which older MiDiccio builds cannot open"), "\(text)")
            #expect(text.contains("refused for the test") && !text.contains("nothing was changed"), "\(text)")
            let raw = try Database(path: path, create: false)
            #expect(try raw.integer("PRAGMA user_version") == Int64(reached))
            // Once the cause is gone, the next open finishes.
            try raw.write { try raw.execute("DROP TRIGGER refuse_for_test") }
            let finished = try WordLibrary(path: path, clock: temporary.clock, environment: [:])
            #expect(finished.upgradedFrom == reached)
            #expect(try finished.list().map(\.term) == ["uno"])
        }
    }

    @Test("a step after the migrations that fails says the file was brought up to date")
    func theStepAfterFails() throws {
        try withTemporaryLibrary { temporary in
            let path = temporary.library.path
            try temporary.library.add(WordContent(term: "uno"))
            // The terms' keys are computed again after the upgrade (another ICU noted), and
            // a trigger refuses that.
            try setBack(
                path, [Self.oldListsFloor],
                then: """
                    UPDATE library_info SET value = 'another' WHERE key = 'collation.icu';
                    UPDATE words SET term_key = 'keyed by another ICU';
                    CREATE TRIGGER refuse_for_test BEFORE UPDATE ON words BEGIN SELECT RAISE(ABORT, 'refused for the test'); END;
                    """)
            let error = #expect(throws: LibraryError.self) { _ = try WordLibrary(path: path, clock: temporary.clock, environment: [:]) }
            let text = error.map { "\($0)" } ?? ""
            #expect(text.contains("reached schema \(Migrations.all.count)") && text.contains("refused for the test"), "\(text)")
            #expect(!text.contains("nothing was changed"), "\(text)")
        }
    }
}
