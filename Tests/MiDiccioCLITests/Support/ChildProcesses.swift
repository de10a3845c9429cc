import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `midiccio` executable of this build, for tests that need real processes: several
/// processes on one library, a server, a `kill -9` in the middle of a command.
enum BuiltTool {
    /// `MIDICCIO_BINARY` when set (the name Tests/Browser/run.sh passes on), else the
    /// `midiccio` that `swift build --build-tests` puts beside the test bundle in the
    /// build's bin folder. Fails the test when there is none: a test that meant to run
    /// real processes must never pass without them.
    static func path() throws -> String {
        if let given = ProcessInfo.processInfo.environment["MIDICCIO_BINARY"], !given.isEmpty {
            try #require(FileManager.default.isExecutableFile(atPath: given), "MIDICCIO_BINARY=\(given) is not an executable")
            return given
        }
        // Linux runs the bundle itself (.build/debug/MiDiccioPackageTests.xctest); macOS
        // runs a binary inside it (…xctest/Contents/MacOS/…), hence a few levels up.
        var starts = [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments.first ?? "")].compactMap { $0 }
        starts += Bundle.allBundles.map(\.bundleURL)
        for start in starts {
            var folder = start.standardizedFileURL.resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                let candidate = folder.appendingPathComponent("midiccio").path
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: candidate)
                {
                    return candidate
                }
                folder.deleteLastPathComponent()
            }
        }
        Issue.record("midiccio was not found beside the tests; build it with `swift build --build-tests` or set MIDICCIO_BINARY")
        throw ChildProcessError(message: "no midiccio executable")
    }

    /// The sqlite3 shell, which checks a library the way a person would. Fails the test
    /// when it is missing (`make test` installs it).
    static func sqliteShell() throws -> String {
        let candidates = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"]
        return try #require(
            candidates.first { FileManager.default.isExecutableFile(atPath: $0) },
            "the sqlite3 shell is not installed (apt-get install sqlite3)")
    }
}

extension BuiltTool {
    /// A program that lists a binary's symbols: the toolchain's `llvm-nm`, else binutils'
    /// `nm`, from PATH. Fails the test when there is neither.
    static func symbolLister() throws -> String {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        let found = ["llvm-nm", "nm"].lazy.compactMap { name in
            folders.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }.first
        return try #require(found, "neither llvm-nm (the Swift toolchain's) nor nm (binutils) is on PATH")
    }
}

/// A child process failed to start or to end.
struct ChildProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// How a child process ended.
enum ChildEnding: Equatable, CustomStringConvertible {
    /// It exited with this status.
    case exited(Int32)
    /// A signal ended it.
    case signalled(Int32)

    /// True for exit status 0: the command reported that it did its work.
    var succeeded: Bool { self == .exited(0) }

    var description: String {
        switch self {
        case .exited(let status): "exit \(status)"
        case .signalled(let signal): "signal \(signal)"
        }
    }
}

/// One process started with posix_spawn, its standard output and error going to files.
///
/// Foundation's `Process` reaps its children on a thread of its own, after which their
/// id may be given to an unrelated process. This one is reaped only by `poll` or `wait`,
/// so until then its id is its own (a zombie at worst) and a `kill` by that id reaches
/// nothing else.
final class ChildProcess: @unchecked Sendable {
    /// The process id.
    let pid: pid_t
    /// The file its standard output goes to.
    let outputPath: String
    /// The file its standard error goes to.
    let errorPath: String
    /// A short name for messages: the command line.
    let commandLine: String
    private let ending = Mutex<ChildEnding?>(nil)

    /// Starts `executable` with `arguments` and exactly `environment`; standard input is
    /// `input` (the read end of a pipe the test writes to) or else /dev/null, standard
    /// error is `error` (a pseudo-terminal) or else the file at `errorPath`, and no other
    /// descriptor of the test process is passed on.
    init(
        executable: String, arguments: [String], environment: [String: String], outputPath: String, errorPath: String,
        input: Int32? = nil, error: Int32? = nil
    ) throws {
        self.outputPath = outputPath
        self.errorPath = errorPath
        commandLine = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input {
            posix_spawn_file_actions_adddup2(&actions, input, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if let error {
            posix_spawn_file_actions_adddup2(&actions, error, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        // The test process holds sockets and pipes; a child keeps none of them open.
        closeOtherDescriptors(&actions)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let status = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard status == 0 else {
            throw ChildProcessError(message: "cannot start \(commandLine): \(String(cString: strerror(status)))")
        }
        self.pid = pid
    }

    /// How it ended, without waiting: nil while it runs. Reaps it once it has ended.
    @discardableResult
    func poll() -> ChildEnding? {
        ending.withLock { ending in
            if let ending { return ending }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            // WIFEXITED and friends are macros Swift does not import.
            let signal = status & 0x7F
            ending = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
            return ending
        }
    }

    /// Waits up to `timeout` seconds for it to end; nil when it still runs.
    func wait(timeout: TimeInterval) -> ChildEnding? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if let ending = poll() { return ending }
            if Date() >= deadline { return nil }
            usleep(2_000)
        }
    }

    /// Sends `signal`, unless it has already been reaped (then its id may be another's).
    func send(_ signal: Int32) {
        ending.withLock { ending in
            if ending == nil { _ = kill(pid, signal) }
        }
    }

    /// `kill -9`, then waits for the end it brings (or the exit that came first).
    @discardableResult
    func killNow() -> ChildEnding {
        send(SIGKILL)
        // SIGKILL cannot be caught: the end follows at once.
        return wait(timeout: 60) ?? .signalled(SIGKILL)
    }

    /// Everything it wrote to standard output so far.
    var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    /// Everything it wrote to standard error so far.
    var errorOutput: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }
}

/// Adds "close every descriptor from 3 up" to `actions`, where the C library offers it.
/// glibc has it since 2.34 as a GNU extension that Swift's Glibc module does not import,
/// so it is looked up by name.
private func closeOtherDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    #if canImport(Glibc)
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return }
    _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    #endif
}

/// What one finished run of a child process did.
struct ChildRun: CustomStringConvertible {
    /// The command line, for messages.
    var commandLine: String
    /// How it ended.
    var ending: ChildEnding
    /// Its standard output.
    var output: String
    /// Its standard error.
    var errorOutput: String

    /// True when it exited with status 0.
    var succeeded: Bool { ending.succeeded }

    var description: String {
        "\(commandLine): \(ending)" + (errorOutput.isEmpty ? "" : ": " + errorOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Every process one test starts from the built `midiccio`, and their output files.
/// Those still running when the test ends, however it ends, are killed by their id and
/// reaped (`stopAll`, called from `deinit` too).
///
/// Holds its sandbox, so the sandbox's folder is removed only after every child that
/// could still write into it is gone.
final class ChildProcesses: @unchecked Sendable {
    /// The `midiccio` executable.
    let executable: String
    /// The environment every child gets, and nothing else of the test's.
    let environment: [String: String]
    /// The folder the children work in.
    let sandbox: Sandbox
    /// Where output files go.
    private let folder: String
    private let state = Mutex<(started: Int, running: [pid_t: ChildProcess])>((0, [:]))

    /// Children of the built tool with the sandbox's process environment, writing their
    /// output into the sandbox.
    init(in sandbox: Sandbox) throws {
        executable = try BuiltTool.path()
        self.sandbox = sandbox
        environment = sandbox.processEnvironment
        folder = sandbox.path("runs")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit { stopAll() }

    /// Starts `midiccio` with `arguments`; `environment` is added to the sandbox's,
    /// `input` is the descriptor its standard input reads (else /dev/null), and `error`
    /// the one its standard error writes to (else a file).
    func start(
        _ arguments: [String], environment extra: [String: String] = [:], input: Int32? = nil, error: Int32? = nil
    ) throws -> ChildProcess {
        try launch(executable, arguments, environment: extra, input: input, error: error)
    }

    /// Starts another program (the sqlite3 shell) the same way.
    func launch(
        _ program: String, _ arguments: [String], environment extra: [String: String] = [:], input: Int32? = nil,
        error: Int32? = nil
    ) throws
        -> ChildProcess
    {
        let number = state.withLock { state in
            state.started += 1
            return state.started
        }
        let child = try ChildProcess(
            executable: program, arguments: arguments, environment: environment.merging(extra) { $1 },
            outputPath: "\(folder)/\(number).out", errorPath: "\(folder)/\(number).err", input: input, error: error)
        state.withLock { $0.running[child.pid] = child }
        return child
    }

    /// Collects what `child` did once it has ended (or after `timeout` seconds, when it
    /// is killed and the run counts as failed), and removes its output files.
    func finish(_ child: ChildProcess, timeout: TimeInterval = 120) -> ChildRun {
        var ending = child.wait(timeout: timeout)
        var errors = child.errorOutput
        if ending == nil {
            ending = child.killNow()
            errors += "\n(killed: still running after \(Int(timeout)) s)"
        }
        let run = ChildRun(commandLine: child.commandLine, ending: ending!, output: child.output, errorOutput: errors)
        state.withLock { _ = $0.running.removeValue(forKey: child.pid) }
        unlink(child.outputPath)
        unlink(child.errorPath)
        return run
    }

    /// Runs `midiccio` with `arguments` (and `environment` added to the sandbox's) to its end.
    func run(_ arguments: [String], environment extra: [String: String] = [:], timeout: TimeInterval = 120) throws -> ChildRun {
        finish(try start(arguments, environment: extra), timeout: timeout)
    }

    /// Kills every child still running (SIGKILL, by its id) and reaps it.
    func stopAll() {
        let running = state.withLock { state in
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        for child in running { child.killNow() }
    }
}

/// The id of a process that has ended: what a killed command left behind is named with
/// such an id.
func endedProcessID() throws -> pid_t {
    let ended = Process()
    ended.executableURL = URL(fileURLWithPath: "/bin/true")
    try ended.run()
    ended.waitUntilExit()
    return ended.processIdentifier
}
