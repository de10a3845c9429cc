import Foundation
import MiDiccioCLI
import MiDiccioTesting
import Testing

@Suite("Several midiccio runs using one library at the same time")
final class ConcurrentWritersCLITests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    /// Runs `wordsEach` `add` commands on each of `writers` threads at once, every run
    /// with its own connection (as separate processes would have); returns a message
    /// for each run that failed.
    private func addConcurrently(writers: Int, wordsEach: Int) -> [String] {
        let environment = sandbox.environment
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for index in 0..<wordsEach {
                let io = CapturedIO()
                let status = Tool.run(["add", "w\(writer)-\(index)"], environment: environment, io: io)
                if status != 0 { failures.append("writer \(writer) word \(index): exit \(status): \(io.errorOutput)") }
            }
        }
        return failures.all
    }

    @Test("two writers adding words to one existing library both succeed and nothing is lost")
    func twoWritersExistingLibrary() throws {
        try sandbox.add("first")
        let failures = addConcurrently(writers: 2, wordsEach: 25)
        #expect(failures.isEmpty, "\(failures)")
        #expect(try sandbox.listedWords().count == 51)
    }

    @Test("several writers creating a new library on first use at the same moment all succeed")
    func firstUseRace() throws {
        for attempt in 0..<20 {
            let path = sandbox.path("attempt\(attempt)/library.sqlite")
            let environment = ["MIDICCIO_LIBRARY": path, "HOME": sandbox.path("home")]
            let failures = Failures()
            let start = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            let writers = 6
            for writer in 0..<writers {
                done.enter()
                Thread.detachNewThread {
                    start.wait()
                    let io = CapturedIO()
                    let status = Tool.run(["add", "w\(writer)"], environment: environment, io: io)
                    if status != 0 { failures.append("attempt \(attempt) writer \(writer): exit \(status): \(io.errorOutput)") }
                    done.leave()
                }
            }
            for _ in 0..<writers { start.signal() }
            done.wait()
            #expect(failures.all.isEmpty, "\(failures.all.count) of \(writers) failed: \(failures.all.first ?? "")")
            let list = sandbox.run(["list", "--json"], environment: environment)
            #expect(try list.jsonArray().count == writers - failures.all.count, "attempt \(attempt)")
        }
    }
}

/// Failure messages collected from several threads.
private final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    func append(_ message: String) {
        lock.lock()
        defer { lock.unlock() }
        messages.append(message)
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return messages
    }
}
