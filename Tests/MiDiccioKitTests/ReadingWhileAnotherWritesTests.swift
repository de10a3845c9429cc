import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// Opening a library to read it takes no write lock: `midiccio list` answers while the
/// web app is in the middle of a long import, instead of waiting for it to end.
@Suite("Reading a library while another writes")
struct ReadingWhileAnotherWritesTests {
    @Test("a library opens and lists its words while another connection holds a write transaction")
    func opensDuringAWrite() throws {
        try withLibraryFile { path, clock in
            do {
                let library = try WordLibrary(path: path, clock: clock, environment: [:])
                try library.add(WordContent(term: "palabra", meaning: "word"))
            }
            // Another process's long write: holds the write lock the whole time.
            let writer = try Database(path: path, create: false)
            try writer.defineSchemaGuard(newest: Migrations.all.count)  // another MiDiccio, as up to date
            try writer.execute("BEGIN IMMEDIATE")
            try writer.execute("UPDATE words SET meaning = 'being rewritten'")

            let started = ContinuousClock.now
            let reader = try WordLibrary(path: path, clock: clock, environment: [:])
            #expect(try reader.list().map(\.meaning) == ["word"])
            // The busy timeout is 10 s: waiting for the lock would take that long.
            #expect(ContinuousClock.now - started < .seconds(5))

            try writer.execute("COMMIT")
            #expect(try reader.list().map(\.meaning) == ["being rewritten"])
        }
    }

    @Test("the study queue and the study figures answer while another connection holds a write transaction")
    func studyDuringAWrite() throws {
        try withLibraryFile { path, clock in
            let library = try WordLibrary(path: path, clock: clock, environment: [:])
            let word = try library.add(WordContent(term: "palabra", meaning: "word")).word
            try library.review(word.id, grade: .good)
            #expect(try library.studyQueue().due.isEmpty)
            let writer = try Database(path: path, create: false)
            try writer.defineSchemaGuard(newest: Migrations.all.count)  // another MiDiccio, as up to date
            try writer.execute("BEGIN IMMEDIATE")
            try writer.execute("UPDATE words SET meaning = 'being rewritten'")
            // Ten seconds in use; a fifth of a second here: a write lock taken would fail.
            try library.database.execute("PRAGMA busy_timeout = 200")
            #expect(try library.studyQueue().due.isEmpty)
            #expect(try library.studyStats().counts.values.reduce(0, +) == 1)
            // A cache made for another desired retention must be made again: that is a write.
            try writer.execute("UPDATE library_info SET value = 'fsrs6 0.5' WHERE key = 'study.cache'")
            try writer.execute("COMMIT")
            try writer.execute("BEGIN IMMEDIATE")
            try writer.execute("UPDATE words SET meaning = 'rewritten again'")
            #expect(throws: LibraryError.self) { try library.studyStats() }
            try writer.execute("ROLLBACK")
            #expect(try library.studyStats().counts.values.reduce(0, +) == 1)
        }
    }

    @Test("a change that waits past the busy timeout says the library is busy, and changes nothing")
    func busyChangeSaysSo() throws {
        try withLibraryFile { path, clock in
            let library = try WordLibrary(path: path, clock: clock, environment: [:])
            try library.add(WordContent(term: "palabra", meaning: "word"))
            let writer = try Database(path: path, create: false)
            try writer.defineSchemaGuard(newest: Migrations.all.count)  // another MiDiccio, as up to date
            try writer.execute("BEGIN IMMEDIATE")
            try writer.execute("UPDATE library_info SET value = value WHERE key = 'change.counter'")
            // Ten seconds in use; a fifth of a second here.
            try library.database.execute("PRAGMA busy_timeout = 200")
            do {
                try library.add(WordContent(term: "casa", meaning: "house"))
                Issue.record("the add went through while another connection held the write lock")
            } catch let error as LibraryError {
                #expect(error.description.hasPrefix("the library is busy: another program"))
                #expect(error.description.contains("nothing was changed"))
            }
            try writer.execute("ROLLBACK")
            #expect(try library.list().map(\.term) == ["palabra"])
        }
    }
}
