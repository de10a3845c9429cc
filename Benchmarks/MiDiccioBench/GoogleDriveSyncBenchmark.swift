import Foundation
import MiDiccioKit
import MiDiccioTesting

/// `midiccio-bench sync --backend gdrive-fake`: the sync figures through the fake Google
/// Drive of the tests (Tests/GoogleDrive, real HTTP on 127.0.0.1), with the number of
/// Drive API requests of each, as the fake counts them: the full upload, a new device's
/// first sync, a sync with nothing to do, and one changed word each way.
///
/// It starts the fake with Tests/GoogleDrive/server.sh (run it from the repository) and
/// stops it at the end. Times are local-network times: they show the client's own
/// cost, not Google's latency.
enum GoogleDriveSyncBenchmark {
    /// The usage line.
    static let usage = "midiccio-bench sync --backend gdrive-fake [--words <n>] [--seed <s>]"

    /// The targets of issue 11, "Figures".
    enum Target {
        /// Requests of a sync with nothing to do.
        static let noOpRequests = 1
        /// Requests to push, or to pull, one changed word.
        static let oneWordRequests = 4
        /// Requests of a new device's first sync.
        static let firstSyncRequests = 6
    }

    /// Runs of the short measurements; the median is reported.
    static let runs = 9

    static func run(_ arguments: [String]) throws {
        var rest = arguments
        _ = WebDAVSyncBenchmark.take("backend", from: &rest)
        let options = try BenchOptions(rest, accepting: ["words", "seed"], usage: usage)
        let wordCount = try options.integer("words", default: 100_000, in: 10...5_000_000)
        let seed = try options.unsigned("seed", default: 1)
        let script = FileManager.default.currentDirectoryPath + "/Tests/GoogleDrive/server.sh"
        guard FileManager.default.fileExists(atPath: script) else {
            throw BenchUsageError(message: "no fake Google Drive: run from the repository (for Tests/GoogleDrive/server.sh)", usage: usage)
        }
        let workspace = try TemporaryDirectory(prefix: "midiccio-bench-gdrive")
        defer { workspace.remove() }
        let server = try FakeGoogleDrive.start(script: script)
        defer { server.stop() }
        let tenant = server.tenant("bench")
        let credentials = try tenant.credentials(for: .appData)
        func storage() -> GoogleDriveStorage {
            var options = GoogleDriveStorage.Options()
            options.timeout = 60
            return tenant.storage(.appData, credentials: credentials, options: options)
        }

        let (a, b) = try BenchLibraries.pair(words: wordCount, seed: seed, in: workspace.path + "/libraries")
        let storageA = storage(), storageB = storage()
        let engineA = SyncEngine(library: a, storage: storageA)
        let engineB = SyncEngine(library: b, storage: storageB)

        Progress.note("full upload of \(Format.grouped(wordCount)) words to the fake Google Drive")
        let (upload, uploadSeconds) = try Stopwatch.measure { try engineA.sync() }
        guard upload.pushed == wordCount else { throw BenchFailure("the full upload pushed \(upload.pushed) of \(wordCount) words") }
        let uploadRequests = try tenant.stats().total

        Progress.note("first sync of a new device")
        try tenant.resetStats()
        let (_, firstSeconds) = try Stopwatch.measure { try engineB.sync() }
        guard try b.counts().words == wordCount else {
            throw BenchFailure("the new device holds \(try b.counts().words) of \(wordCount) words")
        }
        let firstRequests = try tenant.stats().total
        try engineA.sync()
        try engineB.sync()

        Progress.note("syncs with nothing to do")
        var noOpTimes: [Double] = [], noOpCounts: [Double] = []
        for _ in 0..<runs {
            try tenant.resetStats()
            let (_, seconds) = try Stopwatch.measure { try engineB.sync() }
            noOpTimes.append(seconds * 1000)
            noOpCounts.append(Double(try tenant.stats().total))
        }
        let noOpRequests = Int(Statistics.median(noOpCounts) ?? 0)

        Progress.note("one changed word each way")
        var pushTimes: [Double] = [], pullTimes: [Double] = [], pushCounts: [Double] = [], pullCounts: [Double] = []
        for (round, id) in try a.list(ListQuery(sort: .created, limit: runs)).map(\.id).enumerated() {
            _ = try a.edit(id, WordEdit(notes: "changed in round \(round)"))
            try tenant.resetStats()
            let (pushed, pushSeconds) = try Stopwatch.measure { try engineA.sync() }
            pushCounts.append(Double(try tenant.stats().total))
            try tenant.resetStats()
            let (pulled, pullSeconds) = try Stopwatch.measure { try engineB.sync() }
            pullCounts.append(Double(try tenant.stats().total))
            guard pushed.pushed == 1, pulled.pulled == 1 else {
                throw BenchFailure("round \(round): pushed \(pushed.pushed), pulled \(pulled.pulled); expected 1 and 1")
            }
            pushTimes.append(pushSeconds * 1000)
            pullTimes.append(pullSeconds * 1000)
        }
        let pushRequests = Int(Statistics.median(pushCounts) ?? 0)
        let pullRequests = Int(Statistics.median(pullCounts) ?? 0)

        var table = TextTable(header: ["figure", "time", "requests", "target", "result"], rightAligned: [false, true, true, true, false])
        func row(_ figure: String, _ time: String, _ requests: Int, target: Int?) {
            let result = target.map { requests <= $0 ? "pass" : "MISS" } ?? ""
            table.rows.append([figure, time, String(requests), target.map { "≤ \($0) requests" } ?? "", result])
        }
        row("full upload (\(Format.grouped(wordCount)) words, once)", Format.decimal(uploadSeconds, 3) + " s", uploadRequests, target: nil)
        row("first sync of a new device", Format.decimal(firstSeconds, 3) + " s", firstRequests, target: Target.firstSyncRequests)
        row(
            "sync with nothing to do (medians)", Format.decimal(Statistics.median(noOpTimes) ?? 0, 2) + " ms", noOpRequests,
            target: Target.noOpRequests)
        row(
            "one changed word pushed (medians)", Format.decimal(Statistics.median(pushTimes) ?? 0, 2) + " ms", pushRequests,
            target: Target.oneWordRequests)
        row(
            "one changed word pulled (medians)", Format.decimal(Statistics.median(pullTimes) ?? 0, 2) + " ms", pullRequests,
            target: Target.oneWordRequests)
        print(
            "midiccio-bench sync: Google Drive back end (the tests' fake Drive on 127.0.0.1, app data folder), 2 devices, \(Machine.coreCount) cores"
        )
        print(table.rendered(), terminator: "")
    }
}
