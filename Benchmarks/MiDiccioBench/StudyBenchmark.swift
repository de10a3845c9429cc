import Foundation
import MiDiccioKit
import MiDiccioLibrary

/// `midiccio-bench study`: a studied library (words with many review events), its queue,
/// an answer, and a new device's first sync with and without the events.
enum StudyBenchmark {
    /// The subcommand as `main.swift` registers it.
    static let subcommand = BenchSubcommand(
        name: "study",
        abstract: "Build today's study queue, answer cards, and sync a studied library to a new device.",
        usage: "midiccio-bench study [--words <n>] [--events <n>] [--seed <s>]",
        options: [
            ("--words <n>", "Words in the library (default 100000)."),
            ("--events <n>", "Review events spread over them (default 1000000)."),
            ("--seed <s>", "Seed of the generated words and answers (default 1)."),
        ],
        run: { try run($0) })

    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, accepting: ["words", "events", "seed"], usage: subcommand.usage)
        let wordCount = try options.integer("words", default: 100_000, in: 10...5_000_000)
        let eventCount = try options.integer("events", default: 1_000_000, in: 0...50_000_000)
        let seed = try options.unsigned("seed", default: 1)
        let workspace = try TemporaryDirectory(prefix: "midiccio-bench-study")
        defer { workspace.remove() }

        Progress.note("preparing \(Format.grouped(wordCount)) words and a device's first sync without events")
        let pair = try SyncBenchmark.Pair(words: wordCount, seed: seed, in: workspace.path)
        try pair.engineA.sync()
        let (_, plainSeconds) = try Stopwatch.measure { try pair.engineB.sync() }

        Progress.note("adding \(Format.grouped(eventCount)) review events")
        let library = pair.a
        let ids = try library.list().map(\.id)
        var generator = SplitMix(seed: seed)
        let now = library.clock.now().milliseconds
        let day: Int64 = 86_400_000
        var events: [ReviewEvent] = []
        events.reserveCapacity(eventCount)
        let perWord = max(1, eventCount / max(1, ids.count))
        var index = 0
        while events.count < eventCount {
            let id = ids[index % ids.count]
            index += 1
            // A word's answers over the last year, further apart as it is learned.
            var time = now - 365 * day + Int64(generator.next() % UInt64(30 * day))
            for step in 0..<min(perWord, eventCount - events.count) {
                let roll = generator.next() % 100
                let grade: ReviewGrade = roll < 10 ? .again : roll < 20 ? .hard : roll < 90 ? .good : .easy
                events.append(
                    ReviewEvent(wordID: id, time: Timestamp(milliseconds: time), grade: grade, device: library.deviceID, seconds: 5))
                time += Int64(step + 1) * Int64(generator.next() % UInt64(4 * day)) + 600_000
                if time > now { time = now - Int64(generator.next() % UInt64(day)) }
            }
        }
        try library.writing {
            try library.insertReviewEvents(events, pending: true)
            try library.setInfo("study.cache", "")
        }
        let (_, cacheSeconds) = try Stopwatch.measure { _ = try library.studyQueue() }
        // With the default daily limits (200 reviews, 20 new words), as a user studies.

        Progress.note("building today's queue and answering")
        var queueSamples: [Double] = []
        var dueCount = 0
        for _ in 0..<20 {
            let (queue, seconds) = try Stopwatch.measure { try library.studyQueue() }
            queueSamples.append(seconds)
            dueCount = queue.cards.count
        }
        var answerSamples: [Double] = []
        for card in try library.studyQueue().cards.prefix(200) {
            let (_, seconds) = try Stopwatch.measure { try library.review(card.word.id, grade: .good, seconds: 4) }
            answerSamples.append(seconds)
        }

        Progress.note("a new device's first sync with the events")
        try pair.engineA.sync()
        let cloud = RemoteConfig.folder(path: workspace.path + "/cloud")
        let c = try WordLibrary(path: workspace.path + "/c.sqlite", environment: ["LANG": "es_ES.UTF-8"])
        try c.setRemote(cloud)
        let engineC = SyncEngine(library: c, storage: cloud.makeStorage())
        let (_, studiedSeconds) = try Stopwatch.measure { try engineC.sync() }
        guard try c.reviewEventCount() == library.reviewEventCount() else {
            throw BenchFailure("the new device has \(try c.reviewEventCount()) of \(try library.reviewEventCount()) events")
        }
        let (_, firstQueueSeconds) = try Stopwatch.measure { _ = try c.studyQueue() }

        let queue = Statistics.median(queueSamples) ?? 0, answer = Statistics.median(answerSamples) ?? 0
        let ratio = studiedSeconds / max(plainSeconds, 0.001)
        var table = TextTable(header: ["figure", "value", "target", "result"], rightAligned: [false, true, true, false])
        table.rows.append([
            "today's queue (\(Format.grouped(dueCount)) due and new), median", Format.decimal(queue * 1000, 1) + " ms", "≤ 50 ms",
            queue <= 0.05 ? "pass" : "MISS",
        ])
        table.rows.append([
            "answering a card, median of \(answerSamples.count)", Format.decimal(answer * 1000, 2) + " ms", "≤ 5 ms",
            answer <= 0.005 ? "pass" : "MISS",
        ])
        table.rows.append(["first sync of a new device, without events", Format.decimal(plainSeconds, 2) + " s", "", ""])
        table.rows.append([
            "first sync of a new device, with the events", Format.decimal(studiedSeconds, 2) + " s", "≤ 1.5×",
            ratio <= 1.5 ? "pass (\(Format.decimal(ratio, 2))×)" : "MISS (\(Format.decimal(ratio, 2))×)",
        ])
        table.rows.append(["building the schedule cache from every event", Format.decimal(cacheSeconds, 2) + " s", "", ""])
        table.rows.append(["the new device's first queue (builds its cache)", Format.decimal(firstQueueSeconds, 2) + " s", "", ""])
        print(
            "midiccio-bench study: \(Format.grouped(wordCount)) words, \(Format.grouped(eventCount)) review events, folder back end, \(Machine.coreCount) cores"
        )
        print(table.rendered(), terminator: "")
    }

    /// A small seeded generator (the answers are the same on every run).
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9e37_79b9_7f4a_7c15
            var z = state
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
    }
}
