import Foundation
import MiDiccioStore
import MiDiccioTesting
import Testing

@testable import MiDiccioKit
@testable import MiDiccioLibrary

/// Opening a library made by an earlier MiDiccio brings it up to date once. The update to
/// the index of terms builds that index over every word: four silent seconds at a million
/// words, in which a person saw nothing happen. The update now says it is going, as the
/// sort-order update does, so the command line can draw its progress line.
@Suite("An update of a library made by an earlier MiDiccio shows it is going")
struct AnUpdateOfAnOlderLibraryShowsItIsGoingTests {
    @Test("one long statement of a migration is heard from while it runs, not only at its end")
    func oneLongStatementTicks() throws {
        try withTemporaryLibrary { fixture in
            let database = try Database(path: fixture.file("plain.sqlite"), create: true)
            try Migrator.prepare(database)
            // About three million steps of SQLite's machine, in one statement.
            let numbers = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000)"
            let long = Migration(name: "long", sql: "CREATE TABLE t AS \(numbers) SELECT sum(i) AS s FROM n")
            var ticks = 0
            try Migrator.migrate(database, [long], now: { 0 }, tick: { ticks += 1 })
            #expect(ticks >= 10, "heard \(ticks) times")
            #expect(try database.integer("SELECT s FROM t") == 300_000 * 300_001 / 2)

            // Applied already: nothing runs, nothing is heard, and the handler is gone.
            ticks = 0
            try Migrator.migrate(database, [long], now: { 0 }, tick: { ticks += 1 })
            _ = try database.integer("\(numbers) SELECT count(*) FROM n")
            #expect(ticks == 0)
        }
    }

    @Test("an older library is heard from while its index of terms is built; a current one and a new one are not")
    func onlyAnOlderLibraryTicks() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let sheet = fixture.file("words.tsv")
            let rows = (0..<20_000).map { "palabra\($0)\tthe meaning of word number \($0), with some more words in it" }
            try (rows.joined(separator: "\n") + "\n").write(toFile: sheet, atomically: true, encoding: .utf8)
            _ = try library.importWords(from: sheet)
            // As a library of the release before: no index of terms, that migration not applied.
            try SearchFindsWordsInEveryScriptTests.makeLikeBefore(library.database, termsIndex: false)

            var ticks = 0
            let updated = try WordLibrary(path: fixture.path, clock: fixture.clock, environment: [:], upgradeProgress: { ticks += 1 })
            #expect(ticks > 0)
            #expect(try updated.search("palabra19999", limit: 1).first?.term == "palabra19999")

            ticks = 0
            _ = try WordLibrary(path: fixture.path, clock: fixture.clock, environment: [:], upgradeProgress: { ticks += 1 })
            #expect(ticks == 0, "a current library has nothing to update")
            _ = try WordLibrary(path: fixture.file("new.sqlite"), clock: fixture.clock, environment: [:], upgradeProgress: { ticks += 1 })
            #expect(ticks == 0, "making a new library is no update")
        }
    }

}
