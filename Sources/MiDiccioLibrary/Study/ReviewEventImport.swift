import MiDiccioModel
import MiDiccioStore

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
        /// More than `refreshLimit` words got one: the cache is better rebuilt in one pass,
        /// and the caller must empty it (`refreshStudyCache(after:)`). The time index,
        /// when the import dropped it, is made again with the cache (`ensureStudyCache`).
        case many
    }

    /// The most words whose schedules are derived again one by one after an import.
    package static let refreshLimit = 1_000

    private let library: WordLibrary
    private let statement: Statement
    private var pending: Int64
    private let purged: Set<WordID>
    /// `purged` packed as the bulk path packs ids, made at its first event (a sync with
    /// no events never pays for a library's purged ids).
    private lazy var purgedKeys = Set(purged.map { id in id.bytes.withUnsafeBytes { PackedWordID($0) } })
    private let rebuildsTimeIndex: Bool
    private var changedWords = Set<WordID>()
    private var changedMany = false
    /// Events stored so far that were not here before.
    package private(set) var added = 0
    /// Events read in place and not stored yet, at most `chunkRows`.
    private var rows: [Row] = []
    private let chunk: Statement
    /// Rows one statement of the bulk path stores: per-row work inside SQLite (a program
    /// started and reset per row) was a fifth of storing a million events.
    static let chunkRows = 32
    /// Device numbers found so far.
    private var numbers: [String: Int64] = [:]

    /// Starts an import of about `expected` events; call inside `writing`, and `finish()`
    /// before the transaction ends.
    init(library: WordLibrary, expected: Int, pending: Bool, purged: Set<WordID>) throws {
        self.library = library
        statement = try library.database.cached(
            "INSERT OR IGNORE INTO reviews (word, time, device, grade, seconds, pending) VALUES (?, ?, ?, ?, ?, ?)")
        chunk = try library.database.cached(
            "INSERT OR IGNORE INTO reviews (word, time, device, grade, seconds, pending) VALUES "
                + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: Self.chunkRows).joined(separator: ", "))
        rows.reserveCapacity(Self.chunkRows)
        self.pending = pending ? 1 : 0
        self.purged = purged
        // Many events at once (a new device's first sync): the time index is made again in
        // one sorted pass afterwards instead of taking each event at a random place.
        rebuildsTimeIndex = expected >= library.reviewTimeIndexRebuildFrom
        if rebuildsTimeIndex { try library.database.execute("DROP INDEX IF EXISTS reviews_time") }
    }

    /// Makes the events stored from now on wait to be uploaded, or not (a sync passes on
    /// the events of an id its library took over, as it does that id's words); those read
    /// before are stored first, as they were to be.
    package func setPending(_ value: Bool) throws {
        let flag: Int64 = value ? 1 : 0
        guard flag != pending else { return }
        try storeRows()
        pending = flag
    }

    /// The fewest events in key order worth reading on a second thread
    /// (`WordLibrary.reviewEventsReadAsideFrom`).
    package var readsAsideFrom: Int { library.reviewEventsReadAsideFrom }

    /// The numbers the reviews table knows `devices` by, in order (numbering the new ones).
    package func deviceNumbers(for devices: [String]) throws -> [Int64] {
        try devices.map { try number(of: $0) }
    }

    /// Stores one event read in place; `devices` numbers the table its device index points
    /// into (`deviceNumbers(for:)`). Fastest when events come in key order (word id, then
    /// time).
    package func insert(_ event: ReviewEventBytes, devices: [Int64]) throws {
        var row = Row(
            word: PackedWordID(), time: event.time, device: devices[event.device], grade: Int64(event.grade.rawValue),
            seconds: Int64(event.seconds))
        withUnsafeMutableBytes(of: &row.word) { WordID.pack(event.wordID, into: $0) }
        if !purged.isEmpty, purgedKeys.contains(row.word) { return }
        rows.append(row)
        if rows.count == Self.chunkRows { try storeRows() }
    }

    /// Stores events read on another thread (`ReviewEventRow`, in key order); `devices` as
    /// for `insert(_:devices:)`.
    package func insert(_ events: [ReviewEventRow], devices: [Int64]) throws {
        for event in events {
            if !purged.isEmpty, purgedKeys.contains(event.word) { continue }
            rows.append(Row(word: event.word, time: event.time, device: devices[event.device], grade: event.grade, seconds: event.seconds))
            if rows.count == Self.chunkRows { try storeRows() }
        }
    }

    /// Stores the rows read so far: a whole chunk in one statement, fewer one by one.
    /// Words of a chunk that added any row count as changed (a word whose schedule is
    /// derived again without need gets the same schedule).
    private func storeRows() throws {
        guard !rows.isEmpty else { return }
        var added = 0
        if rows.count == Self.chunkRows {
            for (index, row) in rows.enumerated() { try bind(row, to: chunk, at: Int32(index * 6)) }
            try chunk.runBound()
            added = library.database.changes
        } else {
            for row in rows {
                try bind(row, to: statement, at: 0)
                try statement.runBound()
                added += library.database.changes
            }
        }
        if added > 0 && !changedMany {
            var last: PackedWordID?
            for row in rows where last != row.word {
                last = row.word
                if let id = withUnsafeBytes(of: row.word, { WordID(bytes: $0) }) { noteChanged(id) }
            }
        }
        self.added += added
        rows.removeAll(keepingCapacity: true)
    }

    private func bind(_ row: Row, to statement: Statement, at offset: Int32) throws {
        try withUnsafeBytes(of: row.word) { try statement.bind(blob: $0, at: offset + 1) }
        try statement.bind(row.time, at: offset + 2)
        try statement.bind(row.device, at: offset + 3)
        try statement.bind(row.grade, at: offset + 4)
        try statement.bind(Self.keptSeconds(row.seconds), at: offset + 5)
        try statement.bind(pending, at: offset + 6)
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
                ($0.wordID.rawValue, $0.time.milliseconds, $0.device, $0.grade.rawValue, $0.seconds)
                    < ($1.wordID.rawValue, $1.time.milliseconds, $1.device, $1.grade.rawValue, $1.seconds)
            }
        for event in ordered where purged.isEmpty || !purged.contains(event.wordID) {
            try statement.bind(.blob(event.wordID.bytes), at: 1)
            try statement.bind(event.time.milliseconds, at: 2)
            try statement.bind(try number(of: event.device), at: 3)
            try statement.bind(Int64(event.grade.rawValue), at: 4)
            try statement.bind(Self.keptSeconds(Int64(event.seconds)), at: 5)
            try statement.bind(pending, at: 6)
            try statement.runBound()
            let stored = library.database.changes
            added += stored
            if stored > 0, !changedMany { noteChanged(event.wordID) }
        }
    }

    /// Stores what is left and says which words got a new event. The schedule cache is
    /// left to the caller (`refreshStudyCache(after:)`). A time index dropped for many
    /// events is made again here when few words changed; when many did, it is made with
    /// the schedule cache, which is rebuilt then anyway: the first queue or stats after a
    /// new device's first sync builds both (the sync of a million events took 0.7 s
    /// longer for it, the queue takes as much more).
    package func finish() throws -> Changed {
        try storeRows()
        if rebuildsTimeIndex && !changedMany { try library.database.execute(Self.createTimeIndex) }
        return changedMany ? .many : .words(changedWords)
    }

    /// The time index as the schema makes it.
    static let createTimeIndex = "CREATE INDEX IF NOT EXISTS reviews_time ON reviews (time)"

    private func number(of device: String) throws -> Int64 {
        if let number = numbers[device] { return number }
        let database = library.database
        try database.run("INSERT OR IGNORE INTO review_devices (id) VALUES (?)", [.text(device)])
        let number = try database.integer("SELECT num FROM review_devices WHERE id = ?", [.text(device)]) ?? 0
        numbers[device] = number
        return number
    }

    /// `seconds` within 0 and a day (`ReviewEvent.longestSeconds`), as an answer given here
    /// and a backup's keep them: the seconds are part of an event's key, so an answer an
    /// older MiDiccio recorded as taking longer comes in as one event whichever way it
    /// arrives (a sync, a backup).
    static func keptSeconds(_ seconds: Int64) -> Int64 {
        min(max(0, seconds), Int64(ReviewEvent.longestSeconds))
    }

    /// One event of the bulk path, its word id packed into 16 bytes.
    private struct Row {
        var word: PackedWordID
        var time: Int64
        var device: Int64
        var grade: Int64
        var seconds: Int64
    }

    private func noteChanged(_ id: WordID) {
        changedWords.insert(id)
        if changedWords.count > Self.refreshLimit {
            changedMany = true
            changedWords = []
        }
    }
}

/// A word id's 16 bytes as two words, laid out as the bytes (`WordID.pack`).
/// One review event as a batch file holds it, made on the thread that reads the file
/// (`ReviewEventBytes` copied out of the buffer, its id packed), for the thread that
/// stores it.
package struct ReviewEventRow: Sendable {
    /// The word id's 16 bytes.
    fileprivate var word: PackedWordID
    /// When the answer was given, in milliseconds.
    fileprivate var time: Int64
    /// The index of its device in the table the events were read with.
    fileprivate var device: Int
    /// The grade's number.
    fileprivate var grade: Int64
    /// How long the answer took, in whole seconds.
    fileprivate var seconds: Int64

    /// The row of the event `bytes` shows.
    package init(_ bytes: ReviewEventBytes) {
        word = PackedWordID()
        withUnsafeMutableBytes(of: &word) { WordID.pack(bytes.wordID, into: $0) }
        time = bytes.time
        device = bytes.device
        grade = Int64(bytes.grade.rawValue)
        seconds = Int64(bytes.seconds)
    }
}

private struct PackedWordID: Hashable, Sendable {
    var high: UInt64 = 0
    var low: UInt64 = 0

    init() {}

    /// The first 16 bytes of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer) {
        high = bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
        low = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    }
}

extension WordLibrary {
    /// Runs `body` with an import of about `expected` review events and finishes it (the
    /// time index made again); returns which words got a new event, and how many events
    /// were new here. Call inside `writing`.
    package func importingReviewEvents(
        expected: Int, pending: Bool, purged: Set<WordID> = [], _ body: (ReviewEventImport) throws -> Void
    ) throws -> (changed: ReviewEventImport.Changed, added: Int) {
        let importer = try ReviewEventImport(library: self, expected: expected, pending: pending, purged: purged)
        try body(importer)
        let changed = try importer.finish()
        return (changed, importer.added)
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
