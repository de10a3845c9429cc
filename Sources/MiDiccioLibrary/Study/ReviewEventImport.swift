import MiDiccioModel
import MiDiccioStore

/// One review event where a batch file holds it, read in place: valid only during the
/// call it is handed to. A new device's first sync stores a million of these without
/// making a `ReviewEvent` (two strings) for each.
package struct ReviewEventBytes {
    /// The word id's text: 36 bytes, already checked and lowercase.
    package var wordID: UnsafeRawBufferPointer
    /// When the answer was given, in milliseconds.
    package var time: Int64
    /// The device that recorded it, as an index into the device table it was read with.
    package var device: Int
    /// The answer.
    package var grade: ReviewGrade
    /// How long the answer took, in whole seconds.
    package var seconds: Int

    /// Makes the view of one event.
    package init(wordID: UnsafeRawBufferPointer, time: Int64, device: Int, grade: ReviewGrade, seconds: Int) {
        self.wordID = wordID
        self.time = time
        self.device = device
        self.grade = grade
        self.seconds = seconds
    }
}

/// Stores review events inside one write transaction, with one prepared statement:
/// events already here are ignored (an event is immutable and identified by word, time,
/// device and grade), events of purged words are left out.
///
/// Two ways in, one statement: `insert(_:devices:)` takes events one at a time as a batch
/// file holds them, in key order (the bulk path of a first sync: each row lands next to
/// the previous one, and no event is made whole); `insert(_:)` takes made events in any
/// order and sorts them first (answers, backups, and files written before events went
/// in key order). Both give the same rows.
package final class ReviewEventImport {
    /// What the import added, for the schedule cache.
    package enum Changed: Equatable {
        /// These words got a new event (few enough to derive their schedules one by one).
        case words(Set<WordID>)
        /// More than `refreshLimit` words got one: the cache is better rebuilt in one pass.
        case many
    }

    /// The most words whose schedules are derived again one by one after an import.
    package static let refreshLimit = 1_000

    private let library: WordLibrary
    private let statement: Statement
    private let pending: Int64
    private let purged: Set<String>
    private let rebuildsTimeIndex: Bool
    private var changedWords = Set<WordID>()
    private var changedMany = false
    /// The id of the word last counted as changed (events come grouped by word).
    private var lastChanged: [UInt8] = []

    /// Starts an import of about `expected` events; call inside `writing`, and `finish()`
    /// before the transaction ends.
    init(library: WordLibrary, expected: Int, pending: Bool, purged: Set<WordID>) throws {
        self.library = library
        statement = try library.database.cached(
            "INSERT OR IGNORE INTO reviews (word_id, time, device, grade, seconds, pending) VALUES (?, ?, ?, ?, ?, ?)")
        self.pending = pending ? 1 : 0
        self.purged = Set(purged.map(\.rawValue))
        // Many events at once (a new device's first sync): the time index is made again in
        // one sorted pass afterwards instead of taking each event at a random place.
        rebuildsTimeIndex = expected >= library.reviewTimeIndexRebuildFrom
        if rebuildsTimeIndex { try library.database.execute("DROP INDEX IF EXISTS reviews_time") }
    }

    /// Stores one event read in place; `devices` is the table its device index points
    /// into. Fastest when events come in key order (word id, time, device, grade).
    package func insert(_ event: ReviewEventBytes, devices: [String]) throws {
        if !purged.isEmpty, purged.contains(String(decoding: event.wordID, as: UTF8.self)) { return }
        try statement.bind(utf8: event.wordID, at: 1)
        try statement.bind(event.time, at: 2)
        try statement.bind(.text(devices[event.device]), at: 3)
        try statement.bind(Int64(event.grade.rawValue), at: 4)
        try statement.bind(Int64(event.seconds), at: 5)
        try statement.bind(pending, at: 6)
        try statement.runBound()
        guard library.database.changes > 0, !changedMany, !event.wordID.elementsEqual(lastChanged) else { return }
        lastChanged = Array(event.wordID)
        noteChanged(WordID(uncheckedRawValue: String(decoding: event.wordID, as: UTF8.self)))
    }

    /// Stores made events, in key order (sorted here first).
    package func insert(_ events: [ReviewEvent]) throws {
        // In key order, each insert lands next to the previous one in the table's B-tree
        // (a file of an older writer brings a million events in time order, scattered
        // over the words).
        let ordered =
            events.count < 2
            ? events
            : events.sorted {
                ($0.wordID.rawValue, $0.time.milliseconds, $0.device, $0.grade.rawValue)
                    < ($1.wordID.rawValue, $1.time.milliseconds, $1.device, $1.grade.rawValue)
            }
        for event in ordered where purged.isEmpty || !purged.contains(event.wordID.rawValue) {
            try statement.bind(.text(event.wordID.rawValue), at: 1)
            try statement.bind(event.time.milliseconds, at: 2)
            try statement.bind(.text(event.device), at: 3)
            try statement.bind(Int64(event.grade.rawValue), at: 4)
            try statement.bind(Int64(event.seconds), at: 5)
            try statement.bind(pending, at: 6)
            try statement.runBound()
            if library.database.changes > 0, !changedMany { noteChanged(event.wordID) }
        }
    }

    /// Makes the time index again when it was dropped, and says which words got a new
    /// event. The schedule cache is left to the caller (`refreshStudyCache(after:)`).
    package func finish() throws -> Changed {
        if rebuildsTimeIndex { try library.database.execute("CREATE INDEX IF NOT EXISTS reviews_time ON reviews (time)") }
        return changedMany ? .many : .words(changedWords)
    }

    private func noteChanged(_ id: WordID) {
        changedWords.insert(id)
        if changedWords.count > Self.refreshLimit {
            changedMany = true
            changedWords = []
        }
    }
}

extension WordLibrary {
    /// Runs `body` with an import of about `expected` review events and finishes it (the
    /// time index made again); returns which words got a new event. Call inside `writing`.
    package func importingReviewEvents(
        expected: Int, pending: Bool, purged: Set<WordID> = [], _ body: (ReviewEventImport) throws -> Void
    ) throws -> ReviewEventImport.Changed {
        let importer = try ReviewEventImport(library: self, expected: expected, pending: pending, purged: purged)
        try body(importer)
        return try importer.finish()
    }

    /// Derives again the schedules of the words an import changed: one by one for a few,
    /// or by emptying the cache, which the next queue builds again in one pass. Call
    /// inside `writing`.
    package func refreshStudyCache(after changed: ReviewEventImport.Changed) throws {
        switch changed {
        case .many: try setInfo("study.cache", "")
        case .words(let ids): if !ids.isEmpty { try refreshStudyCache(of: ids) }
        }
    }
}
