import Foundation
import MiDiccioModel
import MiDiccioTesting
import Testing

/// Replays the review histories that the reference FSRS package scheduled
/// (Tests/Fixtures/Study/make_fsrs_fixture.py) and compares every step.
///
/// Tolerance: stability and difficulty within a relative 1e-9 (both sides use the C
/// library's `pow` and `exp`, so any difference is a different formula, not rounding);
/// state, step and due time (so the interval) exactly, to the millisecond.
@Suite("FSRS schedules as the reference implementation does")
struct FSRSMatchesTheReferenceTests {
    struct Fixture: Decodable {
        var fsrs: String
        var parameters: [Double]
        var histories: [History]
    }
    struct History: Decodable {
        var desiredRetention: Double
        var learningStepsSeconds: [Int64]
        var relearningStepsSeconds: [Int64]
        var reviews: [Review]
    }
    struct Review: Decodable {
        var time: Int64
        var grade: Int
        var state: String
        var step: Int?
        var stability: Double
        var difficulty: Double
        var due: Int64
    }

    static func load() throws -> Fixture {
        let data = try Data(contentsOf: URL(fileURLWithPath: testFixture("Study/fsrs-histories.json")))
        return try JSONDecoder().decode(Fixture.self, from: data)
    }

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(b)) }

    @Test("the default parameters are those of the reference package")
    func defaults() throws {
        let fixture = try Self.load()
        #expect(FSRSScheduler.defaultParameters == fixture.parameters)
        #expect(fixture.fsrs.hasPrefix("6."))
    }

    @Test("every review of 300 random histories gets the reference's stability, difficulty, state and due time")
    func replay() throws {
        let fixture = try Self.load()
        #expect(fixture.histories.count >= 300)
        let word = WordID("01234567-89ab-4def-8123-456789abcdef")!
        var compared = 0
        for (index, history) in fixture.histories.enumerated() {
            let scheduler = FSRSScheduler(
                desiredRetention: history.desiredRetention, learningSteps: history.learningStepsSeconds.map { $0 * 1000 },
                relearningSteps: history.relearningStepsSeconds.map { $0 * 1000 }, fuzz: false)
            var schedule = StudySchedule.new
            for (number, review) in history.reviews.enumerated() {
                schedule = scheduler.answer(
                    schedule, grade: ReviewGrade(rawValue: review.grade)!, at: Timestamp(milliseconds: review.time),
                    wordID: word)
                let place = "history \(index), review \(number + 1)"
                #expect(schedule.state.rawValue == review.state, "\(place)")
                #expect(schedule.step == review.step, "\(place)")
                #expect(Self.close(schedule.stability ?? -1, review.stability), "\(place): stability")
                #expect(Self.close(schedule.difficulty ?? -1, review.difficulty), "\(place): difficulty")
                #expect(schedule.due?.milliseconds == review.due, "\(place): due")
                compared += 1
            }
        }
        #expect(compared > 3000)
    }

    @Test("replaying a word's events gives the schedule of answering them one by one, whatever their order")
    func replayOrder() {
        let word = WordID("00000000-0000-4000-8000-000000000001")!
        let scheduler = FSRSScheduler()
        let day: Int64 = 86_400_000
        let events = [
            ReviewEvent(wordID: word, time: Timestamp(milliseconds: 1_000), grade: .good, device: "a"),
            ReviewEvent(wordID: word, time: Timestamp(milliseconds: 1_000 + 600_000), grade: .good, device: "b"),
            ReviewEvent(wordID: word, time: Timestamp(milliseconds: 3 * day), grade: .hard, device: "a"),
            ReviewEvent(wordID: word, time: Timestamp(milliseconds: 3 * day), grade: .again, device: "b"),
        ]
        var stepByStep = StudySchedule.new
        for event in events { stepByStep = scheduler.answer(stepByStep, grade: event.grade, at: event.time, wordID: word) }
        #expect(scheduler.schedule(of: word, events: events) == stepByStep)
        #expect(scheduler.schedule(of: word, events: events.reversed()) == stepByStep)
        #expect(stepByStep.reviews == 4)
        #expect(stepByStep.state == .relearning)
    }
}
