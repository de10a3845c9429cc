import Foundation
import MiDiccioTesting
import Synchronization
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// `u` in a study session took back this device's latest unsynced answer by time: with an
/// answer stamped ahead (a clock set wrong for a moment, or `review` run in another
/// terminal meanwhile) it took that one back, and the answer just given stayed; in a
/// library without a remote it went on into earlier sessions' answers (found by the
/// exploratory helper, round 6). A session now takes back the answers it gave, by name.
@Suite("An undo in a study session takes back the answer it gave, and no other")
struct AnUndoTakesBackItsOwnAnswerTests {
    @Test("an answer stamped later by another program stays; the session's own is taken back")
    func ownAnswerOnly() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let early = try laptop.add("yy", meaning: "m"), mine = try laptop.add("zz", meaning: "m")
            // Another program answers "yy" with the clock two hours ahead, then it is put right.
            laptop.clock.advance(by: 7_200_000)
            try laptop.library.review(early, grade: .good)
            laptop.clock.advance(by: -7_200_000)
            let (event, _) = try laptop.library.answer(mine, grade: .good)

            #expect(try laptop.library.undoReview(event))
            #expect(try laptop.library.reviewEvents(of: mine).isEmpty)
            #expect(try laptop.library.reviewEvents(of: early).count == 1, "the other program's answer stays")
            #expect(try laptop.library.studySchedule(of: mine).state == .new)
            // Twice is nothing more.
            #expect(try !laptop.library.undoReview(event))
            #expect(try laptop.library.reviewEvents(of: early).count == 1)
        }
    }

    @Test("an answer synced already is not taken back, and another device's never is")
    func syncedStays() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
            let id = try laptop.add("palabra", meaning: "m")
            try fixture.syncRounds([laptop, phone])
            let (event, _) = try laptop.library.answer(id, grade: .easy)
            try fixture.syncRounds([laptop, phone])
            #expect(try !laptop.library.undoReview(event))
            #expect(try laptop.library.reviewEvents(of: id).count == 1)
            #expect(try !phone.library.undoReview(event), "the phone did not give it")
            #expect(try phone.library.reviewEvents(of: id).count == 1)
        }
    }

    @Test("an answer taken back while a sync sends it stays, on this device and the other alike")
    func undoWhileSending() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
            let id = try laptop.add("palabra", meaning: "m")
            try fixture.syncRounds([laptop, phone])
            let (event, _) = try laptop.library.answer(id, grade: .again)
            // `u` pressed while the file holding the answer goes up (round 14B).
            let undone = Mutex<Bool?>(nil)
            let device = laptop.id, library = laptop.library
            laptop.cloud.crashAfterWriting = { path in
                guard path.hasPrefix("changes/\(device)/"), undone.withLock({ $0 == nil }) else { return false }
                let result = try? library.undoReview(event)
                undone.withLock { $0 = result }
                #expect((try? library.answersBeingSent()) == true)
                return false
            }
            try laptop.sync()
            laptop.cloud.crashAfterWriting = nil
            #expect(undone.withLock { $0 } == false, "not taken back while it was being sent")
            #expect(try !laptop.library.answersBeingSent(), "let go once the file is noted")
            try fixture.syncRounds([laptop, phone])
            #expect(try laptop.library.reviewEvents(of: id).count == 1)
            #expect(try phone.library.reviewEvents(of: id).count == 1)
        }
    }

    @Test("an answer whose file went up before the sync stopped is not taken back; the next sync settles it")
    func undoAfterAnInterruptedSync() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
            let id = try laptop.add("palabra", meaning: "m")
            try fixture.syncRounds([laptop, phone])
            let (event, _) = try laptop.library.answer(id, grade: .again)
            // The server took the file, then the connection dropped: the sync stops before
            // it notes the file as written.
            let device = laptop.id
            laptop.cloud.crashAfterWriting = { path in path.hasPrefix("changes/\(device)/") }
            #expect(throws: (any Error).self) { try laptop.sync() }
            laptop.cloud.crashAfterWriting = nil
            #expect(try !laptop.library.undoReview(event), "it may be on the phone already")
            #expect(try laptop.library.undoLastReview() == nil)
            // The phone reads the file; the laptop's next sync finds it written.
            try fixture.syncRounds([phone, laptop])
            #expect(try !laptop.library.answersBeingSent())
            #expect(try laptop.library.reviewEvents(of: id).count == 1)
            #expect(try phone.library.reviewEvents(of: id).count == 1)
            #expect(try laptop.library.studySchedule(of: id) == phone.library.studySchedule(of: id))
        }
    }

    @Test("an answer given while no sync runs, or after one that could not reach the cloud, is still taken back")
    func undoWhenNothingWasSent() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let id = try laptop.add("palabra", meaning: "m")
            try laptop.sync()
            let (event, _) = try laptop.library.answer(id, grade: .again)
            let memory = try #require(laptop.cloud.storage as? MemoryStorage)
            memory.faults.unreachable = true
            #expect(throws: (any Error).self) { try laptop.sync() }
            memory.faults.unreachable = false
            #expect(try laptop.library.undoReview(event))
            #expect(try laptop.library.reviewEvents(of: id).isEmpty)
        }
    }
}
