#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a word stands in its study.
public enum StudyState: String, Hashable, Sendable, CaseIterable {
    /// Never reviewed.
    case new
    /// Reviewed, still going through the learning steps (minutes apart).
    case learning
    /// Learned: due again after days.
    case review
    /// Forgotten after it was learned, going through the relearning steps.
    case relearning
}

/// A word's schedule, as derived from its review events: never stored as synced truth.
public struct StudySchedule: Hashable, Sendable {
    /// The state.
    public var state: StudyState
    /// The learning or relearning step the word is at (nil in `new` and `review`).
    public var step: Int?
    /// FSRS stability: the days after which recall falls to 90 %. Nil for a new word.
    public var stability: Double?
    /// FSRS difficulty, 1 (easy) to 10 (hard). Nil for a new word.
    public var difficulty: Double?
    /// When the word is due; nil for a new word (due whenever the daily new limit allows).
    public var due: Timestamp?
    /// The time of the last review.
    public var lastReview: Timestamp?
    /// How many review events shaped it.
    public var reviews: Int
    /// How many times the word was forgotten after it was learned.
    public var lapses: Int
    /// The interval chosen by the last review, in days, when it put the word in `review`.
    public var intervalDays: Int?

    /// The schedule of a word never reviewed.
    public static let new = StudySchedule(
        state: .new, step: nil, stability: nil, difficulty: nil, due: nil, lastReview: nil, reviews: 0, lapses: 0,
        intervalDays: nil)

    /// Makes a schedule.
    public init(
        state: StudyState, step: Int?, stability: Double?, difficulty: Double?, due: Timestamp?, lastReview: Timestamp?,
        reviews: Int, lapses: Int, intervalDays: Int?
    ) {
        self.state = state
        self.step = step
        self.stability = stability
        self.difficulty = difficulty
        self.due = due
        self.lastReview = lastReview
        self.reviews = reviews
        self.lapses = lapses
        self.intervalDays = intervalDays
    }
}

/// The FSRS-6 scheduler: the open spaced-repetition algorithm Anki uses, with its
/// published default parameters, learning and relearning steps, a desired retention and
/// interval fuzz.
///
/// It follows the reference implementation (the Python package `fsrs`, 6.x), which the
/// test `FSRSMatchesTheReferenceTests` checks against a fixture the package made
/// (Tests/Fixtures/Study/make_fsrs_fixture.py). One difference by design: the fuzz is
/// not random but drawn from the word id and the number of reviews before the answer,
/// so every device that replays the same events derives the same due date.
public struct FSRSScheduler: Hashable, Sendable {
    /// FSRS-6's published default parameters (w0…w20).
    public static let defaultParameters: [Double] = [
        0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614,
        0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542,
    ]
    /// The smallest stability FSRS allows.
    static let minimumStability = 0.001
    static let day: Int64 = 86_400_000
    static let minute: Int64 = 60_000

    /// The model weights, 21 of them.
    public var parameters: [Double]
    /// The share of reviews that should be remembered, 0.7…0.99 (default 0.9).
    public var desiredRetention: Double
    /// The learning steps, in milliseconds (default 1 and 10 minutes).
    public var learningSteps: [Int64]
    /// The relearning steps, in milliseconds (default 10 minutes).
    public var relearningSteps: [Int64]
    /// The longest interval, in days.
    public var maximumInterval: Int
    /// Whether intervals of three days and more get a little fuzz, so words learned
    /// together do not stay due together.
    public var fuzz: Bool

    /// Makes a scheduler; the defaults are those of FSRS-6 and Anki.
    public init(
        parameters: [Double] = FSRSScheduler.defaultParameters, desiredRetention: Double = 0.9,
        learningSteps: [Int64] = [60_000, 600_000], relearningSteps: [Int64] = [600_000], maximumInterval: Int = 36_500,
        fuzz: Bool = true
    ) {
        precondition(parameters.count == 21, "FSRS-6 has 21 parameters")
        self.parameters = parameters
        self.desiredRetention = desiredRetention
        self.learningSteps = learningSteps
        self.relearningSteps = relearningSteps
        self.maximumInterval = maximumInterval
        self.fuzz = fuzz
    }

    var decay: Double { -parameters[20] }
    var factor: Double { pow(0.9, 1 / decay) - 1 }

    // MARK: - Replaying

    /// The schedule of `wordID` after `events` (its events only, in any order): they are
    /// replayed in `ReviewEvent.replayOrder`.
    public func schedule(of wordID: WordID, events: [ReviewEvent]) -> StudySchedule {
        var schedule = StudySchedule.new
        for event in events.sorted(by: ReviewEvent.replayOrder) {
            schedule = answer(schedule, grade: event.grade, at: event.time, wordID: wordID)
        }
        return schedule
    }

    /// The schedule after answering `grade` at `time`.
    public func answer(_ current: StudySchedule, grade: ReviewGrade, at time: Timestamp, wordID: WordID) -> StudySchedule {
        var next = current
        let rating = Double(grade.rawValue)
        // Whole days since the last review, as the reference counts them (floored).
        let elapsedDays: Int64? = current.lastReview.map { floorDiv(time.milliseconds - $0.milliseconds, Self.day) }
        var interval: Int64
        var intervalDays: Int? = nil

        func toReview() {
            next.state = .review
            next.step = nil
            let days = nextInterval(stability: next.stability!)
            intervalDays = days
            interval = Int64(days) * Self.day
        }

        // Stability and difficulty: the first answer sets them; each later one updates
        // them, with the short-term formula when the previous answer was less than a day ago.
        if let stability = current.stability, let difficulty = current.difficulty {
            if let elapsedDays, elapsedDays < 1 {
                next.stability = shortTermStability(stability, rating: rating)
            } else {
                next.stability = nextStability(
                    difficulty: difficulty, stability: stability,
                    retrievability: retrievability(stability: stability, elapsedDays: elapsedDays ?? 0), grade: grade)
            }
            next.difficulty = nextDifficulty(difficulty, rating: rating)
        } else {
            next.stability = max(parameters[grade.rawValue - 1], Self.minimumStability)
            next.difficulty = clampDifficulty(initialDifficulty(rating: rating))
        }
        interval = 0
        switch current.state {
        case .new, .learning, .relearning:
            // Learning and relearning walk their steps the same way.
            let steps = current.state == .relearning ? relearningSteps : learningSteps
            let step = current.step ?? 0
            next.state = current.state == .relearning ? .relearning : .learning
            next.step = step
            if steps.isEmpty || (step >= steps.count && grade != .again) {
                toReview()
            } else {
                switch grade {
                case .again:
                    next.step = 0
                    interval = steps[0]
                case .hard:
                    interval = hardStep(steps, step: step)
                case .good:
                    if step + 1 == steps.count {
                        toReview()
                    } else {
                        next.step = step + 1
                        interval = steps[step + 1]
                    }
                case .easy:
                    toReview()
                }
            }
        case .review:
            if grade == .again {
                next.lapses += 1
                if relearningSteps.isEmpty {
                    toReview()
                } else {
                    next.state = .relearning
                    next.step = 0
                    interval = relearningSteps[0]
                }
            } else {
                toReview()
            }
        }
        if fuzz, next.state == .review, let days = intervalDays {
            let fuzzed = fuzzedInterval(days: days, seed: Self.fuzzSeed(wordID: wordID, reviews: current.reviews))
            intervalDays = fuzzed
            interval = Int64(fuzzed) * Self.day
        }
        next.intervalDays = intervalDays
        next.due = Timestamp(milliseconds: time.milliseconds + interval)
        next.lastReview = time
        next.reviews = current.reviews + 1
        return next
    }

    /// The probability of recalling a word of this schedule at `time` (0 for a new word).
    public func retrievability(of schedule: StudySchedule, at time: Timestamp) -> Double {
        guard let stability = schedule.stability, let last = schedule.lastReview else { return 0 }
        return retrievability(stability: stability, elapsedDays: max(0, floorDiv(time.milliseconds - last.milliseconds, Self.day)))
    }

    // MARK: - The formulas

    func retrievability(stability: Double, elapsedDays: Int64) -> Double {
        pow(1 + factor * Double(max(0, elapsedDays)) / stability, decay)
    }

    func initialDifficulty(rating: Double) -> Double {
        parameters[4] - exp(parameters[5] * (rating - 1)) + 1
    }

    func clampDifficulty(_ value: Double) -> Double { min(max(value, 1), 10) }

    func nextInterval(stability: Double) -> Int {
        let raw = stability / factor * (pow(desiredRetention, 1 / decay) - 1)
        // The reference rounds with Python's round(): halves to even.
        let days = Int(raw.rounded(.toNearestOrEven))
        return min(max(days, 1), maximumInterval)
    }

    func shortTermStability(_ stability: Double, rating: Double) -> Double {
        var increase = exp(parameters[17] * (rating - 3 + parameters[18])) * pow(stability, -parameters[19])
        if rating >= 2 { increase = max(increase, 1) }
        return max(stability * increase, Self.minimumStability)
    }

    func nextDifficulty(_ difficulty: Double, rating: Double) -> Double {
        let delta = -(parameters[6] * (rating - 3))
        let damped = difficulty + (10 - difficulty) * delta / 9
        let reverted = parameters[7] * initialDifficulty(rating: 4) + (1 - parameters[7]) * damped
        return clampDifficulty(reverted)
    }

    func nextStability(difficulty: Double, stability: Double, retrievability: Double, grade: ReviewGrade) -> Double {
        let value: Double
        if grade == .again {
            let longTerm =
                parameters[11] * pow(difficulty, -parameters[12]) * (pow(stability + 1, parameters[13]) - 1)
                * exp((1 - retrievability) * parameters[14])
            let shortTerm = stability / exp(parameters[17] * parameters[18])
            value = min(longTerm, shortTerm)
        } else {
            let hardPenalty = grade == .hard ? parameters[15] : 1
            let easyBonus = grade == .easy ? parameters[16] : 1
            value =
                stability
                * (1 + exp(parameters[8]) * (11 - difficulty) * pow(stability, -parameters[9])
                    * (exp((1 - retrievability) * parameters[10]) - 1) * hardPenalty * easyBonus)
        }
        return max(value, Self.minimumStability)
    }

    func hardStep(_ steps: [Int64], step: Int) -> Int64 {
        if step == 0 && steps.count == 1 { return steps[0] * 3 / 2 }
        if step == 0 && steps.count >= 2 { return (steps[0] + steps[1]) / 2 }
        return steps[min(step, steps.count - 1)]
    }

    // MARK: - Fuzz

    /// The interval after fuzz: a day count within the reference's fuzz range around
    /// `days`, picked by `seed` (a number in 0..<2^64).
    func fuzzedInterval(days: Int, seed: UInt64) -> Int {
        guard Double(days) >= 2.5 else { return days }
        var delta = 1.0
        for (start, end, share) in [(2.5, 7.0, 0.15), (7.0, 20.0, 0.1), (20.0, Double.infinity, 0.05)] {
            delta += share * max(min(Double(days), end) - start, 0)
        }
        var low = Int((Double(days) - delta).rounded(.toNearestOrEven))
        var high = Int((Double(days) + delta).rounded(.toNearestOrEven))
        low = max(2, low)
        high = min(high, maximumInterval)
        low = min(low, high)
        let unit = Double(seed >> 11) / Double(1 << 53)
        let picked = Int((unit * Double(high - low + 1) + Double(low)).rounded(.toNearestOrEven))
        return min(picked, high, maximumInterval)
    }

    /// The fuzz seed of a word's answer: the same on every device, and different for each
    /// answer. FNV-1a over the id's bytes and the review count, then one SplitMix64 step
    /// (Swift's `Hasher` is seeded per process, so it cannot be used here).
    public static func fuzzSeed(wordID: WordID, reviews: Int) -> UInt64 {
        var fnv = FNV1a()
        fnv.add(wordID.rawValue.utf8)
        var count = UInt64(truncatingIfNeeded: reviews)
        for _ in 0..<8 {
            fnv.add(UInt8(count & 0xff))
            count >>= 8
        }
        var z = fnv.value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

private func floorDiv(_ a: Int64, _ b: Int64) -> Int64 {
    let quotient = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? quotient - 1 : quotient
}
