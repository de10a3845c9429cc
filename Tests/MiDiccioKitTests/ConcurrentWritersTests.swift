import Foundation
import MiDiccioTesting
import Synchronization
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Two writers on one library at once")
struct ConcurrentWritersTests {
    static let wordsPerWriter = 30

    /// The `midiccio` executable of this build: tests run from the build products folder
    /// (`.build/debug/MiDiccioPackageTests.xctest`, or inside it on macOS), and
    /// `swift build --build-tests` puts `midiccio` beside it.
    static func builtExecutable() -> URL? {
        var starts: [URL] = [Bundle.main.bundleURL, Bundle.main.executableURL].compactMap { $0 }
        if let first = CommandLine.arguments.first {
            starts.append(URL(fileURLWithPath: first))
        }
        starts += Bundle.allBundles.map(\.bundleURL)
        for start in starts {
            var folder = start.standardizedFileURL.resolvingSymlinksInPath()
            for _ in 0..<4 {
                let candidate = folder.appendingPathComponent("midiccio")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    FileManager.default.isExecutableFile(atPath: candidate.path)
                {
                    return candidate
                }
                folder.deleteLastPathComponent()
            }
        }
        return nil
    }

    /// Runs `midiccio` with `arguments` and returns its exit status and standard error.
    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: text, as: UTF8.self))
    }

    /// Runs `work(0)` and `work(1)` on two threads at once and collects what they threw.
    static func inParallel(_ work: @escaping @Sendable (Int) throws -> Void) -> [String] {
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 2) { writer in
            do { try work(writer) } catch { failures.append("writer \(writer): \(error)") }
        }
        return failures.all
    }

    /// Checks that the library holds every word of both writers, once each, and that the
    /// change counter counted every one of them.
    static func expectAllWords(in path: String) throws {
        let library = try WordLibrary(path: path, create: false, clock: ManualClock(), environment: [:])
        let expected = Set((0..<2).flatMap { writer in (0..<wordsPerWriter).map { "writer\(writer)-word\($0)" } })
        let terms = try library.list().map(\.term)
        #expect(terms.count == 2 * wordsPerWriter)
        #expect(Set(terms) == expected)
        let changes = try library.allStored().map(\.localChange).sorted()
        #expect(changes == Array(1...Int64(2 * wordsPerWriter)))
        #expect(try library.search("writer1").count == 20)
    }

    @Test("two midiccio processes adding 30 words each to one library lose none")
    func twoProcesses() throws {
        let executable = Self.builtExecutable()
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("shared.sqlite").path
            // Created first: this test is about writing at once, not creating at once.
            _ = try WordLibrary(path: path, clock: ManualClock(), environment: [:])
            let failures: [String]
            if let executable {
                failures = Self.inParallel { writer in
                    for index in 0..<Self.wordsPerWriter {
                        let result = try Self.run(
                            executable,
                            [
                                "add", "writer\(writer)-word\(index)",
                                "--meaning", "from process \(writer)", "--library", path,
                            ])
                        if result.status != 0 {
                            throw ShellError(message: "midiccio exited with \(result.status): \(result.errors)")
                        }
                    }
                }
            } else {
                // Without the executable, separate connections stand in for separate processes.
                print("note: midiccio was not found beside the tests (run `swift build --build-tests`); using two connections")
                failures = Self.inParallel { writer in
                    let library = try WordLibrary(path: path, environment: [:])
                    for index in 0..<Self.wordsPerWriter {
                        try library.add(WordContent(term: "writer\(writer)-word\(index)", meaning: "from thread \(writer)"))
                    }
                }
            }
            #expect(failures.isEmpty, "\(failures)")
            try Self.expectAllWords(in: path)
        }
    }

    @Test("two writers opening a library that does not exist yet both succeed")
    func twoWritersCreateOneLibrary() throws {
        // A race: each round is a new file opened by two connections at the same moment.
        // Forty rounds make a lost race very likely to show.
        try withTemporaryDirectory { directory in
            for round in 0..<40 {
                let path = directory.appendingPathComponent("new-\(round)/library.sqlite").path
                let ready = Mutex(0)
                let failures = Self.inParallel { writer in
                    // Both threads leave the starting line together.
                    ready.withLock { $0 += 1 }
                    while ready.withLock({ $0 }) < 2 {}
                    let library = try WordLibrary(path: path, clock: ManualClock(), environment: [:])
                    try library.add(WordContent(term: "writer\(writer)"))
                }
                #expect(failures.isEmpty, "round \(round): \(failures)")
                let library = try WordLibrary(path: path, create: false, clock: ManualClock(), environment: [:])
                #expect(try library.list(ListQuery(sort: .term)).map(\.term) == ["writer0", "writer1"], "round \(round)")
            }
        }
    }

    @Test("two connections in one process adding 30 words each at once lose none")
    func twoConnections() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("shared.sqlite").path
            _ = try WordLibrary(path: path, clock: ManualClock(), environment: [:])
            let failures = Self.inParallel { writer in
                let library = try WordLibrary(path: path, clock: ManualClock(), environment: [:])
                for index in 0..<Self.wordsPerWriter {
                    try library.add(WordContent(term: "writer\(writer)-word\(index)"))
                    // Reads in between, as the web app would while the CLI writes.
                    _ = try library.search("writer")
                }
            }
            #expect(failures.isEmpty, "\(failures)")
            try Self.expectAllWords(in: path)
        }
    }
}

/// Error messages gathered from several threads.
final class Failures: Sendable {
    private let messages = Mutex<[String]>([])

    func append(_ message: String) {
        messages.withLock { $0.append(message) }
    }

    var all: [String] {
        messages.withLock { $0 }
    }
}
