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
    }

    private let jobs = Mutex<(byKey: [String: Progress], order: [String])>(([:], []))
    /// Finished jobs kept for a late poll; older ones are forgotten.
    private let capacity = 100

    /// Records `key`'s progress (a key not seen before starts a job).
    func update(_ key: String, phase: String, done: Int, total: Int, unit: String) {
        jobs.withLock { jobs in
            if jobs.byKey[key] == nil {
                jobs.order.append(key)
                if jobs.order.count > capacity { jobs.byKey[jobs.order.removeFirst()] = nil }
            }
            jobs.byKey[key] = Progress(phase: phase, done: done, total: total, unit: unit, finished: false)
        }
    }

    /// Marks `key`'s job as answered.
    func finish(_ key: String) {
        jobs.withLock { $0.byKey[key]?.finished = true }
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
        guard let key, !key.isEmpty else { return try body(nil) }
        update(key, phase: phase, done: 0, total: 0, unit: unit)
        defer { finish(key) }
        return try body { done, total in self.update(key, phase: phase, done: done, total: total, unit: unit) }
    }
}

extension WebApp {
    /// `GET api/jobs/KEY`: how far the import, restore or sync sent with that key has come
    /// (404 when no such job is known, which is also what a page sees before its request
    /// reaches the server).
    func jobProgress(_ key: String) -> HTTPResponse {
        guard let progress = jobs.progress(key) else { return .error(404, "no action with this key is running") }
        return .json(
            JSONText.object([
                ("phase", JSONText.quote(progress.phase)), ("done", String(progress.done)),
                ("total", String(progress.total)), ("unit", JSONText.quote(progress.unit)),
                ("finished", String(progress.finished)),
            ]))
    }

    /// A sync's activity as a job's phase and counts.
    static func jobUpdate(_ activity: SyncActivity) -> (phase: String, done: Int, total: Int) {
        switch activity {
        case .reachingCloud: ("Reaching the cloud", 0, 0)
        case .downloading: ("Receiving", 0, 0)
        case .merging(let words, let done): ("Merging", done, words)
        case .uploading(let words): ("Sending", 0, words)
        case .writingSnapshot(let words, let done, _): ("Writing a snapshot", done, words)
        case .tidying: ("Tidying", 0, 0)
        }
    }

    /// The restore report's lists of terms, for the preview and the result.
    static func restoreTermLists(_ report: RestoreReport) -> [(String, String)] {
        [
            ("addedTerms", JSONText.array(report.addedTerms)), ("updatedTerms", JSONText.array(report.updatedTerms)),
            ("trashedTerms", JSONText.array(report.trashedTerms)), ("listedTerms", String(RestoreReport.listedTerms)),
        ]
    }
}
