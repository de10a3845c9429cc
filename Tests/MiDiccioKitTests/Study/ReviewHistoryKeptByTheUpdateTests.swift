import Foundation
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// The update that stores review events compactly (word ids as 16 bytes, devices by
/// number) keeps every event of a library written before it: the same words, times,
/// devices, grades, seconds and pending marks.
@Suite("An update keeps the review history of a library studied before it")
struct ReviewHistoryKeptByTheUpdateTests {
    @Test("every event, pending mark and device survives the move to the compact review table")
    func historyKept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-review-update-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("library.sqlite").path

        let first = WordID("3F2A9C1E-8B4D-4E6F-9A1B-2C3D4E5F6A7B")!, second = WordID("0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3")!
        let phone = "11111111-2222-4333-8444-555555555555", laptop = "ffffffff-eeee-4ddd-8ccc-bbbbbbbbbbbb"
        let events = [
            ReviewEvent(wordID: first, time: Timestamp(milliseconds: 1_000), grade: .good, device: phone, seconds: 4),
            ReviewEvent(wordID: first, time: Timestamp(milliseconds: 1_000), grade: .again, device: laptop, seconds: 0),
            ReviewEvent(wordID: first, time: Timestamp(milliseconds: 90_000_000), grade: .easy, device: laptop, seconds: 12),
            ReviewEvent(wordID: second, time: Timestamp(milliseconds: 5_000), grade: .hard, device: phone, seconds: 7),
        ]
        do {
            // A library as the schema before the update left it, with its events as text.
            let database = try Database(path: path, create: true)
            try database.execute("PRAGMA application_id = \(LibraryFile.applicationID)")
            try Migrator.prepare(database)
            try Migrator.migrate(database, Array(Migrations.all.prefix { $0.name != "2026-12-compact-reviews" }), now: { 0 })
            for (index, event) in events.enumerated() {
                try database.run(
                    "INSERT INTO reviews (word_id, time, device, grade, seconds, pending) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .text(event.wordID.rawValue), .time(event.time), .text(event.device), .integer(Int64(event.grade.rawValue)),
                        .integer(Int64(event.seconds)), .integer(index % 2 == 0 ? 1 : 0),
                    ])
            }
        }

        let library = try WordLibrary(path: path, environment: [:])
        #expect(try library.reviewEventCount() == events.count)
        #expect(try library.reviewEvents(of: first) == events.filter { $0.wordID == first }.sorted(by: ReviewEvent.replayOrder))
        #expect(try library.reviewEvents(of: second) == [events[3]])
        #expect(Set(try library.allReviewEvents()) == Set(events))
        let pending = try SyncStore(library).reviewEvents(pendingOnly: true)
        #expect(Set(pending) == [events[0], events[2]])
        let indexes = try library.database.prepare(
            "SELECT name FROM sqlite_schema WHERE tbl_name = 'reviews' AND type = 'index' AND sql IS NOT NULL ORDER BY name"
        ).rows { $0.text(0) }
        #expect(indexes == ["reviews_pending", "reviews_time"])
    }

    @Test("the update that keys answers by their seconds too keeps every event and pending mark, a day at most")
    func keyedBySecondsKeepsHistory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-review-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("library.sqlite").path
        let word = WordID("0a1b2c3d-4e5f-4a6b-8c7d-8e9fa0b1c2d3")!
        do {
            let database = try Database(path: path, create: true)
            try database.defineSchemaGuard(newest: Migrations.all.count)
            try database.execute("PRAGMA application_id = \(LibraryFile.applicationID)")
            try Migrator.prepare(database)
            try Migrator.migrate(database, Array(Migrations.all.prefix { $0.name != "2026-12-review-key-holds-seconds" }), now: { 0 })
            try database.run("INSERT INTO review_devices (num, id) VALUES (1, '11111111-2222-4333-8444-555555555555')")
            try database.run("INSERT INTO sync_state (id, value) VALUES (1, '{}')")
            for (time, seconds, pending) in [(1_000, 4, 1), (2_000, 100_000, 0), (3_000, -3, 1)] as [(Int64, Int64, Int64)] {
                try database.run(
                    "INSERT INTO reviews (word, time, device, grade, seconds, pending) VALUES (?, ?, 1, 3, ?, ?)",
                    [.blob(word.bytes), .integer(time), .integer(seconds), .integer(pending)])
            }
        }
        let library = try WordLibrary(path: path, environment: [:])
        #expect(try library.reviewEvents(of: word).map(\.seconds) == [4, ReviewEvent.longestSeconds, 0])
        // A library with answers that has synced reads every file again once (round 25A #2).
        #expect(try library.info(Migrations.readAgainKey) == "1")
        #expect(try SyncStore(library).reviewEvents(pendingOnly: true).map(\.time.milliseconds) == [1_000, 3_000])
        let indexes = try library.database.prepare(
            "SELECT name FROM sqlite_schema WHERE tbl_name = 'reviews' AND type = 'index' AND sql IS NOT NULL ORDER BY name"
        ).rows { $0.text(0) }
        #expect(indexes == ["reviews_pending", "reviews_time"])
        // One answer more at the first one's millisecond, alike but for its seconds: two answers.
        let twin = ReviewEvent(
            wordID: word, time: Timestamp(milliseconds: 1_000), grade: .good, device: "11111111-2222-4333-8444-555555555555", seconds: 6)
        try library.writing { _ = try library.insertReviewEvents([twin], pending: false) }
        #expect(try library.reviewEventCount() == 4)
    }
}
