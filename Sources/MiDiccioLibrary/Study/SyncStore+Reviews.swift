import MiDiccioModel
import MiDiccioStore

// Review events as sync sees them: they travel as they are, are never merged (an event
// is either here or not), and a word's schedule is derived again when one arrives.
extension SyncStore {
    /// Review events, all of them or only those not uploaded yet, in the table's key order
    /// (word id, time, device, grade, seconds): a reader stores them as they come, each row next to
    /// the previous one, with no sort (`ReviewEventImport`).
    package func reviewEvents(pendingOnly: Bool) throws -> [ReviewEvent] {
        try library.guarded {
            // The pending ones through their partial index, sorted after: the planner would
            // otherwise walk the whole table in key order to skip the sort.
            var reader = try ReviewRows(library.database)
            let sql =
                pendingOnly
                ? """
                SELECT \(ReviewRows.columns) FROM reviews INDEXED BY reviews_pending
                WHERE pending = 1 ORDER BY word, time, device, grade, seconds
                """
                : "SELECT \(ReviewRows.columns) FROM reviews ORDER BY word, time, device, grade, seconds"
            return try library.database.cached(sql).rows([]) { reader.event($0) }.compactMap(\.self)
        }
    }

    /// Stores events from other devices (those already here are ignored, those of purged
    /// words dropped) and derives the schedules of the words they touch again. Call
    /// inside `write`.
    package func merge(_ events: [ReviewEvent], purged: Set<WordID>) throws {
        guard !events.isEmpty else { return }
        try mergeReviewEvents(expected: events.count, purged: purged) { try $0.insert(events) }
    }

    /// Stores the events `body` hands to the import (about `expected` of them, from other
    /// devices: not pending), then derives the schedules of the words they touch again;
    /// after a first sync of a studied library (more than `ReviewEventImport.refreshLimit`
    /// words), by emptying the cache, which the first queue builds in one pass. Call
    /// inside `write`. Returns how many of them were new here.
    ///
    /// With `restartingTrashDaysAt`, a word in the Trash here that a new answer reached
    /// counts its days in the Trash again from then, as one another device edited there
    /// does: that device studied it while it was not in its Trash, and the note it got
    /// said its answers were kept there. The clean-up took the word and the answers hours
    /// later, with what was left of the days (found by the exploratory helper, round 23B
    /// #1). After answers to more words than `ReviewEventImport.refreshLimit`, every word
    /// in the Trash counts again.
    ///
    /// `answered`, when given, hears the words that got a new answer, when they are no
    /// more than `ReviewEventImport.refreshLimit`.
    @discardableResult
    package func mergeReviewEvents(
        expected: Int, purged: Set<WordID>, restartingTrashDaysAt now: Int64? = nil, answered: ((Set<WordID>) -> Void)? = nil,
        _ body: (ReviewEventImport) throws -> Void
    ) throws -> Int {
        try library.guarded {
            let (changed, added) = try library.importingReviewEvents(expected: expected, pending: false, purged: purged, body)
            try library.refreshStudyCache(after: changed)
            if case .words(let ids) = changed, added > 0 { answered?(ids) }
            if let now, added > 0 {
                let restart = "UPDATE words SET trash_seen_at = max(trash_seen_at, ?) WHERE trash_seen_at IS NOT NULL"
                switch changed {
                case .many:
                    try library.database.run(restart, [.integer(now)])
                case .words(let ids):
                    let statement = try library.database.cached(restart + " AND id = ?")
                    for id in ids { try library.database.run(statement, [.integer(now), .text(id.rawValue)]) }
                }
            }
            return added
        }
    }

    /// Holds (or lets go of) this device's pending answers while a sync sends them: set
    /// before the sync reads them for a file, cleared once that file is settled (written
    /// and noted, or found not written). Meanwhile `undoReview` refuses: an answer taken
    /// back as its file went up stayed counted on every other device, and the devices never
    /// agreed again (found by the exploratory helper, round 14B). Call inside `write`.
    package func holdAnswersForSending(_ hold: Bool) throws {
        try library.guarded {
            if hold {
                try library.setInfo(WordLibrary.answersSendingKey, "1")
            } else {
                try library.database.run("DELETE FROM library_info WHERE key = ?", [.text(WordLibrary.answersSendingKey)])
            }
        }
    }

    /// True when this device has answers not uploaded yet.
    package func hasPendingReviewEvents() throws -> Bool {
        try library.guarded {
            try library.database.integer("SELECT EXISTS (SELECT 1 FROM reviews INDEXED BY reviews_pending WHERE pending = 1)") == 1
        }
    }

    /// Marks uploaded events as no longer pending. Call inside `write`.
    package func markReviewEventsUploaded(_ events: [ReviewEvent]) throws {
        try library.guarded {
            for event in events {
                try library.database.run(
                    """
                    UPDATE reviews SET pending = 0
                    WHERE word = ? AND time = ? AND device = (SELECT num FROM review_devices WHERE id = ?) AND grade = ?
                    """,
                    [.blob(event.wordID.bytes), .time(event.time), .text(event.device), .integer(Int64(event.grade.rawValue))])
            }
        }
    }
}
