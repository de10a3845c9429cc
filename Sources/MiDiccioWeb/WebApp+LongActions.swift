import Foundation
import MiDiccioKit
import Synchronization

/// How far a long action (import, restore, sync) has come, for the page to poll while
/// its request runs: `GET api/jobs/KEY`, where KEY is the action's idempotency key.
///
/// The action itself stays one request that answers with its result; the board only
/// mirrors its progress, in memory, so a page reloaded half way simply sees no job.
final class JobBoard: Sendable {
    /// One action's progress.
    struct Progress: Sendable {
        /// What it is doing, in words ("Importing", "Merging").
        var phase: String
        /// Units done, of `total`; `total` 0 while it is unknown.
        var done: Int
        var total: Int
        /// "rows" or "words".
        var unit: String
        /// True once the action has answered.
        var finished: Bool
        /// Run in the background (`async=1`): its answer, once there is one.
        var background = false
        var answer: HTTPResponse?
    }

    private let jobs = Mutex<(byKey: [String: Progress], order: [String])>(([:], []))
    /// Finished jobs kept for a late poll; older ones are forgotten.
    private let capacity = 100

    /// Records `key`'s progress (a key not seen before starts a job).
    func update(_ key: String, phase: String, done: Int, total: Int, unit: String) {
        jobs.withLock { jobs in
            Self.admit(key, into: &jobs, capacity: capacity)
            let before = jobs.byKey[key]
            jobs.byKey[key] = Progress(
                phase: phase, done: done, total: total, unit: unit, finished: false,
                background: before?.background ?? false, answer: nil)
        }
    }

    /// Makes room for a key not seen before: past `capacity` jobs, the oldest finished one
    /// is forgotten (never one still running, whose page is polling it).
    private static func admit(_ key: String, into jobs: inout (byKey: [String: Progress], order: [String]), capacity: Int) {
        guard jobs.byKey[key] == nil else { return }
        jobs.order.append(key)
        guard jobs.order.count > capacity,
            let oldest = jobs.order.dropLast().firstIndex(where: { jobs.byKey[$0]?.finished == true })
        else { return }
        jobs.byKey[jobs.order.remove(at: oldest)] = nil
    }

    /// Marks `key`'s job as answered.
    func finish(_ key: String) {
        jobs.withLock { $0.byKey[key]?.finished = true }
    }

    /// Starts `work` on a thread of its own and answers 202 at once, so the request does
    /// not hold one of the server's threads (and the polls that share it) for the whole
    /// action; the answer is kept for `GET api/jobs/KEY`. A key already running is 409.
    func startInBackground(_ key: String, _ work: @escaping @Sendable () -> HTTPResponse) -> HTTPResponse {
        let fresh = jobs.withLock { jobs -> Bool in
            if let running = jobs.byKey[key], running.answer == nil, running.background { return false }
            Self.admit(key, into: &jobs, capacity: capacity)
            jobs.byKey[key] = Progress(phase: "Starting", done: 0, total: 0, unit: "", finished: false, background: true)
            return true
        }
        guard fresh else { return .error(409, "this action is already running") }
        OwnThread.start {
            let answer = work()
            self.jobs.withLock { jobs in
                jobs.byKey[key]?.answer = answer
                jobs.byKey[key]?.finished = true
            }
        }
        var accepted = HTTPResponse.json(JSONText.object([("job", JSONText.quote(key))]))
        accepted.status = 202
        return accepted
    }

    /// The actions running now, foreground or background: what `serve` waits for when
    /// it is told to stop.
    func running() -> [Progress] {
        jobs.withLock { jobs in
            jobs.order.compactMap { jobs.byKey[$0] }.filter { $0.background ? $0.answer == nil : !$0.finished }
        }
    }

    /// `key`'s progress, if the job is known.
    func progress(_ key: String) -> Progress? {
        jobs.withLock { $0.byKey[key] }
    }

    /// Runs `body` with a progress callback for `key` (none without a key), then marks
    /// the job finished whatever happened.
    func run<T>(
        _ key: String?, phase: String, unit: String,
        _ body: (((_ done: Int, _ total: Int) -> Void)?) throws -> T
    ) rethrows -> T {
        try run(
            key, phase: phase, unit: unit,
            reporting: { report in
                try body(report.map { report in { done, total in report(phase, done, total) } })
            })
    }

    /// Runs `body` with a callback that reports `key`'s phase and progress (none without a
    /// key), starting in `phase`, then marks the job finished whatever happened: for an
    /// action that goes through phases of its own (a sync).
    func run<T>(
        _ key: String?, phase: String, unit: String,
        reporting body: ((@Sendable (_ phase: String, _ done: Int, _ total: Int) -> Void)?) throws -> T
    ) rethrows -> T {
        guard let key, !key.isEmpty else { return try body(nil) }
        update(key, phase: phase, done: 0, total: 0, unit: unit)
        defer { finish(key) }
        return try body { phase, done, total in self.update(key, phase: phase, done: done, total: total, unit: unit) }
    }
}

extension WebApp {
    /// The long actions running now (a bulk action, an import, a restore, a sync), in
    /// words ("Adding the tag: 15000 of 40000 words"): `serve`, told to stop, waits for
    /// them, where it stopped at once and they were rolled back without a word, or done
    /// with their answer never sent (found by the exploratory helper, round 14C).
    public func actionsRunning() -> [String] {
        jobs.running().map { job in
            guard job.phase != "Starting" else { return "an action just started" }
            guard job.total > 0 else { return job.phase }
            return "\(job.phase): \(job.done) of \(job.total) \(job.unit)"
        }
    }

    /// `GET api/jobs/KEY`: how far the import, restore or sync sent with that key has come
    /// (404 when no such job is known, which is also what a page sees before its request
    /// reaches the server).
    func jobProgress(_ key: String) -> HTTPResponse {
        guard let progress = jobs.progress(key) else { return .error(404, "no action with this key is running") }
        // In the background, an action is finished once its answer is kept.
        let finished = progress.background ? progress.answer != nil : progress.finished
        var pairs = [
            ("phase", JSONText.quote(progress.phase)), ("done", String(progress.done)),
            ("total", String(progress.total)), ("unit", JSONText.quote(progress.unit)),
            ("finished", String(finished)),
        ]
        if let answer = progress.answer {
            pairs.append(("status", String(answer.status)))
            pairs.append(("answer", answer.body.isEmpty ? "null" : String(decoding: answer.body, as: UTF8.self)))
        }
        return .json(JSONText.object(pairs))
    }

    /// Answers `request` with `answer`, or, with `async=1` and a key, starts it in the
    /// background and answers 202 (`JobBoard.startInBackground`).
    func answerMaybeInBackground(
        _ request: HTTPRequest, key: String?, _ answer: @escaping @Sendable () throws -> HTTPResponse
    ) rethrows -> HTTPResponse {
        guard request.query["async"] == "1", let key, !key.isEmpty, request.query["dryRun"] != "1" else { return try answer() }
        return jobs.startInBackground(key) {
            do { return try answer() } catch { return Self.failure(error) }
        }
    }

    /// A sync's activity as a job's phase and counts.
    static func jobUpdate(_ activity: SyncActivity) -> (phase: String, done: Int, total: Int) {
        switch activity {
        case .reachingCloud: ("Reaching the cloud", 0, 0)
        case .downloading: ("Receiving", 0, 0)
        case .merging(let words, let done): ("Merging", done, words)
        case .uploading(let words, let done): ("Sending", done, words)
        case .writingSnapshot(let words, let done, _): ("Writing a snapshot", done, words)
        case .tidying: ("Tidying", 0, 0)
        }
    }

    /// The restore report's lists of terms, for the preview and the result.
    static func restoreTermLists(_ report: RestoreReport) -> [(String, String)] {
        [
            ("addedTerms", JSONText.array(report.addedTerms)), ("updatedTerms", JSONText.array(report.updatedTerms)),
            ("trashedTerms", JSONText.array(report.trashedTerms)),
            ("skippedPurgedTerms", JSONText.array(report.skippedPurgedTerms)), ("listedTerms", String(RestoreReport.listedTerms)),
        ]
    }
}
