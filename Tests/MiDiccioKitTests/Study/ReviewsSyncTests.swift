import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rules of review events across devices (issue 15): each answer is an immutable event;
/// a word's schedule is derived by replaying its merged events in time order (ties by
/// device id), so no device stores a schedule as truth and no conflict ever arises.
@Suite("Reviews sync as events, and every device derives the same schedule")
struct ReviewsSyncTests {
    /// The review events in every batch file of the cloud.
    private func cloudEvents(_ fixture: SyncFixture) throws -> [ReviewEvent] {
        try fixture.storage.files.filter { $0.key.hasSuffix(".chg") || $0.key.hasSuffix(".snap") }
            .flatMap { try BatchCodec.decode($0.value).events }
    }

    @Test("rule: two devices review one word offline; after sync both reviews count and both show the same due date")
    func twoOfflineReviewsBothCount() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("perro", meaning: "dog")
            try fixture.syncRounds([a, b])
            // Both learn it a day apart from each other's knowledge: a answers Good, b
            // answers Easy an hour later by its own clock, neither sees the other.
            try a.library.review(id, grade: .good)
            b.clock.advance(by: 3_600_000)
            try b.library.review(id, grade: .easy)
            #expect(try a.library.studySchedule(of: id).reviews == 1)
            try fixture.syncRounds([a, b])
            let onA = try a.library.studySchedule(of: id), onB = try b.library.studySchedule(of: id)
            #expect(onA.reviews == 2, "both answers count on a")
            #expect(onB.reviews == 2, "both answers count on b")
            #expect(onA == onB)
            #expect(onA.due != nil && onA.due == onB.due)
            // And they are the answers replayed in time order, a's first.
            let expected = try a.library.scheduler().schedule(
                of: id,
                events: [
                    ReviewEvent(wordID: id, time: onA.lastReview!, grade: .easy, device: b.id),
                    ReviewEvent(wordID: id, time: try a.library.reviewEvents(of: id)[0].time, grade: .good, device: a.id),
                ])
            #expect(onA == expected)
            #expect(try a.library.reviewEvents(of: id) == b.library.reviewEvents(of: id))
        }
    }

    @Test("rule: an answer given after another device's answer has synced counts after it, even when that device's clock is ahead")
    func aLaterAnswerCountsAfterAClockAhead() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone", clockOffset: 3 * 3_600_000)
            let id = try laptop.add("despertar", meaning: "to wake up")
            try fixture.syncRounds([laptop, phone])
            // On the phone, three hours ahead: "easy". An hour later, the laptop has synced
            // it and the person, who has forgotten the word after all, answers "again".
            let easy = try phone.library.answer(id, grade: .easy).event
            try fixture.syncRounds([phone, laptop])
            fixture.advanceClocks(by: 3_600_000)
            let again = try laptop.library.answer(id, grade: .again).event
            #expect(again.time > easy.time, "the later answer is stamped after the one it follows")
            try fixture.syncRounds([laptop, phone])

            let onLaptop = try laptop.library.studySchedule(of: id), onPhone = try phone.library.studySchedule(of: id)
            #expect(onLaptop == onPhone)
            #expect(onLaptop.lastReview == again.time)
            let easyLast = try laptop.library.scheduler().schedule(
                of: id,
                events: [
                    again,
                    ReviewEvent(wordID: id, time: Timestamp(milliseconds: again.time.milliseconds + 1), grade: .easy, device: phone.id),
                ])
            let againLast = try laptop.library.scheduler().schedule(of: id, events: [easy, again])
            #expect(onLaptop == againLast, "\"again\" is the answer that counts last")
            #expect(onLaptop.due != easyLast.due, "the schedule is not the one of \"easy\" last")
            // The phone's own next answer, by its clock ahead, still comes after both.
            let next = try phone.library.answer(id, grade: .good).event
            #expect(next.time > again.time)
        }
    }

    @Test("rule: events at the same millisecond on two devices are replayed in device-id order on both")
    func sameMillisecondTieBreak() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("gato", meaning: "cat")
            try fixture.syncRounds([a, b])
            b.clock.set(a.clock.now())
            try a.library.review(id, grade: .again)
            try b.library.review(id, grade: .easy)
            try fixture.syncRounds([a, b])
            #expect(try a.library.studySchedule(of: id) == b.library.studySchedule(of: id))
            #expect(try a.library.studySchedule(of: id).reviews == 2)
        }
    }

    @Test("rule: a device of the previous format refuses a cloud with review events, and writes nothing")
    func olderDeviceRefuses() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), older = try fixture.device("older")
            let id = try a.add("casa", meaning: "house")
            try fixture.syncRounds([a, older])
            try a.library.review(id, grade: .good)
            try a.sync()
            #expect(try purgeManifest(fixture.storage).versions == .current)
            #expect(CloudManifest.current.minimumReadVersion >= 4 && CloudManifest.current.minimumWriteVersion >= 4)
            #expect(try cloudEvents(fixture).count == 1)
            older.engine.formatVersion = 3
            try older.add("libro", meaning: "book")
            let before = fixture.storage.files
            #expect(throws: SyncError.self) { try older.sync() }
            #expect(fixture.storage.files == before, "the older device wrote nothing")
            #expect(try older.pendingCount() == 1, "and kept its local work")
            // A format 4 batch is refused by a format 3 reader too.
            let withEvents = try #require(
                before.first { $0.key.hasSuffix(".chg") && (try? BatchCodec.decode($0.value).events.isEmpty) == false })
            #expect(throws: BatchDecodeError.self) { try BatchCodec.decode(withEvents.value, formatVersion: 3) }
        }
    }

    @Test("rule: a purge takes the word's events with it, on every device and out of the cloud")
    func purgeTakesEvents() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("murciélago", meaning: "bat")
            let kept = try a.add("gato", meaning: "cat")
            try a.library.review(id, grade: .good)
            try a.library.review(kept, grade: .good)
            try fixture.syncRounds([a, b])
            #expect(try b.library.reviewEvents(of: id).count == 1)
            try a.library.delete([id])
            try a.library.purge([id])
            for _ in 0..<3 {
                fixture.advanceClocks(by: 1_000)
                try fixture.syncRounds([a, b])
            }
            for device in [a, b] {
                #expect(try device.library.reviewEvents(of: id).isEmpty, "\(device.name) keeps no event of the purged word")
                #expect(try device.library.reviewEvents(of: kept).count == 1)
            }
            #expect(try !cloudEvents(fixture).contains { $0.wordID == id }, "no file in the cloud holds its events")
            #expect(try cloudEvents(fixture).contains { $0.wordID == kept })
        }
    }

    @Test("a word in the Trash is not studied, and its events come back with it on restore, on another device too")
    func trashKeepsEvents() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("perro", meaning: "dog")
            try a.library.review(id, grade: .again)
            try fixture.syncRounds([a, b])
            let soon = Timestamp(milliseconds: a.clock.now().milliseconds + SyncFixture.day)
            #expect(try b.library.studyQueue(at: soon).cards.map(\.word.id) == [id], "learning: due again in a minute")
            try a.library.delete([id])
            try fixture.syncRounds([a, b])
            #expect(try b.library.studyQueue(at: soon).cards.isEmpty, "a word in the Trash is not studied")
            #expect(throws: LibraryError.self) { try b.library.review(id, grade: .good) }
            try b.library.restore([id])
            try fixture.syncRounds([a, b])
            for device in [a, b] {
                #expect(try device.library.studySchedule(of: id).reviews == 1)
                #expect(try device.library.studyQueue(at: soon).cards.map(\.word.id) == [id])
            }
        }
    }

    @Test("an answer whose upload the cloud refused can still be taken back; one whose upload may have gone cannot")
    func aRefusedUploadLetsTheAnswerBeTakenBack() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            let id = try a.add("perro", meaning: "dog")
            try a.sync()
            // A folder made read-only, a share without write access, a full quota (round 20A #9).
            try a.library.review(id, grade: .good)
            fixture.storage.faults.failWritesUnder = "changes/"
            #expect(throws: (any Error).self) { try a.sync() }
            #expect(try !a.library.answersBeingSent())
            #expect(try a.library.undoLastReview()?.wordID == id, "the answer went nowhere: taken back")
            #expect(try a.library.studySchedule(of: id).reviews == 0)

            // A cloud that stops answering may have taken the file: the answer stays held.
            fixture.storage.faults.failWritesUnder = nil
            try a.library.review(id, grade: .easy)
            fixture.storage.beforeWrite = { path in
                if path.hasPrefix("changes/") { throw CloudError.unavailable("the connection dropped") }
            }
            #expect(throws: (any Error).self) { try a.sync() }
            fixture.storage.beforeWrite = nil
            #expect(try a.library.answersBeingSent(), "held until the next sync looks for the file")
            #expect(try a.library.undoLastReview() == nil)
            try a.sync()
            #expect(try a.library.undoLastReview() == nil, "sent now: other devices count it")
            #expect(try a.library.studySchedule(of: id).reviews == 1)
        }
    }

    @Test("a new device's first sync (the bulk path) and later syncs (word by word) both carry the events")
    func firstSyncCarriesEvents() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            var ids: [WordID] = []
            for number in 0..<1_200 { ids.append(try a.add("palabra \(number)")) }
            for id in ids { try a.library.review(id, grade: .good) }
            a.clock.advance(by: 2 * 60_000)
            for id in ids.prefix(1_100) { try a.library.review(id, grade: .good) }
            try a.sync()
            let c = try fixture.device("c")
            try c.sync()
            #expect(try c.library.reviewEventCount() == 2_300)
            let later = Timestamp(milliseconds: a.clock.now().milliseconds + 5 * SyncFixture.day)
            #expect(try c.library.studyQueue(at: later).due.count == a.library.studyQueue(at: later).due.count)
            for id in ids.suffix(3) { #expect(try c.library.studySchedule(of: id) == a.library.studySchedule(of: id)) }
            // Then one more answer, word by word.
            try a.library.review(ids[0], grade: .hard)
            try fixture.syncRounds([a, c])
            #expect(try c.library.studySchedule(of: ids[0]) == a.library.studySchedule(of: ids[0]))
            #expect(try c.library.studySchedule(of: ids[0]).reviews == 3)
        }
    }
}
