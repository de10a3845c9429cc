import Foundation
import MiDiccioKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Subcommands and arguments

/// One `midiccio-bench` subcommand: its name, its help and the function that runs it.
struct BenchSubcommand: Sendable {
    /// The word that selects it (`library`).
    var name: String
    /// One line saying what it measures.
    var abstract: String
    /// The usage line, starting with `midiccio-bench`.
    var usage: String
    /// One `(option, help)` pair per option, in the order help shows them.
    var options: [(String, String)]
    /// Measures and prints; receives the arguments after the subcommand name.
    var run: @Sendable ([String]) throws -> Void

    /// The full help text in OVERVIEW / USAGE / OPTIONS order.
    var helpText: String {
        var text = "OVERVIEW: \(abstract)\n\nUSAGE: \(usage)\n\nOPTIONS:\n"
        let all = options + [("-h, --help", "Show help information.")]
        let width = all.map(\.0.count).max() ?? 0
        for (option, help) in all {
            text += "  " + option.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(help)\n"
        }
        return text
    }
}

/// A command line the benchmark cannot make sense of (exit code 64).
struct BenchUsageError: Error, CustomStringConvertible {
    /// What is wrong, for the person who typed it.
    var message: String
    /// The usage line of the command concerned.
    var usage: String
    /// The message alone.
    var description: String { message }
}

/// A benchmark run that could not produce trustworthy figures (exit code 1).
struct BenchFailure: Error, CustomStringConvertible {
    /// What went wrong.
    var description: String

    /// Makes a failure with `description`.
    init(_ description: String) {
        self.description = description
    }
}

/// `--name value` and `--name=value` options of one subcommand, checked against the
/// names it accepts.
struct BenchOptions {
    private var values: [String: String] = [:]
    private let usage: String

    /// Reads `arguments`; any positional argument or unknown option is a usage error.
    init(_ arguments: [String], accepting names: Set<String>, usage: String) throws(BenchUsageError) {
        self.usage = usage
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else {
                throw BenchUsageError(message: "unexpected argument '\(argument)'", usage: usage)
            }
            var name = String(argument.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard names.contains(name) else {
                throw BenchUsageError(message: "unknown option '--\(name)'", usage: usage)
            }
            if value == nil {
                index += 1
                guard index < arguments.count else {
                    throw BenchUsageError(message: "missing value for '--\(name)'", usage: usage)
                }
                value = arguments[index]
            }
            values[name] = value
            index += 1
        }
    }

    /// The value of `--name` as given, nil when absent.
    func text(_ name: String) -> String? {
        values[name]
    }

    /// The integer value of `--name`, `defaultValue` when absent; must lie in `range`.
    func integer(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(BenchUsageError) -> Int {
        guard let text = values[name] else { return defaultValue }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")), range.contains(value) else {
            throw BenchUsageError(
                message: "'--\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                usage: usage)
        }
        return value
    }

    /// The unsigned 64-bit value of `--name`, `defaultValue` when absent.
    func unsigned(_ name: String, default defaultValue: UInt64) throws(BenchUsageError) -> UInt64 {
        guard let text = values[name] else { return defaultValue }
        guard let value = UInt64(text) else {
            throw BenchUsageError(message: "'--\(name)' must be a whole number of 0 or more, not '\(text)'", usage: usage)
        }
        return value
    }
}

// MARK: - Timing

/// Wall-clock timing on the monotonic clock, which never jumps with the time of day.
enum Stopwatch {
    /// Nanoseconds on `CLOCK_MONOTONIC` (from an arbitrary origin).
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Nanoseconds of CPU time this process has used, on all its threads.
    ///
    /// Set beside a wall time it shows contention: on a busy machine the wall time grows
    /// while the CPU time stays put.
    static func cpuNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Runs `body` once; returns its result and the elapsed time in seconds.
    static func measure<T>(_ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        let start = nanoseconds()
        let result = try body()
        let end = nanoseconds()
        return (result, Double(end - start) / 1e9)
    }
}

// MARK: - Statistics

/// Summary figures over samples.
enum Statistics {
    /// The nearest-rank percentile `p` (0...100) of `samples`: the smallest sample that at
    /// least p% of the samples do not exceed. Nil for no samples.
    static func percentile(_ samples: [Double], _ p: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// The median as the 50th nearest-rank percentile (a real sample, never an average).
    static func median(_ samples: [Double]) -> Double? {
        percentile(samples, 50)
    }
}

// MARK: - Memory

/// The process's own memory use, as the kernel reports it.
enum ProcessMemory {
    /// The peak resident set size (`VmHWM` in /proc/self/status) in megabytes
    /// (10^6 bytes); nil where /proc is not available.
    static func peakMegabytes() -> Double? {
        #if canImport(Glibc)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            // "VmHWM:	  123456 kB" (the kernel's kB are KiB).
            let digits = line.dropFirst("VmHWM:".count).filter(\.isNumber)
            guard let kibibytes = Double(String(digits)) else { return nil }
            return kibibytes * 1024 / 1e6
        }
        return nil
        #else
        return nil
        #endif
    }

    /// The resident set size now (`VmRSS`), in megabytes; nil where /proc is not available.
    static func residentMegabytes() -> Double? {
        #if canImport(Glibc)
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            guard let kibibytes = Double(String(line.dropFirst("VmRSS:".count).filter(\.isNumber))) else { return nil }
            return kibibytes * 1024 / 1e6
        }
        return nil
        #else
        return nil
        #endif
    }

    /// Starts the peak over from the resident size now (Linux: "5" written to
    /// /proc/self/clear_refs), so `peakMegabytes` tells the peak of what follows; false
    /// where it cannot.
    @discardableResult
    static func resetPeak() -> Bool {
        #if canImport(Glibc)
        return (try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))) != nil
        #else
        return false
        #endif
    }
}

// MARK: - Machine

/// Facts about the machine that explain the figures.
enum Machine {
    /// Processors available to this process.
    static var coreCount: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// True when this benchmark was compiled without optimisation (figures meaningless).
    static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }
}

// MARK: - Output

/// A plain text table: a header row, a rule, then rows; columns padded to their widest cell.
struct TextTable {
    /// Column titles.
    var header: [String]
    /// True for each column whose cells are aligned to the right (numbers).
    var rightAligned: [Bool]
    /// The rows, each with one cell per column.
    var rows: [[String]] = []

    /// The table as text, one line per row, each ending in a line break.
    func rendered() -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - cells[column].count)
                return rightAligned[column] ? padding + cells[column] : cells[column] + padding
            }.joined(separator: "   ")
        }
        var text = line(header) + "\n"
        text += widths.map { String(repeating: "-", count: $0) }.joined(separator: "   ") + "\n"
        for row in rows { text += line(row) + "\n" }
        return text
    }
}

/// Number formatting for figures.
enum Format {
    /// `value` with exactly `digits` decimals (`1.234`).
    static func decimal(_ value: Double, _ digits: Int) -> String {
        String(format: "%.\(digits)f", value)
    }

    /// `value` with thousands separators (`100,000`), independent of the locale.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var text = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { text += "," }
            text.append(digit)
        }
        return value < 0 ? "-" + text : text
    }
}

/// Progress notes on stderr, only when stderr is a terminal (so piped output stays clean).
enum Progress {
    /// Writes `message` and a line break to stderr when it is a terminal.
    static func note(_ message: String) {
        guard isatty(2) == 1 else { return }
        FileHandle.standardError.write(Data("… \(message)\n".utf8))
    }
}

// MARK: - Files

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    /// The directory's absolute path.
    let path: String

    /// Creates `<tmp>/<prefix>-<pid>-<nanoseconds>`.
    init(prefix: String) throws {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/\(prefix)-\(getpid())-\(Stopwatch.nanoseconds())"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Deletes the directory and everything in it; failures are ignored. With
    /// `MIDICCIO_BENCH_KEEP=1` in the environment it is kept, and its path printed, so the
    /// generated libraries can be looked at afterwards.
    func remove() {
        if ProcessInfo.processInfo.environment["MIDICCIO_BENCH_KEEP"] == "1" {
            FileHandle.standardError.write(Data("kept \(path)\n".utf8))
            return
        }
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Two libraries for a sync benchmark in `folder`: `a` with `words` generated words
/// (every field filled when `full`; imported from TSV sheets, more than one when the
/// words pass the import's size limit), `b` empty, both with Spanish collation.
enum BenchLibraries {
    static func pair(words: Int, seed: UInt64, full: Bool = false, in folder: String) throws -> (a: WordLibrary, b: WordLibrary) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let a = try WordLibrary(path: folder + "/a.sqlite", environment: ["LANG": "es_ES.UTF-8"])
        try SyntheticVocabulary(seed: seed).importWords(count: words, into: a, sheetsIn: folder, full: full)
        let b = try WordLibrary(path: folder + "/b.sqlite", environment: ["LANG": "es_ES.UTF-8"])
        return (a, b)
    }
}
