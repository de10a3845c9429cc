import MiDiccioModel
import MiDiccioStore

// Review events as sync sees them: they travel as they are, are never merged (an event
// is either here or not), and a word's schedule is derived again when one arrives.
extension SyncStore {
    /// Review events, all of them or only those not uploaded yet, in the order of time.
    package func reviewEvents(pendingOnly: Bool) throws -> [ReviewEvent] {
        try library.guarded {
            let sql =
                pendingOnly
                ? "SELECT word_id, time, device, grade, seconds FROM reviews WHERE pending = 1 ORDER BY time"
                : "SELECT word_id, time, device, grade, seconds FROM reviews ORDER BY time"
            return try library.database.cached(sql).rows([], WordLibrary.reviewEvent).compactMap(\.self)
        }
    }

    /// Stores events from other devices (those already here are ignored, those of purged
    /// words dropped) and derives the schedules of the words they touch again. Call
    /// inside `write`; returns how many words got a new event.
    @discardableResult
    package func merge(_ events: [ReviewEvent], purged: Set<WordID>) throws -> Int {
        guard !events.isEmpty else { return 0 }
        return try library.guarded {
            let changed = try library.insertReviewEvents(events.filter { !purged.contains($0.wordID) }, pending: false)
            if changed.count > 1_000 {
                // A first sync of a studied library: the cache is built in one pass when the
                // queue is first asked for, not word by word here.
                try library.setInfo("study.cache", "")
            } else {
                try library.refreshStudyCache(of: changed)
            }
            return changed.count
        }
    }

    /// Marks uploaded events as no longer pending. Call inside `write`.
    package func markReviewEventsUploaded(_ events: [ReviewEvent]) throws {
        try library.guarded {
            for event in events {
                try library.database.run(
                    "UPDATE reviews SET pending = 0 WHERE word_id = ? AND time = ? AND device = ? AND grade = ?",
                    [.text(event.wordID.rawValue), .time(event.time), .text(event.device), .integer(Int64(event.grade.rawValue))])
            }
        }
    }
}
