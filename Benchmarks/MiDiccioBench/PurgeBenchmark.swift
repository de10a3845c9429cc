import Foundation
import MiDiccioKit

/// `midiccio-bench purge`: emptying a large Trash and carrying the purge to a second
/// device through the folder back end.
enum PurgeBenchmark {
    /// The subcommand as `main.swift` registers it.
    static let subcommand = BenchSubcommand(
        name: "purge",
        abstract: "Empty a Trash of many words on one device and sync the purge to another.",
        usage: "midiccio-bench purge [--words <n>] [--seed <s>]",
        options: [
            ("--words <n>", "Words in the Trash (default 50000)."),
            ("--seed <s>", "Seed of the generated words (default 1)."),
        ],
        run: { try run($0) })

    /// Issue 4's target for each side, seconds.
    static let targetSeconds = 2.0

    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, accepting: ["words", "seed"], usage: subcommand.usage)
        let wordCount = try options.integer("words", default: 50_000, in: 10...5_000_000)
        let seed = try options.unsigned("seed", default: 1)
        let workspace = try TemporaryDirectory(prefix: "midiccio-bench-purge")
        defer { workspace.remove() }

        Progress.note("preparing two devices with \(Format.grouped(wordCount)) words in the Trash")
        let pair = try SyncBenchmark.Pair(words: wordCount, seed: seed, in: workspace.path)
        try pair.engineA.sync()
        try pair.engineB.sync()
        let ids = try pair.a.list().map(\.id)
        try pair.a.delete(ids)
        try pair.engineA.sync()
        try pair.engineB.sync(allowMassDelete: true)
        guard try pair.b.counts().trash == wordCount else {
            throw BenchFailure("the second device has \(try pair.b.counts().trash) of \(wordCount) words in the Trash")
        }

        Progress.note("emptying the Trash and syncing")
        let (_, emptySeconds) = try Stopwatch.measure { try pair.a.emptyTrash() }
        let (_, uploadSeconds) = try Stopwatch.measure { try pair.engineA.sync() }
        let (report, receiveSeconds) = try Stopwatch.measure { try pair.engineB.sync() }
        guard report.purgedElsewhere == wordCount, try pair.b.counts() == (0, 0) else {
            throw BenchFailure("the second device removed \(report.purgedElsewhere) of \(wordCount) purged words")
        }

        var table = TextTable(header: ["figure", "value", "target", "result"], rightAligned: [false, true, true, false])
        let sending = emptySeconds + uploadSeconds
        table.rows.append(["empty the Trash (\(Format.grouped(wordCount)) words)", Format.decimal(emptySeconds, 3) + " s", "", ""])
        table.rows.append(["sync the purge up", Format.decimal(uploadSeconds, 3) + " s", "", ""])
        table.rows.append([
            "purging device: empty + sync", Format.decimal(sending, 3) + " s",
            "< \(Format.decimal(targetSeconds, 1)) s", sending < targetSeconds ? "pass" : "MISS",
        ])
        table.rows.append([
            "second device: sync (removes every word)", Format.decimal(receiveSeconds, 3) + " s",
            "< \(Format.decimal(targetSeconds, 1)) s", receiveSeconds < targetSeconds ? "pass" : "MISS",
        ])
        print("midiccio-bench purge: folder back end, \(Machine.coreCount) cores")
        print(table.rendered(), terminator: "")
    }
}
