import MiDiccioModel
import MiDiccioStore

/// Study progress, as `midiccio stats` and the web app's charts show it.
public struct StudyStats: Sendable {
    /// One day's figure.
    public struct Day: Hashable, Sendable {
        /// The start of the local day.
        public var start: Timestamp
        /// The count that day.
        public var count: Int
    }

    /// Answers given each day of the last 30 days, oldest first (today last).
    public var reviewsPerDay: [Day]
    /// Words falling due each of the next 14 days, today first (today includes overdue).
    public var forecast: [Day]
    /// The share of answers to words last seen a day or more before that were not
    /// "again", over the last 30 days (nil: no such answer).
    public var trueRetention: Double?
    /// How many such answers `trueRetention` is made of.
    public var retentionAnswers: Int
    /// Words outside the Trash by study state.
    public var counts: [StudyState: Int]
}

extension WordLibrary {
    /// The study figures at `time` (now by default).
    public func studyStats(at time: Timestamp? = nil) throws -> StudyStats {
        let now = time ?? clock.now()
        let scheduler = try scheduler()
        try makeStudyCacheCurrent(for: scheduler)
        return try guarded {
            try database.read {
                let today = startOfDay(now)
                // Local days are not always 24 hours long (daylight saving): each start is
                // worked out from a time in the middle of the day.
                func dayStart(_ offset: Int) -> Timestamp {
                    startOfDay(Timestamp(milliseconds: today.milliseconds + Int64(offset) * 86_400_000 + 43_200_000))
                }
                var reviews: [StudyStats.Day] = []
                for offset in -29...0 {
                    let start = dayStart(offset), end = dayStart(offset + 1)
                    let count =
                        try database.integer(
                            "SELECT count(*) FROM reviews WHERE time >= ? AND time < ?", [.time(start), .time(end)]) ?? 0
                    reviews.append(StudyStats.Day(start: start, count: Int(count)))
                }
                var forecast: [StudyStats.Day] = []
                for offset in 0..<14 {
                    let start = dayStart(offset), end = dayStart(offset + 1)
                    let count =
                        try database.integer(
                            """
                            SELECT count(*) FROM study_cache c JOIN words w ON w.id = c.word_id
                            WHERE c.due >= ? AND c.due < ? AND w.deleted_at IS NULL
                            """, [.time(offset == 0 ? Timestamp(milliseconds: Int64.min) : start), .time(end)]) ?? 0
                    forecast.append(StudyStats.Day(start: start, count: Int(count)))
                }
                // True retention as Anki defines it: answers to words whose previous answer
                // was at least a day before, passed (anything but "again") or not.
                var passed = 0, total = 0
                try database.cached(
                    """
                    SELECT grade, time - previous FROM (
                        SELECT grade, time, lag(time) OVER (PARTITION BY word ORDER BY time, device) AS previous
                        FROM reviews WHERE word IN (SELECT word FROM reviews WHERE time >= ?1)
                    ) WHERE time >= ?1 AND previous IS NOT NULL AND time - previous >= 86400000
                    """
                ).forEachRow([.time(dayStart(-29))]) { row in
                    total += 1
                    if row.int64(0) > 1 { passed += 1 }
                }
                var counts: [StudyState: Int] = [:]
                try database.cached(
                    """
                    SELECT c.state, count(*) FROM study_cache c JOIN words w ON w.id = c.word_id
                    WHERE w.deleted_at IS NULL GROUP BY c.state
                    """
                ).forEachRow { row in
                    let index = Int(row.int64(0))
                    if StudyState.allCases.indices.contains(index) { counts[StudyState.allCases[index]] = Int(row.int64(1)) }
                }
                let studied = counts.values.reduce(0, +)
                counts[.new] = (try self.counts().words) - studied
                return StudyStats(
                    reviewsPerDay: reviews, forecast: forecast, trueRetention: total == 0 ? nil : Double(passed) / Double(total),
                    retentionAnswers: total, counts: counts)
            }
        }
    }
}
