import Foundation
import MiDiccioModel
import MiDiccioStore

/// A word's place in today's study: the word and its derived schedule.
public struct StudyCard: Hashable, Sendable {
    /// The word.
    public var word: Word
    /// Its schedule, derived from its review events.
    public var schedule: StudySchedule
}

/// What there is to study now.
public struct StudyQueue: Sendable {
    /// Words due now (learning, relearning and review), the earliest due first, within the
    /// reviews left today.
    public var due: [StudyCard]
    /// New words, oldest first, within the new words left today.
    public var new: [StudyCard]
    /// When the next word falls due after now (nil: none scheduled), for "come back at".
    public var nextDue: Timestamp?
    /// New words studied today, and reviews answered today.
    public var studiedToday: (new: Int, reviews: Int)
    /// Words due now that today's review limit (`study.reviewsPerDay`) holds back: with
    /// none left to show, the limit is why, not "nothing is scheduled".
    public var dueBeyondLimit = 0

    /// The cards in the order to show them: due words first, then new ones.
    public var cards: [StudyCard] { due + new }
}

// MARK: - Reviewing

extension WordLibrary {
    /// The scheduler this library uses: FSRS-6 with its default parameters and the
    /// synced desired retention.
    public func scheduler() throws -> FSRSScheduler {
        FSRSScheduler(desiredRetention: Double(try setting(.desiredRetention)) ?? 0.9)
    }

    /// Records an answer to word `id` now (as an immutable event by this device) and
    /// returns its new schedule. A word in the Trash cannot be studied.
    @discardableResult
    public func review(_ id: WordID, grade: ReviewGrade, seconds: Int = 0) throws -> StudySchedule {
        try answer(id, grade: grade, seconds: seconds).schedule
    }

    /// Records an answer to word `id` now, as `review` does, and returns the event with the
    /// new schedule: the event is what `undoReview(_:)` takes back, this answer and no other.
    ///
    /// `expectingReviews` is how many answers the word had when its card was shown: when
    /// it has another number (the card was answered meanwhile in another tab, window or
    /// device), nothing is recorded and `LibraryError.answeredMeanwhile` says so. Two tabs
    /// showing one card both recorded an answer, which moved it further out than either
    /// meant (found by the exploratory helper, round 8).
    public func answer(
        _ id: WordID, grade: ReviewGrade, seconds: Int = 0, expectingReviews: Int? = nil
    ) throws -> (event: ReviewEvent, schedule: StudySchedule) {
        try writing {
            guard let stored = try stored(id) else { throw LibraryError.wordNotFound(id.rawValue) }
            guard !stored.word.isDeleted else {
                throw LibraryError.wrongTrashState(id, term: stored.word.term, inTrash: true)
            }
            if let expectingReviews,
                try database.integer("SELECT count(*) FROM reviews WHERE word = ?", [.blob(id.bytes)]) != Int64(expectingReviews)
            {
                throw LibraryError.answeredMeanwhile(term: stored.word.term)
            }
            // After every answer to the word known here, from any device, as an edit is after
            // every time known for its word: answers replay in time order, and one given on
            // a device whose clock is ahead ("easy", stamped hours on) outvoted a later
            // "again" given here after that answer had synced (found by the exploratory
            // helper, round 9). Two answers of one device never share a millisecond either,
            // so the event key stays unique. Stamped after the newest rather than now, an
            // answer goes up to a second further at random: two copies of one library file
            // (one device id until a sync notices) that answered the word alike would
            // otherwise both stamp newest + 1 ms, and make one event (round 23B #4).
            let last = try database.integer("SELECT max(time) FROM reviews WHERE word = ?", [.blob(id.bytes)])
            let now = clock.now().milliseconds, after = (last ?? Int64.min) &+ 1
            let time = Timestamp(milliseconds: now >= after ? now : after + Self.spread(randomID()))
            // At most a day (`longestSeconds`): a card left on a terminal overnight made an
            // answer every backup then refused (round 14B).
            let event = ReviewEvent(
                wordID: id, time: time, grade: grade, device: deviceID, seconds: min(max(0, seconds), ReviewEvent.longestSeconds))
            try insertReviewEvents([event], pending: true)
            return (event, try refreshStudyCache(of: [id])[id] ?? .new)
        }
    }

    /// 0 to 999 ms, from the random bytes of `id` (the library's id source, which a test
    /// or the simulation makes repeatable).
    static func spread(_ id: WordID) -> Int64 {
        let bytes = id.bytes
        return (Int64(bytes[0]) << 8 | Int64(bytes[1])) % 1000
    }

    /// The `library_info` key set while a sync sends this device's pending answers
    /// (`SyncStore.holdAnswersForSending`).
    static let answersSendingKey = "sync.answersSending"

    /// True while a sync is sending this device's pending answers, or stopped while it
    /// was (until the next sync settles that file): they may be on other devices already.
    public func answersBeingSent() throws -> Bool {
        try guarded { try info(Self.answersSendingKey) != nil }
    }

    /// Takes back this device's latest answer that has not left the device yet and
    /// returns it (nil: none). An answer already synced stays: other devices count it;
    /// so does one while a sync is sending it (`answersBeingSent`).
    /// A study session takes back its own answers with `undoReview(_:)` instead: the
    /// latest by time may be another program's, or one given days ago.
    @discardableResult
    public func undoLastReview() throws -> ReviewEvent? {
        try writing {
            var reader = try ReviewRows(database)
            let rows = try database.cached(
                """
                SELECT \(ReviewRows.columns) FROM reviews
                WHERE pending = 1 AND device = (SELECT num FROM review_devices WHERE id = ?) ORDER BY time DESC LIMIT 1
                """
            ).rows([.text(deviceID)]) { reader.event($0) }
            guard let event = rows.first ?? nil, try info(Self.answersSendingKey) == nil else { return nil }
            try removeReview(event)
            return event
        }
    }

    /// Takes back `event`, an answer this device gave, while it has not left the device
    /// (true); false when it is no longer here, was synced already, or a sync is sending
    /// it (`answersBeingSent`): other devices count it, so it stays.
    @discardableResult
    public func undoReview(_ event: ReviewEvent) throws -> Bool {
        try writing {
            guard event.device == deviceID, try info(Self.answersSendingKey) == nil,
                try database.integer(
                    """
                    SELECT 1 FROM reviews
                    WHERE word = ? AND time = ? AND device = (SELECT num FROM review_devices WHERE id = ?) AND pending = 1
                    """,
                    [.blob(event.wordID.bytes), .time(event.time), .text(deviceID)]) != nil
            else { return false }
            try removeReview(event)
            return true
        }
    }

    /// Deletes this device's `event`, not sent yet, and derives its word's schedule again.
    /// Its seconds are not matched: one device gives one answer to a word in a millisecond,
    /// and the web app names an answer without them (its undo took back nothing from the
    /// seconds being part of an answer's key, and said it had; found by the exploratory
    /// helper, round 25B #3). An answer alike of a copy of this library, synced here, is
    /// not pending, and stays. Call inside `writing`.
    private func removeReview(_ event: ReviewEvent) throws {
        try database.run(
            """
            DELETE FROM reviews
            WHERE word = ? AND time = ? AND device = (SELECT num FROM review_devices WHERE id = ?) AND grade = ? AND pending = 1
            """,
            [.blob(event.wordID.bytes), .time(event.time), .text(event.device), .integer(Int64(event.grade.rawValue))])
        try refreshStudyCache(of: [event.wordID])
    }

    /// Every review event of word `id`, in replay order.
    public func reviewEvents(of id: WordID) throws -> [ReviewEvent] {
        try guarded {
            var reader = try ReviewRows(database, word: id)
            return try database.cached("SELECT \(ReviewRows.columns) FROM reviews WHERE word = ?")
                .rows([.blob(id.bytes)]) { reader.event($0) }.compactMap(\.self).sorted(by: ReviewEvent.replayOrder)
        }
    }

    /// True when word `id` has any study answer here.
    package func hasAnswers(_ id: WordID) throws -> Bool {
        try database.integer("SELECT EXISTS (SELECT 1 FROM reviews WHERE word = ?)", [.blob(id.bytes)]) == 1
    }

    /// The schedule of word `id`, derived from its events now.
    public func studySchedule(of id: WordID) throws -> StudySchedule {
        try scheduler().schedule(of: id, events: try reviewEvents(of: id))
    }

    /// How many review events the library holds.
    public func reviewEventCount() throws -> Int {
        try guarded { Int(try database.integer("SELECT count(*) FROM reviews") ?? 0) }
    }

    // MARK: - Events in and out

    /// Stores events (ignoring those already here) without touching the cache; returns
    /// which words got a new one. Call inside `writing`, then `refreshStudyCache(after:)`.
    @discardableResult
    package func insertReviewEvents(_ events: [ReviewEvent], pending: Bool) throws -> ReviewEventImport.Changed {
        try importingReviewEvents(expected: events.count, pending: pending) { try $0.insert(events) }.changed
    }

    /// Every review event, in the order of time, then of device (for a backup): sorted
    /// once, by SQLite, the devices by their ids.
    package func allReviewEvents() throws -> [ReviewEvent] {
        var reader = try ReviewRows(database)
        return try database.cached(
            "SELECT \(ReviewRows.columns) FROM reviews JOIN review_devices ON review_devices.num = reviews.device ORDER BY time, id"
        ).rows([]) { reader.event($0) }.compactMap(\.self)
    }

    /// Adds a backup's review events that are not here, leaving out purged words'; returns
    /// how many it added. Call inside `writing`.
    @discardableResult
    package func restoreReviewEvents(_ events: [ReviewEvent]) throws -> Int {
        guard !events.isEmpty else { return 0 }
        let (changed, added) = try importingReviewEvents(expected: events.count, pending: true, purged: try purgedWordIDs()) {
            try $0.insert(events)
        }
        try refreshStudyCache(after: changed)
        return added
    }

    /// The ids of the words purged for good (their markers), which nothing brings back.
    package func purgedWordIDs() throws -> Set<WordID> {
        Set(try database.cached("SELECT id FROM purged").rows([]) { $0.text(0) }.compactMap(WordID.init))
    }

    /// Removes every event of a word (a purge). Call inside `writing`.
    package func removeReviewEvents(of id: WordID) throws {
        try database.run("DELETE FROM reviews WHERE word = ?", [.blob(id.bytes)])
        try database.run("DELETE FROM study_cache WHERE word_id = ?", [.text(id.rawValue)])
        try database.run("UPDATE words SET studied = 0 WHERE id = ? AND studied = 1", [.text(id.rawValue)])
    }

    // MARK: - The local cache

    /// Derives the schedules of `ids` again from their events and stores them in the
    /// cache the queue reads; returns them. Call inside `writing`.
    @discardableResult
    package func refreshStudyCache(of ids: some Sequence<WordID>) throws -> [WordID: StudySchedule] {
        let scheduler = try scheduler()
        try ensureStudyCache(for: scheduler)
        var result: [WordID: StudySchedule] = [:]
        for id in ids {
            let events = try reviewEvents(of: id)
            let schedule = scheduler.schedule(of: id, events: events)
            result[id] = schedule
            try storeInCache(id, schedule, firstReview: events.first?.time)
        }
        return result
    }

    private func storeInCache(
        _ id: WordID, _ schedule: StudySchedule, firstReview: Timestamp?, markingWord: Bool = true
    ) throws {
        guard let due = schedule.due, let firstReview else {
            try database.run("DELETE FROM study_cache WHERE word_id = ?", [.text(id.rawValue)])
            if markingWord {
                try database.run("UPDATE words SET studied = 0 WHERE id = ? AND studied = 1", [.text(id.rawValue)])
            }
            return
        }
        if markingWord {
            try database.run("UPDATE words SET studied = 1 WHERE id = ? AND studied = 0", [.text(id.rawValue)])
        }
        try database.run(
            """
            INSERT INTO study_cache (word_id, state, due, first_review, reviews) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (word_id) DO UPDATE SET state = excluded.state, due = excluded.due,
                first_review = excluded.first_review, reviews = excluded.reviews
            """,
            [
                .text(id.rawValue), .integer(Int64(StudyState.allCases.firstIndex(of: schedule.state) ?? 0)), .time(due),
                .time(firstReview), .integer(Int64(schedule.reviews)),
            ])
    }

    /// What `library_info` holds under `study.cache` when the cache was made for `scheduler`.
    static func studyCacheKey(_ scheduler: FSRSScheduler) -> String {
        "fsrs6 \(scheduler.desiredRetention)"
    }

    /// Brings the schedule cache up to date (`ensureStudyCache`), taking the write lock
    /// only when it is out of date. The study queue, the study figures and an export read
    /// the cache; with it current they no longer wait behind another program's long write
    /// (the web app's figures waited 9.9 s behind a bulk tag of 270,375 words).
    func makeStudyCacheCurrent(for scheduler: FSRSScheduler) throws {
        if try guarded({ try info("study.cache") }) == Self.studyCacheKey(scheduler) { return }
        try writing { try ensureStudyCache(for: scheduler) }
    }

    /// Rebuilds the whole cache when it was made with other scheduler settings (the
    /// desired retention changed here or on another device). Call inside `writing`.
    package func ensureStudyCache(for scheduler: FSRSScheduler) throws {
        let key = Self.studyCacheKey(scheduler)
        guard try info("study.cache") != key else { return }
        // An import of many events leaves the time index to be made here (`ReviewEventImport`).
        try database.execute(ReviewEventImport.createTimeIndex)
        try database.run("DELETE FROM study_cache")
        try database.run("UPDATE words SET studied = 0 WHERE studied = 1")
        var current: WordID?
        var events: [ReviewEvent] = []
        func flush() throws {
            guard let id = current else { return }
            events.sort(by: ReviewEvent.replayOrder)
            try storeInCache(
                id, scheduler.schedule(of: id, events: events), firstReview: events.first?.time, markingWord: false)
            events.removeAll(keepingCapacity: true)
        }
        var reader = try ReviewRows(database)
        try database.cached("SELECT \(ReviewRows.columns) FROM reviews ORDER BY word")
            .forEachRow { row in
                guard let event = reader.event(row) else { return }
                if event.wordID != current {
                    try flush()
                    current = event.wordID
                }
                events.append(event)
            }
        try flush()
        try database.run("UPDATE words SET studied = 1 WHERE id IN (SELECT word_id FROM study_cache)")
        try setInfo("study.cache", key)
    }

    // MARK: - The queue

    /// The start of the local day holding `time` (studied-today counts reset there), in
    /// the computer's time zone (`LocalDay`).
    public func startOfDay(_ time: Timestamp) -> Timestamp {
        LocalDay.start(of: time)
    }

    /// What to study now: due words (outside the Trash, with tag `tag` when given), then
    /// new words, within what is left of the daily limits (`newLimit` overrides the
    /// synced new-words limit for this session).
    public func studyQueue(tag: String? = nil, newLimit: Int? = nil, at time: Timestamp? = nil) throws -> StudyQueue {
        let now = time ?? clock.now()
        let scheduler = try scheduler()
        try makeStudyCacheCurrent(for: scheduler)
        return try guarded {
            try database.read {
                let dayStart = startOfDay(now), dayEnd = startOfDay(Timestamp(milliseconds: dayStart.milliseconds + 36 * 3_600_000))
                // Today's answers, and none stamped later: an answer given on a device whose
                // clock was years ahead counted as today's on every day until then, and took a
                // new word's place each day (found by the exploratory helper, round 20A #10).
                let today: [SQLValue] = [.time(dayStart), .time(dayEnd)]
                let newToday = Int(
                    try database.integer("SELECT count(*) FROM study_cache WHERE first_review >= ? AND first_review < ?", today) ?? 0)
                let reviewsToday =
                    Int(try database.integer("SELECT count(*) FROM reviews WHERE time >= ? AND time < ?", today) ?? 0) - newToday
                let reviewLimit = max(0, (Int(try setting(.reviewsPerDay)) ?? 200) - max(0, reviewsToday))
                let dailyNew = Int(try setting(.newPerDay)) ?? 20
                let newLeft = newLimit ?? max(0, dailyNew - newToday)
                let tagJoin = tag == nil ? "" : "JOIN word_tags t ON t.word_seq = w.seq AND t.tag_key = ?3"
                var values: [SQLValue] = [.time(now), .integer(Int64(reviewLimit))]
                if let tag { values.append(.text(TagSet.key(tag))) }
                let dueIDs = try database.cached(
                    """
                    SELECT c.word_id FROM study_cache c JOIN words w ON w.id = c.word_id \(tagJoin)
                    WHERE c.due <= ?1 AND w.deleted_at IS NULL ORDER BY c.due, c.word_id LIMIT ?2
                    """
                ).rows(values) { $0.text(0) }
                var newValues: [SQLValue] = [.null, .integer(Int64(newLeft))]
                if let tag { newValues.append(.text(TagSet.key(tag))) }
                let newIDs = try database.cached(
                    """
                    SELECT w.id FROM words w \(tagJoin)
                    WHERE w.deleted_at IS NULL AND w.studied = 0
                        AND NOT EXISTS (SELECT 1 FROM study_cache c WHERE c.word_id = w.id)
                    ORDER BY w.created_at, w.seq LIMIT ?2
                    """
                ).rows(newValues) { $0.text(0) }
                // With a tag, the next word due of that tag ("come back at" for it).
                var nextValues: [SQLValue] = [.time(now)]
                if let tag { nextValues += [.null, .text(TagSet.key(tag))] }
                let nextDue = try database.integer(
                    """
                    SELECT c.due FROM study_cache c JOIN words w ON w.id = c.word_id \(tagJoin)
                    WHERE c.due > ?1 AND w.deleted_at IS NULL ORDER BY c.due LIMIT 1
                    """, nextValues
                ).map { Timestamp(milliseconds: $0) }
                let due = try dueIDs.compactMap(WordID.init).compactMap { id -> StudyCard? in
                    guard let word = try stored(id)?.word else { return nil }
                    return StudyCard(word: word, schedule: scheduler.schedule(of: id, events: try reviewEvents(of: id)))
                }
                let new = try newIDs.compactMap(WordID.init).compactMap { id -> StudyCard? in
                    guard let word = try stored(id)?.word else { return nil }
                    return StudyCard(word: word, schedule: .new)
                }
                var queue = StudyQueue(due: due, new: new, nextDue: nextDue, studiedToday: (newToday, max(0, reviewsToday)))
                // Counted only when the limit cut the list: a word pressed "again" a minute
                // ago and held back read as "nothing is scheduled" (round 14B).
                if dueIDs.count == reviewLimit {
                    let allDue =
                        try database.integer(
                            """
                            SELECT count(*) FROM study_cache c JOIN words w ON w.id = c.word_id \(tagJoin)
                            WHERE c.due <= ?1 AND w.deleted_at IS NULL
                            """, nextValues) ?? 0
                    queue.dueBeyondLimit = max(0, Int(allDue) - dueIDs.count)
                }
                return queue
            }
        }
    }
}

/// Makes events from rows of `columns`, one string per word and per device shared by
/// all their events (a cache rebuild reads a million rows).
struct ReviewRows {
    /// The columns `event(_:)` reads, in order.
    static let columns = "word, time, device, grade, seconds"

    private var devices: [Int64: String] = [:]
    private var lastWord: [UInt8] = []
    private var lastID: WordID?

    /// A reader of rows of `database`'s reviews; `word` when every row is that word's.
    init(_ database: Database, word: WordID? = nil) throws {
        for (num, id) in try database.cached("SELECT num, id FROM review_devices").rows([], { ($0.int64(0), $0.text(1)) }) {
            devices[num] = id
        }
        if let word {
            lastWord = word.bytes
            lastID = word
        }
    }

    /// The event in `row`; nil for a row no event could have written.
    mutating func event(_ row: Statement) -> ReviewEvent? {
        let same = row.withBytes(0) { $0.elementsEqual(lastWord) }
        if !same {
            lastWord = row.bytes(0)
            lastID = WordID(bytes: lastWord)
        }
        guard let id = lastID, let device = devices[row.int64(2)], let grade = ReviewGrade(rawValue: Int(row.int64(3))) else {
            return nil
        }
        return ReviewEvent(
            wordID: id, time: Timestamp(milliseconds: row.int64(1)), grade: grade, device: device, seconds: Int(row.int64(4)))
    }
}
