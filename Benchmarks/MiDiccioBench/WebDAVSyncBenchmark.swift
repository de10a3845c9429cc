import Foundation
import MiDiccioKit
import MiDiccioTesting

#if canImport(Glibc)
import Glibc
#endif

/// `midiccio-bench sync --backend webdav`: the sync figures through a real WebDAV server,
/// with the number of HTTP requests of each: a new device's first sync, a sync with
/// nothing to do and one changed word each way.
///
/// Without `--url` it starts its own lighttpd with Tests/WebDAV/server.sh (run it from
/// the repository) on 127.0.0.1 and stops it at the end.
enum WebDAVSyncBenchmark {
    /// The usage line.
    static let usage = "midiccio-bench sync --backend webdav [--words <n>] [--seed <s>] [--write-mode move|put] [--url <url> --user <name>]"

    /// The targets of the "Benchmark" section of issue 5.
    enum Target {
        /// A new device's first sync, seconds.
        static let firstSync = 2.0
        /// Requests of a sync with nothing to do: 2 + the number of devices.
        static let noOpRequests = 2 + 2
        /// Requests to push, or to pull, one changed word.
        static let oneWordRequests = 5
    }

    /// Runs of the short measurements; the median time is reported.
    static let runs = 9

    /// The value of `--backend` in `arguments`, if given.
    static func backend(in arguments: [String]) -> String? {
        value("backend", in: arguments)
    }

    /// `arguments` without `--backend` and its value.
    static func withoutBackend(_ arguments: [String]) -> [String] {
        var rest = arguments
        _ = take("backend", from: &rest)
        return rest
    }

    static func run(_ arguments: [String]) throws {
        var rest = arguments
        let url = take("url", from: &rest)
        let user = take("user", from: &rest)
        let mode = take("write-mode", from: &rest) ?? "put"
        _ = take("backend", from: &rest)
        let options = try BenchOptions(rest, accepting: ["words", "seed"], usage: usage)
        let wordCount = try options.integer("words", default: 100_000, in: 10...5_000_000)
        let seed = try options.unsigned("seed", default: 1)
        guard mode == "move" || mode == "put" else {
            throw BenchUsageError(message: "'--write-mode' must be move or put, not '\(mode)'", usage: usage)
        }
        let workspace = try TemporaryDirectory(prefix: "midiccio-bench-webdav")
        defer { workspace.remove() }

        let server: (url: String, user: String?, password: String?)
        var started: String?
        if let url {
            server = (url, user, ProcessInfo.processInfo.environment[RemoteConfig.passwordVariable])
        } else {
            let state = workspace.path + "/server"
            try serverScript("start", state)
            started = state
            func read(_ name: String) throws -> String {
                try String(contentsOfFile: state + "/" + name, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            server = (try read("url"), try read("user"), try read("password"))
        }
        defer { if let started { try? serverScript("stop", started) } }

        let parsed = try WebDAVAddress.parse(server.url + "/midiccio-bench-\(getpid())-\(Stopwatch.nanoseconds())")
        var storageOptions = WebDAVStorage.Options()
        storageOptions.writeMode = mode == "put" ? .directPut : .temporaryThenMove
        func storage() -> WebDAVStorage {
            WebDAVStorage(address: parsed.address, user: server.user, password: server.password, options: storageOptions)
        }
        let (a, b) = try BenchLibraries.pair(words: wordCount, seed: seed, in: workspace.path + "/libraries")
        let storageA = storage(), storageB = storage()
        let engineA = SyncEngine(library: a, storage: storageA)
        let engineB = SyncEngine(library: b, storage: storageB)

        Progress.note("full upload of \(Format.grouped(wordCount)) words to \(storageA.displayName)")
        let (upload, uploadSeconds) = try Stopwatch.measure { try engineA.sync() }
        guard upload.pushed == wordCount else { throw BenchFailure("the full upload pushed \(upload.pushed) of \(wordCount) words") }
        let uploadRequests = storageA.requestCount

        Progress.note("first sync of a new device")
        let (_, firstSeconds) = try Stopwatch.measure { try engineB.sync() }
        guard try b.counts().words == wordCount else {
            throw BenchFailure("the new device holds \(try b.counts().words) of \(wordCount) words")
        }
        let firstRequests = storageB.requestCount
        try engineA.sync()
        try engineB.sync()

        Progress.note("syncs with nothing to do")
        var noOpTimes: [Double] = [], noOpCounts: [Double] = []
        for _ in 0..<runs {
            storageB.resetCounts()
            let (_, seconds) = try Stopwatch.measure { try engineB.sync() }
            noOpTimes.append(seconds * 1000)
            noOpCounts.append(Double(storageB.requestCount))
        }
        let noOpRequests = Int(Statistics.median(noOpCounts) ?? 0)

        Progress.note("one changed word each way")
        var pushTimes: [Double] = [], pullTimes: [Double] = []
        // The first push also makes this device's changes folder (MKCOL): the median is
        // the steady cost.
        var pushCounts: [Double] = [], pullCounts: [Double] = []
        for (round, id) in try a.list(ListQuery(sort: .created, limit: runs)).map(\.id).enumerated() {
            _ = try a.edit(id, WordEdit(notes: "changed in round \(round)"))
            storageA.resetCounts()
            storageB.resetCounts()
            let (pushed, pushSeconds) = try Stopwatch.measure { try engineA.sync() }
            let (pulled, pullSeconds) = try Stopwatch.measure { try engineB.sync() }
            guard pushed.pushed == 1, pulled.pulled == 1 else {
                throw BenchFailure("round \(round): pushed \(pushed.pushed), pulled \(pulled.pulled); expected 1 and 1")
            }
            pushTimes.append(pushSeconds * 1000)
            pullTimes.append(pullSeconds * 1000)
            pushCounts.append(Double(storageA.requestCount))
            pullCounts.append(Double(storageB.requestCount))
        }
        let pushRequests = Int(Statistics.median(pushCounts) ?? 0)
        let pullRequests = Int(Statistics.median(pullCounts) ?? 0)

        var table = TextTable(header: ["figure", "time", "requests", "target", "result"], rightAligned: [false, true, true, true, false])
        func row(_ figure: String, _ time: String, _ requests: Int, target: String, pass: Bool?) {
            table.rows.append([figure, time, String(requests), target, pass.map { $0 ? "pass" : "MISS" } ?? ""])
        }
        row(
            "full upload (\(Format.grouped(wordCount)) words, once)", Format.decimal(uploadSeconds, 3) + " s", uploadRequests, target: "",
            pass: nil)
        row(
            "first sync of a new device", Format.decimal(firstSeconds, 3) + " s", firstRequests,
            target: "≤ " + Format.decimal(Target.firstSync, 1) + " s", pass: firstSeconds <= Target.firstSync)
        row(
            "sync with nothing to do (medians)", Format.decimal(Statistics.median(noOpTimes) ?? 0, 2) + " ms", noOpRequests,
            target: "≤ \(Target.noOpRequests) requests", pass: noOpRequests <= Target.noOpRequests)
        row(
            "one changed word pushed (medians)", Format.decimal(Statistics.median(pushTimes) ?? 0, 2) + " ms", pushRequests,
            target: "≤ \(Target.oneWordRequests) requests", pass: pushRequests <= Target.oneWordRequests)
        row(
            "one changed word pulled (medians)", Format.decimal(Statistics.median(pullTimes) ?? 0, 2) + " ms", pullRequests,
            target: "≤ \(Target.oneWordRequests) requests", pass: pullRequests <= Target.oneWordRequests)
        let writes = mode == "put" ? "one PUT per file" : "PUT to a temporary name, then MOVE"
        print(
            "midiccio-bench sync: WebDAV back end (\(started == nil ? "given server" : "lighttpd on 127.0.0.1"), \(writes)), 2 devices, \(Machine.coreCount) cores"
        )
        print(table.rendered(), terminator: "")
    }

    // MARK: - Arguments

    private static func value(_ name: String, in arguments: [String]) -> String? {
        var copy = arguments
        return take(name, from: &copy)
    }

    /// Removes `--name value` or `--name=value` from `arguments` and returns the value.
    static func take(_ name: String, from arguments: inout [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument.hasPrefix("--\(name)=") {
                arguments.remove(at: index)
                return String(argument.dropFirst(name.count + 3))
            }
            if argument == "--\(name)", index + 1 < arguments.count {
                let value = arguments[index + 1]
                arguments.removeSubrange(index...(index + 1))
                return value
            }
        }
        return nil
    }

    // MARK: - The local server

    /// Runs Tests/WebDAV/server.sh `command` `state`, waiting for it to finish.
    private static func serverScript(_ command: String, _ state: String) throws {
        let script = FileManager.default.currentDirectoryPath + "/Tests/WebDAV/server.sh"
        guard FileManager.default.fileExists(atPath: script) else {
            throw BenchUsageError(
                message: "no WebDAV server: run from the repository (for Tests/WebDAV/server.sh) or give --url", usage: usage)
        }
        do {
            try ServerScript.run(script, [command, state])
        } catch {
            throw BenchFailure("\(script) \(command) failed (is lighttpd installed? make test installs it)")
        }
    }
}
