import Foundation
import MiDiccioKit

/// The sync figures through one of the tests' fake clouds (real HTTP on 127.0.0.1), with
/// the number of requests of each as the fake counts them: the full upload, a new
/// device's first sync, a sync with nothing to do, and one changed word each way. Times
/// are local-network times: they show the client's own cost, not the service's latency.
///
/// `GoogleDriveSyncBenchmark` and `ICloudSyncBenchmark` each start their fake and hand
/// it over as a `Service`.
enum FakeCloudSyncBenchmark {
    /// A fake cloud to measure against.
    struct Service {
        /// For the table's title ("Google Drive back end (...)").
        var title: String
        /// A new connection, as each device makes its own.
        var storage: () -> any CloudStorage
        /// Requests the fake served since the last reset.
        var requests: () throws -> Int
        /// Sets the fake's counts back to zero.
        var resetRequests: () throws -> Void
    }

    /// Request targets (nil: no target).
    struct Targets {
        var noOp: Int
        var oneWord: Int
        var firstSync: Int?
    }

    /// What a fake cloud's benchmark runs with, from its command line.
    struct Run {
        /// Words in each library (`--words`, 100,000 by default).
        let wordCount: Int
        /// The seed of the words (`--seed`, 1 by default).
        let seed: UInt64
        /// The fake's server.sh.
        let script: String
        /// A temporary folder of its own; the caller removes it.
        let workspace: TemporaryDirectory

        /// Reads `--words` and `--seed` from `arguments` (`--backend` may stand there
        /// too), finds the fake's `script` ("Tests/CloudKit/server.sh") in the repository
        /// the benchmark runs from, and makes a temporary folder named after `prefix`.
        /// `fake` names the fake when the script is missing ("fake CloudKit").
        init(_ arguments: [String], usage: String, fake: String, script: String, workspace prefix: String) throws {
            var rest = arguments
            _ = WebDAVSyncBenchmark.take("backend", from: &rest)
            let options = try BenchOptions(rest, accepting: ["words", "seed"], usage: usage)
            wordCount = try options.integer("words", default: 100_000, in: 10...5_000_000)
            seed = try options.unsigned("seed", default: 1)
            self.script = FileManager.default.currentDirectoryPath + "/" + script
            guard FileManager.default.fileExists(atPath: self.script) else {
                throw BenchUsageError(message: "no \(fake): run from the repository (for \(script))", usage: usage)
            }
            workspace = try TemporaryDirectory(prefix: prefix)
        }
    }

    /// Runs of the short measurements; the median is reported.
    static let runs = 9

    /// Measures `service` with two libraries of `wordCount` words, and returns the table
    /// with one row a figure (more rows may be added before it is printed).
    static func measure(_ service: Service, wordCount: Int, seed: UInt64, targets: Targets, in directory: String) throws -> TextTable {
        let (a, b) = try BenchLibraries.pair(words: wordCount, seed: seed, in: directory)
        let engineA = SyncEngine(library: a, storage: service.storage())
        let engineB = SyncEngine(library: b, storage: service.storage())

        Progress.note("full upload of \(Format.grouped(wordCount)) words")
        try service.resetRequests()
        let (upload, uploadSeconds) = try Stopwatch.measure { try engineA.sync() }
        guard upload.pushed == wordCount else { throw BenchFailure("the full upload pushed \(upload.pushed) of \(wordCount) words") }
        let uploadRequests = try service.requests()

        Progress.note("first sync of a new device")
        try service.resetRequests()
        let (_, firstSeconds) = try Stopwatch.measure { try engineB.sync() }
        guard try b.counts().words == wordCount else {
            throw BenchFailure("the new device holds \(try b.counts().words) of \(wordCount) words")
        }
        let firstRequests = try service.requests()
        try engineA.sync()
        try engineB.sync()

        Progress.note("syncs with nothing to do")
        var noOpTimes: [Double] = [], noOpCounts: [Double] = []
        for _ in 0..<runs {
            try service.resetRequests()
            let (_, seconds) = try Stopwatch.measure { try engineB.sync() }
            noOpTimes.append(seconds * 1000)
            noOpCounts.append(Double(try service.requests()))
        }

        Progress.note("one changed word each way")
        var pushTimes: [Double] = [], pullTimes: [Double] = [], pushCounts: [Double] = [], pullCounts: [Double] = []
        for (round, id) in try a.list(ListQuery(sort: .created, limit: runs)).map(\.id).enumerated() {
            _ = try a.edit(id, WordEdit(notes: "changed in round \(round)"))
            try service.resetRequests()
            let (pushed, pushSeconds) = try Stopwatch.measure { try engineA.sync() }
            pushCounts.append(Double(try service.requests()))
            try service.resetRequests()
            let (pulled, pullSeconds) = try Stopwatch.measure { try engineB.sync() }
            pullCounts.append(Double(try service.requests()))
            guard pushed.pushed == 1, pulled.pulled == 1 else {
                throw BenchFailure("round \(round): pushed \(pushed.pushed), pulled \(pulled.pulled); expected 1 and 1")
            }
            pushTimes.append(pushSeconds * 1000)
            pullTimes.append(pullSeconds * 1000)
        }

        var table = TextTable(header: ["figure", "time", "requests", "target", "result"], rightAligned: [false, true, true, true, false])
        func row(_ figure: String, _ time: String, _ requests: Int, target: Int?) {
            let result = target.map { requests <= $0 ? "pass" : "MISS" } ?? ""
            table.rows.append([figure, time, String(requests), target.map { "≤ \($0) requests" } ?? "", result])
        }
        func median(_ values: [Double]) -> Double { Statistics.median(values) ?? 0 }
        row("full upload (\(Format.grouped(wordCount)) words, once)", Format.decimal(uploadSeconds, 3) + " s", uploadRequests, target: nil)
        row("first sync of a new device", Format.decimal(firstSeconds, 3) + " s", firstRequests, target: targets.firstSync)
        row(
            "sync with nothing to do (medians)", Format.decimal(median(noOpTimes), 2) + " ms", Int(median(noOpCounts)),
            target: targets.noOp)
        row(
            "one changed word pushed (medians)", Format.decimal(median(pushTimes), 2) + " ms", Int(median(pushCounts)),
            target: targets.oneWord)
        row(
            "one changed word pulled (medians)", Format.decimal(median(pullTimes), 2) + " ms", Int(median(pullCounts)),
            target: targets.oneWord)
        return table
    }
}
