import Foundation
import MiDiccioKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `midiccio-bench startup`: how long a whole `midiccio` process takes, from spawning it
/// to its exit, next to `sqlite3 -version` (issue 12, item 6: `midiccio list --limit 20`
/// within 3× of it). The runs of the three commands are interleaved, so a busy moment
/// of the machine weighs on all of them alike.
enum StartupBenchmark {
    /// The subcommand as `main.swift` registers it.
    static let subcommand = BenchSubcommand(
        name: "startup",
        abstract: "Whole-process time of midiccio --version and list, against sqlite3 -version.",
        usage: "midiccio-bench startup [--words <n>] [--runs <n>] [--seed <s>]",
        options: [
            ("--words <n>", "How many words the library holds (default 100000)."),
            ("--runs <n>", "How many times each command runs; the median is reported (default 31)."),
            ("--seed <s>", "Seed of the generated words (default 1)."),
        ],
        run: { try run($0) })

    /// `midiccio list --limit 20` may take at most this many times `sqlite3 -version`.
    static let targetRatio = 3.0

    /// Runs the benchmark described by `arguments` and prints its table.
    static func run(_ arguments: [String]) throws {
        let options = try BenchOptions(arguments, accepting: ["words", "runs", "seed"], usage: subcommand.usage)
        let wordCount = try options.integer("words", default: 100_000, in: 1...5_000_000)
        let runs = try options.integer("runs", default: 31, in: 1...10_000)
        let seed = try options.unsigned("seed", default: 1)

        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent().path
        let tool = folder + "/midiccio"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw BenchFailure("\(tool) is missing; build it first: swift build -c release --product midiccio")
        }
        let sqlite = try sqliteShell()

        let workspace = try TemporaryDirectory(prefix: "midiccio-bench-startup")
        defer { workspace.remove() }
        Progress.note("writing and importing \(Format.grouped(wordCount)) words")
        let sheetPath = workspace.path + "/words.tsv"
        _ = try SyntheticVocabulary(seed: seed).writeSheet(count: wordCount, to: sheetPath)
        let libraryPath = workspace.path + "/library.sqlite"
        _ = try WordLibrary(path: libraryPath, environment: ["LANG": "es_ES.UTF-8"]).importSheet(from: sheetPath, format: .tsv)

        let commands: [(name: String, argv: [String])] = [
            ("sqlite3 -version", [sqlite, "-version"]),
            ("midiccio --version", [tool, "--version"]),
            ("midiccio list --limit 20", [tool, "--library", libraryPath, "list", "--limit", "20"]),
        ]
        Progress.note("timing \(runs) runs of each command")
        var samples = Array(repeating: [Double](), count: commands.count)
        for round in 0..<(runs + 2) {
            for (index, command) in commands.enumerated() {
                let milliseconds = try timeProcess(command.argv)
                if round >= 2 { samples[index].append(milliseconds) }  // two rounds warm the caches
            }
        }

        let floor = Statistics.median(samples[0]) ?? 0
        var output = "midiccio-bench startup\n"
        output += "\(Format.grouped(wordCount)) words, \(runs) runs each, interleaved, \(Machine.coreCount) cores\n\n"
        var table = TextTable(
            header: ["command", "min ms", "median ms", "× sqlite3", "target", ""], rightAligned: [false, true, true, true, true, false])
        for (index, command) in commands.enumerated() {
            let median = Statistics.median(samples[index]) ?? 0
            let ratio = floor > 0 ? median / floor : 0
            let isTarget = index == commands.count - 1
            table.rows.append([
                command.name, Format.decimal(samples[index].min() ?? 0, 2), Format.decimal(median, 2),
                Format.decimal(ratio, 1), isTarget ? "≤ \(Format.decimal(targetRatio, 0))×" : "",
                isTarget ? (ratio <= targetRatio ? "pass" : "FAIL") : "",
            ])
        }
        output += table.rendered()
        print(output, terminator: "")
    }

    /// The path of the sqlite3 shell, which the startup and library benchmarks measure
    /// MiDiccio against.
    static func sqliteShell() throws -> String {
        let sqlite = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let sqlite else { throw BenchFailure("the sqlite3 shell is not installed (apt-get install sqlite3)") }
        return sqlite
    }

    /// Spawns `argv` with its output thrown away, waits for it, and returns the wall time
    /// in milliseconds; a command that fails fails the benchmark.
    static func timeProcess(_ argv: [String]) throws -> Double {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let arguments = argv.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var pid: pid_t = 0
        let start = Stopwatch.nanoseconds()
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, arguments, environ)
        guard spawned == 0 else { throw BenchFailure("cannot start \(argv[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let elapsed = Double(Stopwatch.nanoseconds() - start) / 1e6
        guard status == 0 else { throw BenchFailure("\(argv.joined(separator: " ")) failed (wait status \(status))") }
        return elapsed
    }
}
