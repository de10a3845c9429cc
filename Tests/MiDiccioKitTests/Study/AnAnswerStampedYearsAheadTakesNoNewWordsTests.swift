import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// Today's counts of new words and reviews hold today's answers only. An answer given on a
/// device whose clock was years ahead (synced here, or given here before the clock was set
/// right) counted as today's on every day until then: each day one new word fewer, and one
/// review fewer, than the limits say (found by the exploratory helper, round 20A #10).
@Suite("An answer stamped years ahead takes no new word's place today")
struct AnAnswerStampedYearsAheadTakesNoNewWordsTests {
    @Test("an answer from a clock three years ahead, then set right, leaves today's limits whole")
    func futureAnswerNotCountedToday() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.setSetting(.newPerDay, to: "3")
            try library.setSetting(.reviewsPerDay, to: "5")
            var ids: [WordID] = []
            for number in 0..<6 { ids.append(try library.add(WordContent(term: "palabra \(number)")).word.id) }
            let rightTime = fixture.clock.now()
            fixture.clock.advance(by: 3 * 365 * 86_400_000)
            try library.review(ids[0], grade: .good)
            try library.review(ids[0], grade: .good)
            fixture.clock.set(rightTime)
            for day in 0..<3 {
                let queue = try library.studyQueue()
                #expect(queue.studiedToday.new == 0 && queue.studiedToday.reviews == 0, "day \(day): \(queue.studiedToday)")
                #expect(queue.new.count == 3, "day \(day): the whole new-word limit")
                fixture.clock.advance(by: 86_400_000)
            }
            // Today's own answers still count.
            try library.review(ids[1], grade: .good)
            let queue = try library.studyQueue()
            #expect(queue.studiedToday.new == 1 && queue.new.count == 2)
        }
    }
}
