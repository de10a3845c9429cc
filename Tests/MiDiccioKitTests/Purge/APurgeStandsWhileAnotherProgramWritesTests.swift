import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a purge that has committed stands. Scrubbing its words' text from the search
/// index and the WAL is a second write; when another program holds the library past the
/// busy timeout, the scrub waits for the next purge or sync instead of failing the purge.
@Suite("A purge stands while another program writes to the library")
struct APurgeStandsWhileAnotherProgramWritesTests {
    @Test("a scrub kept waiting by another program is no failure, stays owed when the library is closed, and the next purge makes it")
    func scrubWaitsForTheNextPurge() throws {
        try withLibraryFile { path, clock in
            let token = purgeUniqueToken("owed")
            do {
                let library = try WordLibrary(path: path, clock: clock, environment: [:])
                let word = try library.add(WordContent(term: "ventana", meaning: "significa \(token)")).word
                try library.add(WordContent(term: "puerta", meaning: "door"))
                try library.delete([word.id])
                #expect(try library.purgeOwingScrub([word.id]).map(\.id) == [word.id])

                let writer = try Database(path: path, create: false)

                try writer.defineSchemaGuard(newest: Migrations.all.count)  // another MiDiccio, as up to date
                try writer.execute("BEGIN IMMEDIATE")
                try writer.execute("UPDATE library_info SET value = value WHERE key = 'change.counter'")
                // Ten seconds in use; a fifth of a second here.
                try library.database.execute("PRAGMA busy_timeout = 200")
                #expect(try library.scrubIfOwed() == false)
                try writer.execute("ROLLBACK")
                #expect(try library.isPurged(word.id))
                #expect(try library.word(word.id) == nil)
                #expect(try library.purgedTextRemains())
                // The search index's old segment still holds the token: the check below can fail.
                #expect(purgeLibraryFiles(of: library, holding: token) != [])
            }
            let reopened = try WordLibrary(path: path, clock: clock, environment: [:])
            #expect(try reopened.emptyTrash() == 0)
            #expect(purgeLibraryFiles(of: reopened, holding: token) == [])
            #expect(try !reopened.purgedTextRemains())
            #expect(try reopened.search("door").map(\.term) == ["puerta"])
        }
    }

    @Test("a scrub still owed is made by the next sync, and a purge pulled from another device is scrubbed there")
    func syncMakesTheScrub() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let token = purgeUniqueToken("pulled")
            let id = try a.add("ventana \(token)")
            try a.add("puerta")
            try fixture.syncRounds([a, b])
            #expect(purgeLibraryFiles(of: b.library, holding: token) != [])

            try a.library.delete([id])
            _ = try a.library.purgeOwingScrub([id])
            #expect(purgeLibraryFiles(of: a.library, holding: token) != [])
            try a.sync()
            #expect(purgeLibraryFiles(of: a.library, holding: token) == [])
            #expect(try !a.library.purgedTextRemains())

            try b.sync()
            #expect(try b.library.isPurged(id))
            #expect(purgeLibraryFiles(of: b.library, holding: token) == [])
            #expect(try !b.library.purgedTextRemains())
        }
    }
}
