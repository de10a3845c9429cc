import Foundation
import MiDiccioKit
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One library used by many processes at once, as on a desktop where the web app runs
/// while scripts add words and syncs come and go.
///
/// Under this load a library once became "database disk image is malformed": opening a
/// library read its header through a descriptor of its own, and closing that descriptor
/// dropped every POSIX lock the process held on the file, so another process took the
/// file for unused, checkpointed and removed the write-ahead log under the web app's
/// connections (LibraryFile explains the fix). The test runs the real `midiccio serve`
/// and real command-line processes, because only separate processes exercise those locks.
///
/// `MIDICCIO_STRESS_ROUNDS` sets how many words each command-line writer adds (default
/// 40; the report of the corruption had four writers of about 100).
@Suite("One library used by several processes at once")
final class ProcessStressTests {
    let sandbox: Sandbox
    let children: ChildProcesses

    /// Words each command-line writer adds.
    static let rounds = Int(ProcessInfo.processInfo.environment["MIDICCIO_STRESS_ROUNDS"] ?? "") ?? 40
    /// Command-line processes adding and editing at the same time.
    static let writers = 4

    init() throws {
        sandbox = try Sandbox()
        children = try ChildProcesses(in: sandbox)
    }

    @Test("writers, syncs and the web app on one library at once leave it whole and lose no word reported saved")
    func manyProcessesOneLibrary() throws {
        let library = sandbox.libraryPath
        let phone = sandbox.path("phone.sqlite")
        let cloud = sandbox.path("cloud")
        try FileManager.default.createDirectory(atPath: cloud, withIntermediateDirectories: true)
        // A second device, so the library's syncs also pull and merge words in.
        for (path, name) in [(library, "Desktop"), (phone, "Phone")] {
            try requireSuccess(children.run(["remote", "set", "folder", cloud, "--device-name", name, "--library", path]))
            try requireSuccess(children.run(["sync", "--library", path]))
        }

        let server = try children.start(["serve", "--port", "0", "--library", library])
        let web = try WebClient(serverOutput: server)
        let saved = SavedWords()
        let failures = Failures()
        let writersDone = Flag()
        let group = DispatchGroup()
        func spawn(_ role: String, _ body: @escaping @Sendable () throws -> Void) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do { try body() } catch { failures.append("\(role): \(error)") }
            }
        }

        let writerGroup = DispatchGroup()
        for writer in 0..<Self.writers {
            writerGroup.enter()
            spawn("writer \(writer)") { [children] in
                defer { writerGroup.leave() }
                try Self.writeWords(writer: writer, library: library, children: children, saved: saved, failures: failures)
            }
        }
        spawn("sync") { [children] in
            var round = 0
            while !writersDone.isSet {
                failures.unlessSucceeded(try children.run(["sync", "--library", library]))
                if round % 2 == 0 {
                    let term = "phone-\(round)"
                    let added = try children.run(["add", term, "--meaning", "added on the phone", "--json", "--library", phone])
                    if let id = failures.addedID(added) { saved.record(id: id, term: term, meaning: "added on the phone") }
                    failures.unlessSucceeded(try children.run(["sync", "--library", phone]))
                }
                round += 1
                usleep(150_000)
            }
        }
        for reader in 0..<2 {
            spawn("web reader \(reader)") {
                var round = 0
                while !writersDone.isSet {
                    let sort = ["updated", "created", "term"][round % 3]
                    failures.unlessOK(web.send("GET", "/api/words?limit=50&offset=\(round % 4 * 25)&sort=\(sort)"), 200)
                    failures.unlessOK(web.send("GET", "/api/search?q=w\(round % Self.writers)"), 200)
                    round += 1
                }
            }
        }
        spawn("web writer") {
            var own: [String] = []
            var round = 0
            while !writersDone.isSet {
                let term = "web-\(round)", meaning = "added through the page, \(round)"
                let reply = web.send("POST", "/api/words", json: ["term": term, "meaning": meaning, "tags": ["stress"]])
                if failures.unlessOK(reply, 201), let id = (reply.object["word"] as? [String: Any])?["id"] as? String {
                    saved.record(id: id, term: term, meaning: meaning)
                    own.append(id)
                }
                if round % 3 == 2, let id = own.randomElement() {
                    let edit = "edited through the page in round \(round)"
                    if failures.unlessOK(web.send("PUT", "/api/words/\(id)", json: ["meaning": edit]), 200) {
                        saved.edited(id: id, meaning: edit)
                    }
                }
                round += 1
            }
        }
        spawn("web sync") {
            while !writersDone.isSet {
                let reply = web.send("POST", "/api/sync")
                if failures.unlessOK(reply, 200), reply.object["synced"] as? Bool != true {
                    failures.append("web sync did not sync: \(reply.text)")
                }
                usleep(300_000)
            }
        }

        writerGroup.wait()
        writersDone.set()
        group.wait()
        // serve stops on SIGTERM after the requests in progress, as on Ctrl-C.
        server.send(SIGTERM)
        let stopped = children.finish(server, timeout: 30)
        #expect(stopped.succeeded, "serve did not stop cleanly: \(stopped)")

        // The phone's last words up, then the desktop pulls them and the phone catches up.
        for path in [phone, library, phone] {
            failures.unlessSucceeded(try children.run(["sync", "--library", path]))
        }
        // Counted, not listed in full: a broken library fails every request that follows.
        let failed = failures.all
        #expect(failed.count == 0, "operations failed; the first: \(failed.prefix(3))")
        for path in [library, phone] {
            let verdict = try children.integrityCheck(path)
            let whole = verdict == "ok"
            #expect(whole, "integrity_check of \(path): \(verdict)")
        }
        let words = try allWords(inLibraryAt: library)
        let expected = saved.all
        let missing = expected.filter { words[$0.key] == nil }
        #expect(missing.count == 0, "of \(expected.count) words reported saved, e.g. \(missing.values.prefix(3).map(\.description))")
        let wrong = expected.compactMap { id, want -> String? in
            guard let word = words[id], word.term != want.term || word.meaning != want.meaning else { return nil }
            return "\(want.term) has \"\(word.meaning)\", saved as \"\(want.meaning)\""
        }
        #expect(wrong.count == 0, "words lost their last reported change, e.g. \(wrong.prefix(3))")
        #expect(words.count == expected.count, "words in the library, against words reported saved")
        let phoneWords = Set(try allWords(inLibraryAt: phone).values)
        #expect(phoneWords.symmetricDifference(words.values).count == 0, "words differ between the desktop and the phone after syncing")
        print("Process stress: \(Self.writers) writers x \(Self.rounds) words; \(expected.count) words reported saved in all")
    }

    /// One command-line writer: adds `rounds` words, and every third round changes the
    /// meaning of one of its earlier words. Records what was reported saved.
    private static func writeWords(
        writer: Int, library: String, children: ChildProcesses, saved: SavedWords,
        failures: Failures
    ) throws {
        var own: [String] = []
        for round in 0..<rounds {
            let term = "w\(writer)-\(round)", meaning = "writer \(writer), word \(round)"
            let added = try children.run(["add", term, "--meaning", meaning, "--tag", "stress", "--json", "--library", library])
            if let id = failures.addedID(added) {
                saved.record(id: id, term: term, meaning: meaning)
                own.append(id)
            }
            if round % 3 == 2, let id = own.randomElement() {
                let edit = "writer \(writer), edited in round \(round)"
                let edited = try children.run(["edit", id, "--meaning", edit, "--json", "--library", library])
                if failures.unlessSucceeded(edited) { saved.edited(id: id, meaning: edit) }
            }
        }
    }

    private func requireSuccess(_ run: ChildRun) throws {
        try #require(run.succeeded, "\(run)")
    }
}

// MARK: - What was reported

/// Tells every thread that the writers are done.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

/// The words whose saving was reported done (exit 0 with an id, or 201), with the
/// content of their last reported change.
private final class SavedWords: Sendable {
    struct Content: CustomStringConvertible {
        var term: String
        var meaning: String
        var description: String { "\(term) (\(meaning))" }
    }

    private let words = Mutex<[String: Content]>([:])

    func record(id: String, term: String, meaning: String) {
        words.withLock { $0[id] = Content(term: term, meaning: meaning) }
    }

    func edited(id: String, meaning: String) {
        words.withLock { $0[id]?.meaning = meaning }
    }

    var all: [String: Content] { words.withLock { $0 } }
}

/// Operations that did not succeed, gathered from every thread.
private final class Failures: Sendable {
    private let messages = Mutex<[String]>([])

    func append(_ message: String) {
        messages.withLock { $0.append(message) }
    }

    var all: [String] { messages.withLock { $0 } }

    /// Notes `run` unless it exited 0; returns whether it did.
    @discardableResult
    func unlessSucceeded(_ run: ChildRun) -> Bool {
        if !run.succeeded { append("\(run)") }
        return run.succeeded
    }

    /// Notes `reply` unless it has `status`; returns whether it does.
    @discardableResult
    func unlessOK(_ reply: WebClient.Reply, _ status: Int) -> Bool {
        if reply.status != status { append("\(reply.request): \(reply.status) \(reply.text)") }
        return reply.status == status
    }

    /// The id `add --json` printed, when it succeeded; notes the failure otherwise.
    func addedID(_ run: ChildRun) -> String? {
        guard unlessSucceeded(run) else { return nil }
        let object = try? JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        guard let id = object?["id"] as? String else {
            append("\(run.commandLine): exit 0 without an id: \(run.output)")
            return nil
        }
        return id
    }
}

// MARK: - The web app's client

/// Talks to the web app `serve` started, as the page's script does: JSON bodies and the
/// page's CSRF token (from its `<meta name="csrf-token">`) in `X-CSRF-Token` on writes.
final class WebClient: Sendable {
    /// One answer.
    struct Reply {
        var request: String
        var status: Int
        var text: String

        /// The body as a JSON object (empty when it is not one).
        var object: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        }
    }

    let base: String
    let csrfToken: String
    private let session: URLSession

    /// Waits for `server` to print its address, then reads the page for its token.
    init(serverOutput server: ChildProcess) throws {
        session = URLSession(configuration: .ephemeral)
        var address: String?
        let deadline = Date(timeIntervalSinceNow: 30)
        while address == nil {
            if let ending = server.poll() {
                throw ChildProcessError(message: "serve ended (\(ending)) before it listened: \(server.errorOutput)")
            }
            guard Date() < deadline else { throw ChildProcessError(message: "serve printed no address within 30 s") }
            address = server.output.split(separator: " ").first { $0.hasPrefix("http://") }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            usleep(20_000)
        }
        base = String(address!.dropLast(address!.hasSuffix("/") ? 1 : 0))
        let page = Self.exchange(session, URLRequest(url: URL(string: base + "/")!))
        let marker = "name=\"csrf-token\" content=\""
        guard page.status == 200, let start = page.text.range(of: marker),
            let end = page.text[start.upperBound...].firstIndex(of: "\"")
        else {
            throw ChildProcessError(message: "the page carries no CSRF token: \(page.status) \(page.text.prefix(300))")
        }
        csrfToken = String(page.text[start.upperBound..<end])
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Sends one request and waits for the whole answer (status 0 when none came).
    func send(_ method: String, _ path: String, json: [String: Any]? = nil) -> Reply {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if method != "GET" { request.setValue(csrfToken, forHTTPHeaderField: "X-CSRF-Token") }
        if let json {
            request.httpBody = try? JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let answer = Self.exchange(session, request)
        return Reply(request: "\(method) \(path)", status: answer.status, text: answer.text)
    }

    /// Sends `body` as it is (an upload), with the token.
    func send(_ method: String, _ path: String, body: Data) -> Reply {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        request.setValue(csrfToken, forHTTPHeaderField: "X-CSRF-Token")
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let answer = Self.exchange(session, request)
        return Reply(request: "\(method) \(path)", status: answer.status, text: answer.text)
    }

    /// One exchange over `session`, waited for: the text is the error when none came.
    private static func exchange(_ session: URLSession, _ request: URLRequest) -> (status: Int, text: String) {
        var request = request
        request.timeoutInterval = 60
        let answer = Answer()
        session.dataTask(with: request) { data, response, error in
            answer.fill(
                status: (response as? HTTPURLResponse)?.statusCode ?? 0,
                text: error.map { "\($0)" } ?? String(decoding: data ?? Data(), as: UTF8.self))
        }.resume()
        answer.done.wait()
        return (answer.status, answer.text)
    }

    /// The answer, handed from URLSession's queue to the waiting thread; `done` orders
    /// the write before the read.
    private final class Answer: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        private(set) var status = 0
        private(set) var text = ""

        func fill(status: Int, text: String) {
            self.status = status
            self.text = text
            done.signal()
        }
    }
}
