import Foundation
import MiDiccioTesting
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
}
