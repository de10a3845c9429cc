import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A new device's first sync of a studied library (issue 15): files carry review events
/// in the table's key order, and a reader stores them as they lie in the file, without
/// making each event whole (the bulk path). Files of an older writer, in time order, go
/// the event-by-event way (made whole, then sorted). Both must give the same library.
@Suite("A new device stores a studied library's review events in bulk, and gets the same library as event by event")
struct StudiedLibraryFirstSyncTests {
    /// A studied library on device `a`, with answers from `a` and `b` (two device ids in
    /// the events), a purged word whose events must stay out, and a snapshot holding
    /// events as well as change files after it.
    private func studiedCloud(_ fixture: SyncFixture) throws -> (device: TestDevice, purged: WordID) {
        let a = try fixture.device("a"), b = try fixture.device("b")
        a.tune = { $0.snapshotInterval = 3 }
        var ids: [WordID] = []
        for index in 0..<40 { ids.append(try a.add("palabra \(index)", meaning: "meaning \(index)", tags: ["t\(index % 3)"])) }
        try fixture.syncRounds([a, b])
        let grades: [ReviewGrade] = [.good, .again, .hard, .easy, .good]
        for round in 0..<4 {
            for (index, id) in ids.enumerated() where (index + round) % 3 != 0 {
                a.clock.advance(by: 3_600_000)
                try a.library.review(id, grade: grades[(index + round) % grades.count], seconds: index % 9)
                if index % 4 == round { try b.library.review(id, grade: .good, seconds: 3) }
            }
            try fixture.syncRounds([a, b])
        }
        // b answers a word that a purges before b hears of it: b's change file still
        // carries the event, which a new device must leave out (a purge beats it).
        try b.library.review(ids[1], grade: .good)
        try b.library.review(ids[2], grade: .again)
        fixture.advanceClocks(by: 1_000)
        try b.sync()
        try a.library.delete([ids[1]])
        try a.library.purge([ids[1]])
        fixture.advanceClocks(by: 1_000)
        try a.sync()
        return (a, ids[1])
    }

    /// Every row of `library`'s review events and schedule cache, and the words' study marks.
    private func studyRows(_ library: WordLibrary) throws -> [String] {
        _ = try library.studyQueue()
        let reviews = try library.database.prepare(
            """
            SELECT lower(hex(r.word)), r.time, d.id, r.grade, r.seconds, r.pending
            FROM reviews r JOIN review_devices d ON d.num = r.device ORDER BY r.word, r.time, d.id, r.grade
            """
        ).rows { "review \($0.text(0)) \($0.int64(1)) \($0.text(2)) \($0.int64(3)) \($0.int64(4)) \($0.int64(5))" }
        let cache = try library.database.prepare(
            "SELECT word_id, state, due, first_review, reviews FROM study_cache ORDER BY word_id"
        ).rows { "cache \($0.text(0)) \($0.int64(1)) \($0.int64(2)) \($0.int64(3)) \($0.int64(4))" }
        let studied = try library.database.prepare("SELECT id, studied FROM words ORDER BY id").rows { "word \($0.text(0)) \($0.int64(1))" }
        let indexes = try library.database.prepare(
            "SELECT name, sql FROM sqlite_schema WHERE tbl_name = 'reviews' AND type = 'index' ORDER BY name"
        ).rows { "index \($0.text(0)) \($0.optionalText(1) ?? "")" }
        return reviews + cache + studied + indexes
    }

    @Test("the bulk path and the event-by-event path give the same events, schedules and indexes")
    func bulkMatchesEventByEvent() throws {
        try withSyncFixture { fixture in
            let (a, purged) = try studiedCloud(fixture)
            let files = fixture.storage.files.filter { $0.key.hasSuffix(".chg") || $0.key.hasSuffix(".snap") }
            let withEvents = try files.filter { try BatchCodec.decode($0.value).events.count > 1 }
            #expect(withEvents.contains { $0.key.hasSuffix(".snap") }, "a snapshot carries events")
            #expect(
                try files.values.contains { try BatchCodec.decode($0).events.contains { $0.wordID == purged } },
                "files still carry events of the purged word")
            for (path, data) in withEvents {
                let streamed = try BatchCodec.decodeStreaming(data)
                let whole = try BatchCodec.decode(data)
                #expect(streamed.events.isEmpty && streamed.eventCount == whole.events.count)
                #expect(streamed.recordFile?.eventsInKeyOrder == true, "\(path) holds its events in key order")
            }

            // The same cloud with every file's events out of key order (as an older writer left
            // them, in time order).
            let older = MemoryStorage()
            for (path, data) in fixture.storage.files {
                guard withEvents[path] != nil else {
                    older.plant(path, data)
                    continue
                }
                var batch = try BatchCodec.decode(data)
                batch.events.sort { ($0.wordID, $0.time.milliseconds) > ($1.wordID, $1.time.milliseconds) }
                let rewritten = BatchCodec.encode(batch)
                #expect(try BatchCodec.decodeStreaming(rewritten).recordFile?.eventsInKeyOrder == false)
                older.plant(path, rewritten)
            }

            // Two new devices, the time index rebuilt at any size so that path is checked too.
            for rebuildFrom in [1, 50_000] {
                let bulk = try fixture.device("bulk\(rebuildFrom)")
                let oneByOne = try TestDevice(
                    name: "one\(rebuildFrom)", path: fixture.file("one\(rebuildFrom).sqlite"), storage: older, clock: bulk.clock)
                bulk.library.reviewTimeIndexRebuildFrom = rebuildFrom
                // With the index rebuilt at any size, the events are read on a second thread too.
                if rebuildFrom == 1 { bulk.library.reviewEventsReadAsideFrom = 1 }
                oneByOne.library.reviewTimeIndexRebuildFrom = rebuildFrom
                try bulk.sync()
                try oneByOne.sync()
                let rows = try studyRows(bulk.library)
                #expect(rows.contains { $0.hasPrefix("review ") } && rows.contains { $0.hasPrefix("cache ") })
                let rowsOneByOne = try studyRows(oneByOne.library)
                #expect(rows == rowsOneByOne)
                #expect(try bulk.library.reviewEventCount() == a.library.reviewEventCount())
                #expect(try bulk.library.reviewEvents(of: purged).isEmpty)
                let now = a.clock.now()
                #expect(
                    try bulk.library.studyQueue(at: now).cards.map(\.word.id) == a.library.studyQueue(at: now).cards.map(\.word.id))
            }
        }
    }

    @Test("a damaged review event at the end of a batch is found before any of its words is used")
    func damagedEventRefusedFirst() throws {
        let writer = "0f0e0d0c-0b0a-4908-8706-050403020100"
        let created = Timestamp(milliseconds: 1_764_000_000_000)
        var generator = SystemRandomNumberGenerator()
        let words = (0..<500).map { index in
            Word(id: WordID.random(using: &generator), term: "palabra \(index)", createdAt: created, updatedAt: created)
        }
        let records = words.map {
            SyncRecord(word: $0, times: FieldTimes(all: created), writers: Array(repeating: writer, count: WordField.allCases.count))
        }
        let events = words.sorted { $0.id < $1.id }.map {
            ReviewEvent(wordID: $0.id, time: created, grade: .good, device: writer, seconds: 2)
        }
        let data = BatchCodec.encode(SyncBatch(kind: .snapshot, device: writer, seq: 1, records: records, events: events))
        #expect(try BatchCodec.decodeStreaming(data).recordFile?.eventsInKeyOrder == true)
        // The last event's grade (the ninth byte from its end: device index and seconds follow).
        var payload = try BatchCodec.decompress(data)
        payload[payload.count - 9] = 9
        #expect(throws: BatchDecodeError.self) { try BatchCodec.decodeStreaming(BatchCodec.compress(payload)) }
        // And an id that is not one, in the first event.
        payload = try BatchCodec.decompress(data)
        // Events are the last 57 bytes each: id length (4), id (36), time, grade, device, seconds.
        let first = payload.count - 57 * events.count + 4
        #expect(payload[first..<first + 36].elementsEqual(events[0].wordID.rawValue.utf8))
        payload[first + 3] = UInt8(ascii: "x")
        #expect(throws: BatchDecodeError.self) { try BatchCodec.decodeStreaming(BatchCodec.compress(payload)) }
    }
}
