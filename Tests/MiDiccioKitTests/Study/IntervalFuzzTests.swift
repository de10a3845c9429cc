import Testing

@testable import MiDiccioModel

@Suite("Interval fuzz is the same on every device")
struct IntervalFuzzTests {
    let scheduler = FSRSScheduler()

    @Test("the fuzzed interval stays within the reference's range and depends only on the word and its review count")
    func range() {
        var seen = Set<Int>()
        for number in 0..<400 {
            let word = WordID(String(format: "00000000-0000-4000-8000-%012x", number))!
            let seed = FSRSScheduler.fuzzSeed(wordID: word, reviews: 3)
            #expect(seed == FSRSScheduler.fuzzSeed(wordID: word, reviews: 3))
            let days = scheduler.fuzzedInterval(days: 30, seed: seed)
            // 30 days: delta = 1 + 0.15 * 4.5 + 0.1 * 13 + 0.05 * 10 = 3.475
            #expect((27...33).contains(days), "\(days)")
            seen.insert(days)
        }
        #expect(seen.count >= 5, "fuzz spreads words learned together")
        #expect(scheduler.fuzzedInterval(days: 2, seed: 12345) == 2, "no fuzz under 2.5 days")
    }

    @Test("the fuzz seed is fixed for a given word and count, so a rebuilt device derives the same due date")
    func fixedSeed() {
        let word = WordID("01234567-89ab-4def-8123-456789abcdef")!
        #expect(FSRSScheduler.fuzzSeed(wordID: word, reviews: 0) != FSRSScheduler.fuzzSeed(wordID: word, reviews: 1))
        // A constant: changing the seed function would move every user's due dates.
        // (FNV-1a and SplitMix64 worked out independently in Python.)
        #expect(FSRSScheduler.fuzzSeed(wordID: word, reviews: 0) == 12_493_249_464_380_567_627)
    }
}
