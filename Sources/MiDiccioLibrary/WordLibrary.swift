import Foundation
import MiDiccioFiles
import MiDiccioModel
import MiDiccioStore

/// A person's word list: one SQLite file. Every operation the app offers starts here.
///
/// All writes are transactions: a failed operation leaves the library as it was. Local
/// edits mark words pending and give them a time that is newer than anything known for
/// that word (`max(now, updatedAt + 1 ms)`), so "newer" always means "made later".
/// Not thread-safe: use one `WordLibrary` per thread (several may open one file).
public final class WordLibrary {
    /// The library file.
    public let path: String
    /// True when this call created the library.
    public let isNew: Bool
    /// The library schema an earlier MiDiccio had left the file at, when this open brought
    /// it up to date (older builds can no longer open it); nil otherwise.
    public let upgradedFrom: Int?
    package let database: Database
    package let clock: any Clock
    let collation: TermCollation
    let randomID: () -> WordID
    /// Makes device ids: this library's first, and a new one when it finds it is a copy.
    let randomDeviceID: () -> WordID
    /// Statements every save runs, prepared once (an import runs them 100,000 times).
    private lazy var hot = HotStatements(database: database)
    private var changeCounter: Int64?
    private var digest: UInt64?
    /// Words in and out of the Trash, while a write changes them (see `counts()`).
    private var tally: WordTally?
    /// While `writing` runs: the search-index changes held back to its end (nil outside a
    /// write, where each is made at once).
    private var searchChanges: SearchChanges?
    /// How many words' search-index changes a write holds back at most
    /// (`SearchChanges`). Tests lower it to make them several times in one write.
    package var searchChangesHeldBack = 4_096
    /// The page cache of a bulk write, in KiB.
    static let bulkCacheKiB = 20_480
    /// How many words a bulk action reads at once (`forEachBulkWord`); tests make it
    /// small to cross several reads with a few words.
    package var bulkWordsPerRead = 1_000
    /// The size of FTS5's table of pending index entries while a bulk write builds them
    /// (each time it fills, FTS5 writes them out as a segment of the index). Tests lower
    /// it to make several segments from a few words.
    package var bulkSearchHashBytes = 8 << 20
    /// How many segments of one level FTS5 lets pile up while a bulk write that merges
    /// them at its end builds the search index (a million words made 24 of 8 MB).
    static let bulkSearchCrisisMerge = 200
    /// How many segments of one level FTS5 merges into one as it writes (its default
    /// `automerge`), and so the fewest a bulk write merges at its end.
    static let searchMergeFrom = 4

    /// Whether `midiccio_tag_key` (TagSet.key) is defined on this connection.
    private var bulkTagKeyDefined = false

    /// False makes `writingInBulk` write word by word, and a restore into an empty library
    /// look each word up as any restore does (tests compare the two).
    package var usesBulkWrites = true

    /// When true, a purge (`purge`, `emptyTrash`, `autoPurge`, a bulk purge) commits and
    /// returns, leaving the scrub of its words' text owed (`scrubIfOwed`) to a caller that
    /// runs it apart: the web app, whose background thread scrubs within a second, so
    /// "Delete permanently" answers at once. The scrub rewrites the whole search index
    /// (about 4 s at a million words) whatever the number of words purged.
    package var scrubsLater = false
    /// The fewest words `writingInBulk` builds the indexes again for (below it, putting
    /// rows into the indexes one by one costs less than sorting the whole table). Tests
    /// lower it to check small writes the same way.
    package var deferredIndexesFrom = 2_000
    /// The fewest review events an import drops the time index for and makes it again
    /// afterwards in one sorted pass (`ReviewEventImport`). Tests lower it to check small
    /// imports the same way.
    package var reviewTimeIndexRebuildFrom = 50_000
    /// The fewest review events in key order a sync reads on a second thread while this
    /// one stores the batch's words (`SyncBatch.forEachRecord(_:recordsDone:thenEventsInto:recordsAsideFrom:columnsLocale:)`). Tests
    /// lower it to check small batches the same way.
    package var reviewEventsReadAsideFrom = 20_000
    /// The fewest words in a sync's batch file that a second thread decodes (and, for
    /// a library that had no words, prepares the rows of) while this one merges them
    /// (`SyncBatch.forEachRecord(_:recordsDone:thenEventsInto:recordsAsideFrom:columnsLocale:)`). Tests lower it to check small
    /// batches the same way.
    package var recordsReadAsideFrom = 2_000
    /// The fewest words of a backup that a restore parses on a second thread while this
    /// one writes them. Tests lower it to check small backups the same way.
    package var restoreReadAsideFrom = 2_000
    /// While `writingInBulk` runs: the first row it inserted (nil until one is), whose
    /// search entries are made in one statement at its end.
    private var bulkFrom: Int64??
    /// This library's device id: random, made with the library. A library that finds
    /// itself to be a copy of another (a file copied to a new laptop, or put back from a
    /// backup) goes on under a new one; see `SyncStore.adoptNewDeviceID()`. Read from
    /// the file each time, so every connection agrees after such a change.
    public var deviceID: String {
        (try? guarded { try info("device.id") }) ?? nil ?? ""
    }

    /// Opens the library at `path`, creating it when missing (and `create` is true).
    ///
    deinit {
        // Its last words before SQLite closes it: a connection to a file moved away from
        // the path empties the log into that file first (`LibraryFile.FileGuard`).
        database.prepareToClose()
    }

    /// Refuses, without changing a byte, a file that is not a MiDiccio library and a
    /// library written by a newer schema. `keyProgress` hears how far the one-time
    /// computing of every term's keys has come (words done, words in all), when a library
    /// keyed by another ICU is opened (`refreshTermKeys`); it is not called otherwise.
    /// `upgradeProgress` is called now and then (`Migrator.tickEvery`) while a
    /// library made by an earlier MiDiccio is brought up to this one's schema, which can
    /// build a whole index (seconds at a million words); not while a new library is made.
    public init(
        path: String, create: Bool = true, clock: any Clock = SystemClock(),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        makeID: (() -> WordID)? = nil,
        makeDeviceID: @escaping () -> WordID = { WordID.random() },
        keyProgress: ((_ done: Int, _ total: Int) -> Void)? = nil,
        upgradeProgress: (() -> Void)? = nil
    ) throws {
        let (database, isNew, upgradedFrom) = try LibraryFile.open(path: path, create: create, upgradeTick: upgradeProgress)
        self.path = path
        self.isNew = isNew
        self.upgradedFrom = upgradedFrom
        self.database = database
        self.clock = clock
        // New words' ids: random (version 4) from a generator seeded once from the
        // system's secure one (a system call per id cost 6% of an import row).
        let ids = WordIDSource()
        self.randomID = makeID ?? { ids.next() }
        self.randomDeviceID = makeDeviceID
        let stored: [(String, String)]
        do {
            stored = try database.prepare("SELECT key, value FROM library_info WHERE key IN ('collation.locale', 'collation.icu')")
                .rows { ($0.text(0), $0.text(1)) }
        } catch let error as SQLiteError {
            throw LibraryError.from(error)
        }
        let storedLocale = stored.first { $0.0 == "collation.locale" }?.1
        collation = TermCollation(locale: storedLocale ?? TermCollation.environmentLocale(environment))
        // A step after the upgrade that fails leaves the file upgraded: said so, not "nothing
        // was changed" (round 15A).
        do {
            if storedLocale == nil {
                try guarded {
                    try database.write {
                        try setInfo("collation.locale", collation.locale)
                        if try info("device.id") == nil { try setInfo("device.id", makeDeviceID().rawValue) }
                        if isNew { try setInfo("sync.digest", "0") }
                    }
                }
            }
            if stored.first(where: { $0.0 == "collation.icu" })?.1 != TermCollation.keysVersion {
                try guarded { try refreshTermKeys(progress: keyProgress) }
            }
            try guarded {
                if try database.integer("SELECT count(*) FROM sync_devices WHERE num = 0") == 0 {
                    try database.write {
                        try database.run(
                            "INSERT OR IGNORE INTO sync_devices (num, id) VALUES (0, ?)", [.text(try info("device.id") ?? "")])
                    }
                }
            }
        } catch {
            throw LibraryError.afterUpgrade(from: upgradedFrom, error)
        }
    }

    // MARK: - Reading

    /// The word with exactly this id, in the Trash or not.
    public func word(_ id: WordID) throws -> Word? {
        try guarded { try stored(id)?.word }
    }

    /// The word with this id or unique id prefix (at least 6 characters).
    ///
    /// `inTrash` nil accepts any word; true or false restricts the candidates.
    public func resolve(_ idOrPrefix: String, inTrash: Bool? = nil) throws -> Word {
        let prefix = idOrPrefix.lowercased().trimmed
        if let id = WordID(prefix) {
            guard let word = try word(id) else {
                // Its marker says what became of it: "no word with id" read as a mistyped id.
                throw try isPurged(id) ? LibraryError.wordPurged(prefix) : LibraryError.wordNotFound(prefix)
            }
            return word
        }
        guard prefix.count >= 6 else { throw LibraryError.prefixTooShort(idOrPrefix) }
        guard prefix.allSatisfy({ $0.isHexDigit || $0 == "-" }) else { throw LibraryError.wordNotFound(idOrPrefix) }
        var candidates = try guarded {
            try database.cached("SELECT \(Self.columns) FROM words WHERE id >= ? AND id < ? ORDER BY id LIMIT 50")
                .rows([.text(prefix), .text(prefix + "\u{7F}")], Self.storedWord).map(\.word)
        }
        if let inTrash, candidates.count > 1 {
            candidates = candidates.filter { $0.isDeleted == inTrash }
        }
        switch candidates.count {
        case 0:
            let purged = try guarded {
                try database.cached("SELECT id FROM purged WHERE id >= ? AND id < ? LIMIT 2")
                    .rows([.text(prefix), .text(prefix + "\u{7F}")]) { $0.text(0) }
            }
            throw purged.count == 1 ? LibraryError.wordPurged(purged[0]) : LibraryError.wordNotFound(idOrPrefix)
        case 1: return candidates[0]
        default: throw LibraryError.ambiguousID(idOrPrefix, candidates: candidates)
        }
    }

    /// Words not in the Trash, filtered, ordered and paged as `query` says.
    ///
    /// The page is chosen in the order's index alone (its rows hold the order and the row
    /// number), and only the page's words are read: a page 50,000 words deep skips index
    /// entries, not words; with `after` it skips nothing.
    ///
    /// With a tag, a page of a common tag walks the order's index and looks each word's
    /// tag up, stopping at the page's end; a rare tag's words are read and sorted (see
    /// `walksOrder(forTag:reaching:)`).
    public func list(_ query: ListQuery = ListQuery()) throws -> [Word] {
        let (order, key) =
            switch query.sort {
            case .updated: ("updated_at DESC, seq DESC", "(updated_at, seq) < (?, ?)")
            case .created: ("created_at DESC, seq DESC", "(created_at, seq) < (?, ?)")
            case .term: ("sort_key, term, seq", "(sort_key, term, seq) > (?, ?, ?)")
            }
        return try guarded {
            try database.read {
                var values: [SQLValue] = []
                var filter = ""
                if let tag = query.tag {
                    // A negative limit is no limit, as in SQLite.
                    let reach = query.limit.flatMap { $0 < 0 ? nil : Double($0) + Double(max(0, query.offset)) }
                    if try walksOrder(forTag: tag, reaching: reach) {
                        filter += " AND EXISTS (SELECT 1 FROM word_tags t WHERE t.tag_key = ? AND t.word_seq = words.seq)"
                    } else {
                        filter += " AND seq IN (SELECT word_seq FROM word_tags WHERE tag_key = ?)"
                    }
                    values.append(.text(TagSet.key(tag)))
                }
                if let place = query.afterPlace {
                    guard let keys = Self.placeValues(place, count: query.sort == .term ? 3 : 2) else {
                        throw LibraryError.invalidPlace(place)
                    }
                    filter += " AND \(key)"
                    values += keys
                } else if let after = query.after, let start = try stored(after), !start.word.isDeleted {
                    filter += " AND \(key)"
                    switch query.sort {
                    case .updated: values += [.integer(start.word.updatedAt.milliseconds), .integer(start.seq)]
                    case .created: values += [.integer(start.word.createdAt.milliseconds), .integer(start.seq)]
                    case .term:
                        let sortKey = try database.blob("SELECT sort_key FROM words WHERE seq = ?", [.integer(start.seq)]) ?? []
                        values += [.blob(sortKey), .text(start.word.term), .integer(start.seq)]
                    }
                }
                values += [.integer(Int64(query.limit ?? -1)), .integer(Int64(max(0, query.offset)))]
                return try database.cached(
                    """
                    SELECT \(Self.columns("w")) FROM
                        (SELECT seq FROM words WHERE deleted_at IS NULL\(filter) ORDER BY \(order) LIMIT ? OFFSET ?) AS page
                    JOIN words w ON w.seq = page.seq ORDER BY \(order.split(separator: ",").map { "w." + String($0).trimmed }.joined(separator: ", "))
                    """
                )
                .rows(values, Self.storedWord).map(\.word)
            }
        }
    }

    /// The place of the word `id` in the list ordered by `sort`, as it is now: text a later
    /// page starts after (`ListQuery.afterPlace`), whatever becomes of the word meanwhile;
    /// nil when there is no such word.
    public func listPlace(of id: WordID, sort: ListSort) throws -> String? {
        try guarded {
            try database.cached("SELECT updated_at, created_at, sort_key, term, seq FROM words WHERE id = ?").rows([.text(id.rawValue)]) {
                row in
                switch sort {
                case .updated: "\(row.int64(0)).\(row.int64(4))"
                case .created: "\(row.int64(1)).\(row.int64(4))"
                case .term: Self.hex(row.bytes(2)) + "." + Self.hex(Array(row.text(3).utf8)) + "." + String(row.int64(4))
                }
            }.first
        }
    }

    /// The place of the Trash entry `id` (its deletion's time and row), as text a later
    /// page of the Trash starts after (`trashPage`'s `afterPlace`); nil when it is not in
    /// the Trash.
    public func trashPlace(of id: WordID) throws -> String? {
        try guarded {
            try database.cached("SELECT deleted_at, seq FROM words WHERE id = ? AND deleted_at IS NOT NULL").rows([.text(id.rawValue)]) {
                "\($0.int64(0)).\($0.int64(1))"
            }.first
        }
    }

    /// The values a place (`listPlace`, `trashPlace`) holds, for the key `(…) < (?, ?)`:
    /// `count` parts cut at `.`, numbers, or for three parts a sort key and a term in
    /// hexadecimal first; nil for text that is no such place.
    static func placeValues(_ place: String, count: Int) -> [SQLValue]? {
        let parts = place.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == count, let seq = Int64(parts[count - 1]) else { return nil }
        if count == 2 {
            guard let first = Int64(parts[0]) else { return nil }
            return [.integer(first), .integer(seq)]
        }
        guard let sortKey = bytes(hex: parts[0]), let term = bytes(hex: parts[1]) else { return nil }
        return [.blob(sortKey), .text(String(decoding: term, as: UTF8.self)), .integer(seq)]
    }

    /// `bytes` as lowercase hexadecimal.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes hexadecimal `text` writes; nil for text that is not that.
    static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            case 0x41...0x46: digit - 0x41 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// Whether a list page of `tag` that ends `reach` words into the list
    /// (nil: the whole list) is cheaper found by walking the order's index, looking up
    /// each word's tag, than by reading every word of the tag and sorting them. The walk
    /// passes about `reach` × live words ÷ tagged words index entries, the sort reads the
    /// tagged words: the walk wins when the tag is common. The web bench's list of its
    /// most used tag (about 45,000 of a million words) took 77 ms sorted and 1.3–1.7 ms
    /// walked. Both give the same page: only the plan differs. The two counts are kept by
    /// the library, so choosing costs no scan.
    func walksOrder(forTag tag: String, reaching reach: Double?) throws -> Bool {
        guard let reach else { return false }
        let tagged = Double(try tagCount(tag))
        guard tagged > 0 else { return false }
        return tagged * tagged >= reach * Double(try counts().words)
    }

    /// How many words are in the library (and in the Trash, separately). Kept up to date
    /// on every save, as the digest is, so reading it never scans the library.
    public func counts() throws -> (words: Int, trash: Int) {
        try guarded {
            // Inside a write that changed words, the counts as changed so far.
            let tally = try self.tally ?? storedTally() ?? countWords()
            return (tally.live, tally.trash)
        }
    }

    /// Words outside and inside the Trash, and the fingerprint of the Trash's entries (its
    /// `trashKey`, which Empty Trash is asked about: kept, so a page of the Trash never
    /// reads every entry to make it).
    private struct WordTally: Equatable {
        var live: Int
        var trash: Int
        var trashKey: UInt64

        mutating func apply(_ word: Word, _ sign: Int) {
            guard word.isDeleted else {
                live += sign
                return
            }
            trash += sign
            // Exclusive or: taking a word out is the same step as putting it in.
            trashKey ^= WordLibrary.trashEntryTerm(word)
        }
    }

    /// The counts saved with the digest they belong to; nil when there are none, or when
    /// the words changed since without them (a MiDiccio that did not keep them).
    private func storedTally() throws -> WordTally? {
        guard let text = try info("words.counts") else { return nil }
        let parts = text.split(separator: " ")
        // Counts saved before the Trash's key was kept (three parts) are counted again, once.
        // Those saved while the key named the words by id alone (four parts) keep their
        // counts, and the key is made again from the Trash's entries alone, until the next
        // change saves it (a count of the whole library at every read of a large one).
        guard parts.count == 4 || (parts.count == 5 && parts[4] == "2"), String(parts[0]) == (try info("sync.digest") ?? ""),
            let live = Int(parts[1]), let trash = Int(parts[2]), let trashKey = UInt64(parts[3], radix: 16)
        else { return nil }
        guard parts.count == 4 else { return WordTally(live: live, trash: trash, trashKey: trashKey) }
        let entries = try trashEntries()
        return WordTally(live: live, trash: entries.count, trashKey: entries.reduce(0) { $0 ^ $1.term })
    }

    /// Every word in the Trash: its id, and its share of the Trash's key (`trashEntryTerm`),
    /// read from every entry.
    func trashEntries() throws -> [(id: String, term: UInt64)] {
        try database.cached("SELECT \(Self.columns) FROM words WHERE deleted_at IS NOT NULL").rows([]) { row in
            let word = try Self.storedWord(row).word
            return (word.id.rawValue, Self.trashEntryTerm(word))
        }
    }

    private func countWords() throws -> WordTally {
        let entries = try trashEntries()
        return WordTally(
            live: Int(try database.integer("SELECT count(*) FROM words WHERE deleted_at IS NULL") ?? 0),
            trash: entries.count, trashKey: entries.reduce(0) { $0 ^ $1.term })
    }

    /// How many words the Trash holds and the fingerprint of their ids, as kept (see
    /// `trashKey()`).
    func keptTrashKey() throws -> (count: Int, key: String) {
        let tally = try self.tally ?? storedTally() ?? countWords()
        return (tally.trash, tally.trashKey.sixteenHexDigits)
    }

    /// Every tag on a word not in the Trash, with how many words carry it; most used first.
    /// (Read from the counts the library keeps, not by counting the words.)
    public func tags() throws -> [TagCount] {
        try guarded {
            try database.cached("SELECT tag, count FROM tag_counts WHERE count > 0 ORDER BY count DESC, tag_key")
                .rows { TagCount(tag: $0.text(0), count: Int($0.int64(1))) }
        }
    }

    /// How many words outside the Trash carry `tag` (any case).
    public func tagCount(_ tag: String) throws -> Int {
        try guarded {
            Int(try database.integer("SELECT count FROM tag_counts WHERE tag_key = ?", [.text(TagSet.key(tag))]) ?? 0)
        }
    }

    /// Words in the Trash, most recently deleted first. Entries older than
    /// `trash.hideAfterDays` are left out unless `includeHidden` is true.
    public func trash(includeHidden: Bool = false) throws -> [Word] {
        let cutoff = try includeHidden ? nil : hiddenTrashCutoff()
        return try guarded {
            try database.cached(
                "SELECT \(Self.columns) FROM words WHERE deleted_at IS NOT NULL AND deleted_at >= ? ORDER BY deleted_at DESC, seq DESC"
            )
            .rows([.integer(cutoff ?? Int64.min)], Self.storedWord).map(\.word)
        }
    }

    /// One page of the Trash, most recently deleted first, and how many entries match in
    /// all: those whose term starts with `term` (ignoring case and accents; empty: all).
    /// Entries `trash()` hides are left out here too. The page is chosen in the Trash's
    /// index alone, so a page of a 100,000-word Trash reads only its own words. With
    /// `after` (the last entry of the page before) the page starts after that entry, by
    /// key: an entry restored or purged meanwhile shifts nothing. With no term, the total
    /// is the Trash's count that the library keeps, less the hidden entries: no scan of the
    /// Trash for each page. `hidden` is `hiddenTrashCount()`, counted with the same cutoff.
    ///
    /// With `afterPlace` (`trashPlace(of:)` of the last entry shown) the page starts after
    /// that place, whatever became of the entry since: restored or purged elsewhere, the
    /// next page started from the top (round 15B). Taken before `after`.
    ///
    /// With `includeHidden`, entries `trash.hideAfterDays` hides are on the page too (and
    /// `hidden` is 0): a web page could not show them at all, and Empty Trash purged one
    /// that a sync had just brought an edit to, which nobody could look at (found by the
    /// exploratory helper, round 28A #2).
    public func trashPage(
        term: String = "", limit: Int, offset: Int = 0, after: WordID? = nil, afterPlace: String? = nil, includeHidden: Bool = false
    ) throws -> (words: [Word], total: Int, hidden: Int) {
        // One cutoff for the page, its total and the hidden count, so an entry that comes
        // of age meanwhile is counted the same way in all three.
        let cutoff = includeHidden ? nil : try hiddenTrashCutoff()
        var (filter, values) = trashFilter(term: term, cutoff: cutoff)
        return try guarded {
            try database.read {
                let hidden = try hiddenTrashCount(before: cutoff)
                let total =
                    TermKey.fold(term.trimmed).isEmpty
                    ? try counts().trash - hidden
                    : Int(try database.integer("SELECT count(*) FROM words WHERE \(filter)", values) ?? 0)
                if let afterPlace {
                    guard let keys = Self.placeValues(afterPlace, count: 2) else { throw LibraryError.invalidPlace(afterPlace) }
                    filter += " AND (deleted_at, seq) < (?, ?)"
                    values += keys
                } else if let after, let start = try stored(after), let deletedAt = start.word.deletedAt {
                    filter += " AND (deleted_at, seq) < (?, ?)"
                    values += [.time(deletedAt), .integer(start.seq)]
                }
                let words = try database.cached(
                    """
                    SELECT \(Self.columns("w")) FROM
                        (SELECT seq FROM words WHERE \(filter) ORDER BY deleted_at DESC, seq DESC LIMIT ? OFFSET ?) AS page
                    JOIN words w ON w.seq = page.seq ORDER BY w.deleted_at DESC, w.seq DESC
                    """
                ).rows(values + [.integer(Int64(max(0, limit))), .integer(Int64(max(0, offset)))], Self.storedWord).map(\.word)
                return (words, total, hidden)
            }
        }
    }

    /// The condition on `words` that keeps the Trash entries `trashPage(term:...)` shows.
    func trashFilter(term: String) throws -> (String, [SQLValue]) {
        trashFilter(term: term, cutoff: try hiddenTrashCutoff())
    }

    /// `trashFilter(term:)` with the time before which entries are hidden (nil: none).
    private func trashFilter(term: String, cutoff: Int64?) -> (String, [SQLValue]) {
        let key = TermKey.fold(term.trimmed)
        var filter = "deleted_at IS NOT NULL AND deleted_at >= ?"
        var values: [SQLValue] = [.integer(cutoff ?? Int64.min)]
        if !key.isEmpty {
            filter += " AND term_key >= ? AND term_key < ?"
            values += [.text(key), .text(key + "\u{10FFFF}")]
        }
        return (filter, values)
    }

    /// How many Trash entries `trash()` hides because of `trash.hideAfterDays`.
    public func hiddenTrashCount() throws -> Int {
        try hiddenTrashCount(before: try hiddenTrashCutoff())
    }

    /// How many Trash entries were deleted before `cutoff` (nil: none are hidden).
    private func hiddenTrashCount(before cutoff: Int64?) throws -> Int {
        guard let cutoff else { return 0 }
        return try guarded {
            Int(try database.integer("SELECT count(*) FROM words WHERE deleted_at IS NOT NULL AND deleted_at < ?", [.integer(cutoff)]) ?? 0)
        }
    }

    private func hiddenTrashCutoff() throws -> Int64? {
        guard let days = try settingDays(.hideAfterDays) else { return nil }
        return clock.now().milliseconds - Int64(days) * 86_400_000
    }

    /// Live words whose term equals `term` case- and accent-insensitively.
    public func duplicates(of term: String) throws -> [Word] {
        try guarded {
            try database.cached("SELECT \(Self.columns) FROM words WHERE term_key = ? AND deleted_at IS NULL ORDER BY seq")
                .rows([.text(TermKey.fold(term.trimmed))], Self.storedWord).map(\.word)
        }
    }

    // MARK: - Writing

    /// Adds a new word. Duplicates of its term are reported, and refused when
    /// `allowDuplicate` is false and one is spelled the same, but for case and invisible
    /// characters (`TermKey.spelling`): "año" is added beside "ano".
    @discardableResult
    public func add(_ content: WordContent, allowDuplicate: Bool = true) throws -> AddResult {
        let content = try Self.validate(content)
        return try writing {
            let duplicates = try duplicates(of: content.term)
            let spelling = TermKey.spelling(content.term)
            let same = duplicates.filter { TermKey.spelling($0.term) == spelling }
            if !allowDuplicate && !same.isEmpty {
                throw LibraryError.duplicateTerm(content.term, existing: same.map(\.id))
            }
            let now = clock.now()
            let word = Word(
                id: randomID(), term: content.term, meaning: content.meaning, reading: content.reading,
                examples: content.examples, notes: content.notes, tags: content.tags,
                createdAt: now, updatedAt: now)
            try save(word, times: FieldTimes(all: now), previous: nil, pending: true)
            return AddResult(word: word, duplicates: duplicates)
        }
    }

    /// Changes some fields of a word. Only fields whose value changes get a new time;
    /// an edit that changes nothing writes nothing and leaves the word as it was.
    @discardableResult
    public func edit(_ id: WordID, _ edit: WordEdit) throws -> Word {
        try writing {
            guard let previous = try stored(id) else { throw LibraryError.wordNotFound(id.rawValue) }
            if previous.word.isDeleted {
                throw LibraryError.wrongTrashState(id, term: previous.word.term, inTrash: true)
            }
            let content = try Self.validate(
                edit.applied(to: previous.word.content), holding: previous.word.tags.count, term: previous.word.term)
            return try update(previous) { word, _ in
                word.term = content.term
                word.meaning = content.meaning
                word.reading = content.reading
                word.examples = content.examples
                word.notes = content.notes
                word.tags = content.tags
            }
        }
    }

    /// Moves words to the Trash (a soft delete: sets `deletedAt`, keeps the content).
    /// All or nothing: if one id is not found or already in the Trash, none is moved.
    @discardableResult
    public func delete(_ ids: [WordID]) throws -> [Word] {
        try writing {
            try Self.unique(ids).map { id in
                guard let previous = try stored(id) else { throw LibraryError.wordNotFound(id.rawValue) }
                if previous.word.isDeleted {
                    throw LibraryError.alreadyInTrash(id, term: previous.word.term)
                }
                return try update(previous) { word, time in word.deletedAt = time }
            }
        }
    }

    /// Takes words out of the Trash. Clears `deletedAt` and bumps `updatedAt`, so
    /// last-write-wins carries the restore to other devices (product notes, v1.4.1).
    @discardableResult
    public func restore(_ ids: [WordID]) throws -> [Word] {
        try writing {
            try Self.unique(ids).map { id in
                guard let previous = try stored(id) else { throw LibraryError.wordNotFound(id.rawValue) }
                if !previous.word.isDeleted {
                    throw LibraryError.wrongTrashState(id, term: previous.word.term, inTrash: false)
                }
                return try update(previous) { word, _ in word.deletedAt = nil }
            }
        }
    }

    // MARK: - This device

    /// This device's name as other devices see it (default: the host name).
    public func deviceName() throws -> String {
        try guarded { try info("device.name") ?? ProcessInfo.processInfo.hostName }
    }

    /// Renames this device.
    public func setDeviceName(_ name: String) throws {
        let trimmed = name.trimmed
        guard !trimmed.isEmpty, trimmed.count <= 100 else {
            throw LibraryError.invalidWord(WordValidationError(field: "device name", message: "must be 1 to 100 characters"))
        }
        // Shown on every device's terminal: no control character (an escape sequence) or
        // direction control that would turn a line around there (round 19B).
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.isBidiControl })
        else {
            throw LibraryError.invalidWord(
                WordValidationError(
                    field: "device name", message: "must not hold control characters (escape sequences) or direction controls"))
        }
        try writing { try setInfo("device.name", trimmed) }
    }

    // MARK: - Internals shared with backup, import and sync

    /// How many words a long operation handles between two calls of its progress
    /// handler: often enough for a progress line, rarely enough to cost nothing.
    public static let progressInterval = 1_000

    /// The column list every word query selects, in the order `storedWord` reads.
    package static let columns = columns("words")

    static func columns(_ table: String) -> String {
        [
            "seq", "id", "term", "meaning", "reading", "examples", "notes", "tags", "created_at", "updated_at", "deleted_at",
            "term_time", "meaning_time", "reading_time", "examples_time", "notes_time", "tags_time", "deleted_time",
            "pending", "local_change",
            "term_by", "meaning_by", "reading_by", "examples_by", "notes_by", "tags_by", "deleted_by", "tag_clock",
        ].map { "\(table).\($0)" }.joined(separator: ", ")
    }

    package static func storedWord(_ row: Statement) throws -> StoredWord {
        var times = FieldTimes(all: Timestamp(milliseconds: 0))
        for (offset, field) in WordField.allCases.enumerated() {
            times[field] = Timestamp(milliseconds: row.int64(Int32(11 + offset)))
        }
        guard let id = WordID(row.text(1)) else {
            // Never read a damaged id as some other id: the word would be lost or merged.
            throw LibraryError.damaged("row \(row.int64(0)) of the words table has the id '\(row.text(1).prefix(60))', which is not a UUID")
        }
        let word = Word(
            id: id,
            term: row.text(2), meaning: row.text(3), reading: row.text(4),
            examples: JSONText.stringArray(row.text(5)), notes: row.text(6),
            tags: JSONText.stringArray(row.text(7)),
            createdAt: row.time(8)!, updatedAt: row.time(9)!, deletedAt: row.time(10))
        let writers = (0..<Int32(WordField.allCases.count)).map { row.int64(20 + $0) }
        return StoredWord(
            word: word, times: times, pending: row.int64(18) != 0, localChange: row.int64(19),
            writers: writers, tagClock: tagClock(stored: row.optionalText(27), tagsTime: times.tags), seq: row.int64(0))
    }

    /// The `tag_clock` column of `clock` for tags changed last at `tagsTime`: NULL for a
    /// list written whole then (as every list was before the column), `''` for tags all
    /// written then, else a JSON array of the floor (`''`: none) and, for each tag, its
    /// form, time, 1 or 0 (on or off), order time and position.
    static func storedTagClock(_ clock: TagClock, tagsTime: Timestamp) -> SQLValue {
        if clock.marks.isEmpty {
            if clock.floor == nil { return .text("") }
            if clock.floor == tagsTime { return .null }
        }
        var items: [String] = [clock.floor.map { String($0.milliseconds) } ?? ""]
        items.reserveCapacity(1 + clock.marks.count * 5)
        for mark in clock.marks.sorted(by: { $0.key < $1.key }).map(\.value) {
            items += [
                mark.form, String(mark.time.milliseconds), mark.isPresent ? "1" : "0", String(mark.orderTime.milliseconds),
                String(mark.position),
            ]
        }
        return .text(JSONText.array(items))
    }

    /// The clock a `tag_clock` column holds (`storedTagClock`); a damaged one reads as a
    /// list written whole at `tagsTime` (the tags themselves are in their own column).
    static func tagClock(stored text: String?, tagsTime: Timestamp) -> TagClock {
        guard let text else { return .writtenWhole(at: tagsTime) }
        if text.isEmpty { return .implied }
        let items = JSONText.stringArray(text)
        guard let first = items.first else { return .writtenWhole(at: tagsTime) }
        var clock = TagClock(floor: Int64(first).map { Timestamp(milliseconds: $0) })
        var index = 1
        while index + 4 < items.count {
            if let time = Int64(items[index + 1]), let orderTime = Int64(items[index + 3]), let position = Int(items[index + 4]) {
                clock.marks[TagSet.key(items[index])] = TagClock.Mark(
                    time: Timestamp(milliseconds: time), isPresent: items[index + 2] == "1",
                    orderTime: Timestamp(milliseconds: orderTime), position: position, form: items[index])
            }
            index += 5
        }
        return clock
    }

    /// The stored form of the word with this id.
    package func stored(_ id: WordID) throws -> StoredWord? {
        // Prepared once: a sync looks up every word of a snapshot it reads.
        try hot.statement(.storedByID).rows([.text(id.rawValue)], Self.storedWord).first
    }

    /// Applies a local change to `previous` as a new edit: `change` gets the word and the
    /// edit time (a delete stamps `deletedAt` with it); changed fields, and only those,
    /// get that time and the word becomes pending. Returns the word unchanged when
    /// `change` changes nothing.
    func update(_ previous: StoredWord, _ change: (inout Word, Timestamp) -> Void) throws -> Word {
        let before = previous.word
        let time = editTime(after: before)
        var word = before
        change(&word, time)
        var times = previous.times
        var writers = previous.writers
        for field in WordField.allCases where !word.hasSameValue(field, as: before) {
            times[field] = time
            writers[field.index] = 0
        }
        guard times != previous.times else { return before }
        word.updatedAt = times.newest
        try save(word, times: times, writers: writers, previous: previous, pending: true)
        return word
    }

    /// The time for a local edit of `word`: now, or 1 ms after the newest time known for
    /// the word when this device's clock is behind (a hybrid logical clock).
    func editTime(after word: Word?) -> Timestamp {
        let now = clock.now()
        guard let word else { return now }
        return max(now, word.updatedAt.next)
    }

    /// Writes a word, its tags and its search text. `previous` is the stored row being
    /// replaced (nil for a new word). `columns`, for a new word, are its derived columns
    /// computed ahead (an import's reading thread does, so the writer does not).
    /// Must run inside `writing`.
    /// `tagClock` is the clock of a word merged from other devices; without it, a change
    /// of the tags is this device's (`TagClock.written`).
    package func save(
        _ word: Word, times: FieldTimes, writers: [Int64] = StoredWord.localWriters, previous: StoredWord?, pending: Bool,
        columns: NewWordColumns? = nil, tagClock: TagClock? = nil
    ) throws {
        try updateDigest(removing: previous?.word, adding: word)
        let change = pending ? try nextChange() : (previous?.localChange ?? 0)
        guard let previous else {
            let columns = columns ?? NewWordColumns(term: word.term, examples: word.examples, tags: word.tags, collation: collation)
            try database.run(
                try hot.statement(.insertWord),
                newRowValues(
                    word, times: times, writers: writers, pending: pending, change: change, columns: columns,
                    tagClock: tagClock ?? .implied))
            let seq = sqlite3LastInsertRowID()
            if case .some(.none) = bulkFrom { try noteBulkStart(seq) }
            if !word.isDeleted { try addToSearch(word, seq: seq) }
            try insertTags(word.tags, seq: seq)
            return
        }
        let old = previous.word
        var values: [SQLValue] = [
            .text(word.term), .text(word.meaning), .text(word.reading), .text(JSONText.array(word.examples)),
            .text(word.notes), .text(JSONText.array(word.tags)),
        ]
        values.reserveCapacity(32)
        for field in WordField.allCases { values.append(.time(times[field])) }
        for writer in writers { values.append(.integer(writer)) }
        var marks = previous.tagClock
        if let tagClock {
            marks = tagClock
        } else if old.tags != word.tags || times.tags != previous.times.tags {
            marks = marks.written(word.tags, at: times.tags, over: old.tags, changedAt: previous.times.tags)
        }
        values.append(Self.storedTagClock(marks, tagsTime: times.tags))
        // The columns indexes and triggers read, only where they change (HotStatements.IndexedColumns).
        var columns: HotStatements.IndexedColumns = []
        if old.id != word.id {
            columns.insert(.id)
            values.append(.text(word.id.rawValue))
        }
        if old.createdAt != word.createdAt {
            columns.insert(.createdAt)
            values.append(.time(word.createdAt))
        }
        if old.updatedAt != word.updatedAt {
            columns.insert(.updatedAt)
            values.append(.time(word.updatedAt))
        }
        // A word in the Trash keeps the time this device saw it enter, or gets it now.
        if old.deletedAt != word.deletedAt || word.deletedAt != nil {
            columns.insert(.deletedAt)
            values += [.time(word.deletedAt), .time(clock.now())]
        }
        if old.term != word.term {
            columns.insert(.termKeys)
            values += [.text(TermKey.fold(word.term)), .blob(collation.sortKey(word.term))]
        }
        if pending && !previous.pending {
            columns.insert(.pending)
            values.append(.integer(1))
        }
        if change != previous.localChange {
            columns.insert(.localChange)
            values.append(.integer(change))
        }
        values.append(.integer(previous.seq))
        try database.run(try hot.update(setting: columns), values)
        let seq = previous.seq
        // Texts compare by their bytes: Swift's == takes "café" composed and decomposed as
        // one string, but the tag rows and the search index hold the bytes.
        let tagsChanged = !SameBytes.equal(old.tags, word.tags)
        let textChanged =
            !SameBytes.equal(old.term, word.term) || !SameBytes.equal(old.reading, word.reading)
            || !SameBytes.equal(old.meaning, word.meaning) || !SameBytes.equal(old.examples, word.examples)
            || !SameBytes.equal(old.notes, word.notes) || tagsChanged
        // Only words outside the Trash are in the search index.
        if !old.isDeleted && (textChanged || word.isDeleted) { try removeFromSearch(old, seq: seq) }
        if !word.isDeleted && (textChanged || old.isDeleted) { try addToSearch(word, seq: seq) }
        if tagsChanged, !isBulkRow(seq) { try changeTagRows(from: old.tags, to: word.tags, seq: seq) }
    }

    /// The values of `HotStatements.Kind.insertWord` for a new word, in its order.
    private func newRowValues(
        _ word: Word, times: FieldTimes, writers: [Int64], pending: Bool, change: Int64, columns: NewWordColumns,
        tagClock: TagClock
    ) -> [SQLValue] {
        var values: [SQLValue] = [
            .text(word.id.rawValue), .text(word.term), .text(word.meaning), .text(word.reading),
            .text(columns.examples), .text(word.notes), .text(columns.tags),
            .time(word.createdAt), .time(word.updatedAt), .time(word.deletedAt),
        ]
        values.reserveCapacity(HotStatements.valuesPerInsertedRow)
        for field in WordField.allCases { values.append(.time(times[field])) }
        values += [.integer(pending ? 1 : 0), .integer(change), .text(columns.termKey), .blob(columns.sortKey)]
        for writer in writers { values.append(.integer(writer)) }
        values.append(Self.storedTagClock(tagClock, tagsTime: times.tags))
        // The time this device saw the word enter the Trash (kept only for a word there).
        values.append(.time(clock.now()))
        return values
    }

    /// Remembers `seq` as the first row a bulk write inserted.
    private func noteBulkStart(_ seq: Int64) throws {
        bulkFrom = .some(seq)
        if !bulkTagKeyDefined {
            try database.defineTextFunction("midiccio_tag_key") { TagSet.key($0) }
            bulkTagKeyDefined = true
        }
    }

    /// A new word with its field times and writers (numbered as the library numbers
    /// devices; 0 is this one) and its derived columns, made ahead (`ColumnMaker`).
    package struct NewRow {
        /// The word.
        var word: Word
        /// When each field was last written, and by whom.
        var times: FieldTimes
        var writers: [Int64]
        /// Its derived columns.
        var columns: NewWordColumns
        /// When each tag was put on or taken off.
        var tagClock: TagClock

        /// A row of these values.
        package init(word: Word, times: FieldTimes, writers: [Int64], columns: NewWordColumns, tagClock: TagClock = .implied) {
            self.word = word
            self.times = times
            self.writers = writers
            self.columns = columns
            self.tagClock = tagClock
        }
    }

    /// Saves new words, none of them stored yet, as `save` does each with `previous` nil.
    /// In a bulk write (`writingInBulk`) they go in `HotStatements.rowsPerInsert` at a time.
    package func insertNew(_ rows: [NewRow], pending: Bool) throws {
        var next = 0
        if case .some = bulkFrom {
            let batch = HotStatements.rowsPerInsert
            while rows.count - next >= batch {
                var values: [SQLValue] = []
                values.reserveCapacity(batch * HotStatements.valuesPerInsertedRow)
                for row in rows[next..<next + batch] {
                    try updateDigest(removing: nil, adding: row.word)
                    let change = pending ? try nextChange() : 0
                    values += newRowValues(
                        row.word, times: row.times, writers: row.writers, pending: pending, change: change, columns: row.columns,
                        tagClock: row.tagClock)
                }
                try database.run(try hot.statement(.insertWords), values)
                // One statement's rows take consecutive row numbers.
                if case .some(.none) = bulkFrom { try noteBulkStart(sqlite3LastInsertRowID() - Int64(batch - 1)) }
                next += batch
            }
        }
        for row in rows[next...] {
            try save(
                row.word, times: row.times, writers: row.writers, previous: nil, pending: pending, columns: row.columns,
                tagClock: row.tagClock)
        }
    }

    /// The columns of a new word's row that are computed from its fields: what `save`
    /// writes besides them. An import computes them on its reading thread.
    package struct NewWordColumns: Sendable {
        /// `TermKey.fold` of the term.
        var termKey: String
        /// The collation sort key of the term.
        var sortKey: [UInt8]
        /// The examples and the tags as JSON arrays.
        var examples: String
        var tags: String

        /// The columns of a word with these fields under `collation`, with its term key
        /// if already known.
        init(term: String, examples: [String], tags: [String], termKey: String? = nil, collation: TermCollation) {
            self.termKey = termKey ?? TermKey.fold(term)
            sortKey = collation.sortKey(term)
            self.examples = JSONText.array(examples)
            self.tags = JSONText.array(tags)
        }
    }

    /// Makes new words' derived columns (`NewWordColumns`) under a library's collation,
    /// on the thread that holds it: an import, a restore or a sync reading a large file
    /// prepares them on the thread that reads it, so the writing thread does not. Not to
    /// be shared between threads (ICU's collator).
    package struct ColumnMaker {
        private let collation: TermCollation

        /// A maker for the term order of `locale` (a library's `collationLocale`).
        package init(locale: String) {
            collation = TermCollation(locale: locale)
        }

        /// The derived columns of `word`, as `save` computes them for a new word.
        package func columns(for word: Word) -> NewWordColumns {
            columns(term: word.term, examples: word.examples, tags: word.tags)
        }

        /// The derived columns of a new word with these fields.
        func columns(term: String, examples: [String], tags: [String]) -> NewWordColumns {
            NewWordColumns(term: term, examples: examples, tags: tags, collation: collation)
        }
    }

    /// The locale of this library's term order, for a `ColumnMaker` of its own.
    package var collationLocale: String { collation.locale }

    /// True for a row the bulk write under way inserted.
    private func isBulkRow(_ seq: Int64) -> Bool {
        if case .some(.some(let first)) = bulkFrom { return seq >= first }
        return false
    }

    func addToSearch(_ word: Word, seq: Int64) throws {
        // Rows a bulk write inserted get their entries at its end, from the rows as they
        // are then.
        if case .some(.some(let first)) = bulkFrom, seq >= first { return }
        let values = Self.searchValues(word, seq: seq)
        guard searchChanges != nil else { return try changeSearch(remove: nil, add: values) }
        searchChanges?.add(values, seq: seq)
        if searchChanges?.isFull == true { try makeSearchChanges() }
    }

    func removeFromSearch(_ word: Word, seq: Int64) throws {
        if case .some(.some(let first)) = bulkFrom, seq >= first { return }
        let values = Self.searchValues(word, seq: seq)
        guard searchChanges != nil else { return try changeSearch(remove: values, add: nil) }
        searchChanges?.remove(values, seq: seq)
        if searchChanges?.isFull == true { try makeSearchChanges() }
    }

    /// Makes the search-index changes the write under way has held back
    /// (`SearchChanges`), so the index matches the rows. A search plan
    /// (`searchPlan(_:tag:)`) calls this first.
    func makeSearchChanges() throws {
        guard let changes = searchChanges, !changes.isEmpty else { return }
        searchChanges = SearchChanges(limit: searchChangesHeldBack)
        for step in changes.steps() { try changeSearch(remove: step.remove, add: step.add) }
    }

    /// Takes a row's entry `remove` out of the search indexes and puts `add` in (values
    /// as `searchValues` gives them; nil: none). The index of terms (`terms_fts`) takes
    /// the row number and the term, and is left alone when the term stays the same.
    private func changeSearch(remove: [SQLValue]?, add: [SQLValue]?) throws {
        if let remove { try database.run(try hot.statement(.removeFromSearch), remove) }
        if let add { try database.run(try hot.statement(.addToSearch), add) }
        let (termBefore, termAfter) = (remove.map { Array($0.prefix(2)) }, add.map { Array($0.prefix(2)) })
        guard termBefore != termAfter else { return }
        if let termBefore { try database.run(try hot.statement(.removeFromTermSearch), termBefore) }
        if let termAfter { try database.run(try hot.statement(.addToTermSearch), termAfter) }
    }

    /// The tag rows a word with `tags` has: each tag key once, with the first spelling
    /// the word gives it (`insertTags` inserts them in order and ignores a key seen).
    static func tagRows(_ tags: [String]) -> [(key: String, tag: String)] {
        var seen = Set<String>()
        return tags.compactMap { tag in
            let key = TagSet.key(tag)
            return seen.insert(key).inserted ? (key, tag) : nil
        }
    }

    /// Changes a stored word's tag rows from those of `old` to those of `new`: only the
    /// rows that differ (a tag gone, a tag new, a tag whose first spelling changed), so a
    /// tag put on a word inserts one row and counts it once, where deleting every row and
    /// inserting them again ran the tag counts' triggers for each (a pull of 26,855 tagged
    /// words: 1.78 s against 2.19 s). A tag kept as it was keeps its count's row, and
    /// with it the spelling the tag list shows.
    private func changeTagRows(from old: [String], to new: [String], seq: Int64) throws {
        // By bytes, as the rows hold them: a tag changed only from composed to decomposed
        // form keeps its key, and its row takes the new spelling.
        let before = Self.tagRows(old), after = Self.tagRows(new)
        let beforeByKey = Dictionary(before.map { (Array($0.key.utf8), Array($0.tag.utf8)) }, uniquingKeysWith: { one, _ in one })
        let afterByKey = Dictionary(after.map { (Array($0.key.utf8), Array($0.tag.utf8)) }, uniquingKeysWith: { one, _ in one })
        for row in before where afterByKey[Array(row.key.utf8)] != Array(row.tag.utf8) {
            try database.run(try hot.statement(.deleteTag), [.integer(seq), .text(row.key)])
        }
        for row in after where beforeByKey[Array(row.key.utf8)] != Array(row.tag.utf8) {
            try database.run(try hot.statement(.insertTag), [.text(row.key), .integer(seq), .text(row.tag)])
        }
    }

    private func insertTags(_ tags: [String], seq: Int64) throws {
        // Rows a bulk write inserted get their tag rows at its end, from the rows as they
        // are then.
        if case .some(.some(let first)) = bulkFrom, seq >= first { return }
        for tag in tags {
            try database.run(try hot.statement(.insertTag), [.text(TagSet.key(tag)), .integer(seq), .text(tag)])
        }
    }

    private func sqlite3LastInsertRowID() -> Int64 {
        database.lastInsertRowID
    }

    /// The text the search index holds for a word: exactly what `SearchText.columns`
    /// makes of its row, so a later delete removes exactly what was added.
    static func searchValues(_ word: Word, seq: Int64) -> [SQLValue] {
        [
            .integer(seq), .text(SearchText.fold(word.term)), .text(SearchText.fold(word.reading)),
            .text(SearchText.fold(word.meaning)), .text(SearchText.fold(JSONText.array(word.examples))),
            .text(SearchText.fold(word.notes)), .text(SearchText.fold(JSONText.array(word.tags))),
        ]
    }

    /// The next value of the library-wide change counter (kept in memory during a
    /// write, saved with it).
    private func nextChange() throws -> Int64 {
        let current: Int64
        if let changeCounter {
            current = changeCounter
        } else {
            current = Int64(try database.text("SELECT value FROM library_info WHERE key = 'change.counter'") ?? "0") ?? 0
        }
        changeCounter = current + 1
        return current + 1
    }

    /// Runs `body` as one write transaction, like `writing`, for work that inserts many
    /// words (an import, a backup restore, a new device's first sync): the search entries
    /// of the rows it inserts are made in one statement at the end, in row order, instead
    /// of one at a time. The library ends the same as with `writing`.
    ///
    /// `expectedWords` is how many words `body` may insert. When that is at least
    /// `deferredIndexesFrom` and more than the library holds, the secondary indexes of
    /// the words and their tags are dropped first and built again at the end, in the same
    /// transaction: sorting once beats putting each row into seven indexes, at random
    /// places for the term and sort keys. (Queries in `body` still work, by scanning.)
    /// `onlyAddsWords` promises that `body` changes and deletes no word already stored.
    package func writingInBulk<T>(expectedWords: Int = 0, onlyAddsWords: Bool = false, _ body: () throws -> T) throws -> T {
        if bulkFrom != nil || !usesBulkWrites { return try writing(body) }
        // Checking each tag row's word (the foreign key) is a third of the time of writing
        // the tag rows. A write that only adds words (an import) makes every tag row from a
        // word it has just written, so those checks cannot fail, and with no word deleted
        // there is nothing to cascade: off meanwhile. SQLite takes the setting only
        // outside a transaction; inside one, the checks stay.
        let keysOff = onlyAddsWords && !database.isInTransaction
        if keysOff { try database.execute("PRAGMA foreign_keys = OFF") }
        defer { if keysOff { try? database.execute("PRAGMA foreign_keys = ON") } }
        return try writing {
            bulkFrom = .some(nil)
            // A larger page cache while many rows go in: random ids put each new entry of
            // the unique index anywhere in it, and at a million words its pages no longer
            // fit in the usual 16 MB. (20 MB keeps the import of 100,000 words under 150 MB.)
            try database.execute("PRAGMA cache_size = -\(Self.bulkCacheKiB)")
            defer {
                bulkFrom = nil
                try? database.execute("PRAGMA cache_size = -16384")
            }
            var deferred: [String] = []
            if expectedWords >= deferredIndexesFrom {
                let tally = try self.tally ?? storedTally() ?? countWords()
                if tally.live + tally.trash < expectedWords { deferred = try dropSecondaryIndexes() }
            }
            let result = try body()
            // Entries of rows stored before go first: a row this write removed may have
            // left its number to one it inserted.
            try makeSearchChanges()
            if case .some(.some(let first)) = bulkFrom {
                // FTS5 keeps what it indexes in a hash table and writes it out as a new
                // segment each time it passes 1 MB (then merges segments): 8 MB makes
                // fewer, larger segments and a third less time. Back to the default after.
                // Only a matter of speed: an SQLite that does not know the option writes
                // the index all the same.
                try? setSearchIndexOption("hashsize", bulkSearchHashBytes)
                // When the words written outnumber those held before (the indexes are
                // built again, below), each segment FTS5 writes out stays as it is
                // until the end. Then, if there are as many as FTS5 would have merged
                // along the way (`searchMergeFrom`), they are merged all at once. That
                // takes about as long as merging along the way (at a million words,
                // within the noise of 5.3–9.0 s), and leaves searches one segment to
                // read instead of seven: a tenth faster there (README, "Bulk work").
                // Fewer (100,000 words make three) stay as they are, as FTS5 leaves
                // them: merging those would only add a tenth of a second. Into a larger
                // library, a merge at the end would rewrite its whole index: FTS5 merges
                // as it goes, as with any write.
                let mergeAtEnd = !deferred.isEmpty
                if mergeAtEnd { try setSearchIndexMerging(automerge: 0, crisismerge: Self.bulkSearchCrisisMerge) }
                try addToSearchIndexes(from: first)
                if mergeAtEnd {
                    if try searchIndexSegments() >= Self.searchMergeFrom {
                        try database.execute("INSERT INTO words_fts (words_fts) VALUES ('optimize')")
                    }
                    try setSearchIndexMerging(automerge: Self.searchMergeFrom, crisismerge: 16)
                }
                try? setSearchIndexOption("hashsize", 1_048_576)
                // Tags in the order they are written, so the first spelling of a tag that
                // a word holds twice (in another case) wins, as word by word. The trigger
                // that counts each tag row as it goes in is off meanwhile; the counts of
                // the rows added are then added in one statement (half the time).
                let trigger = try database.text(
                    "SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = 'tag_counts_tag_added'")
                if trigger != nil { try database.execute("DROP TRIGGER tag_counts_tag_added") }
                try database.run(
                    """
                    INSERT OR IGNORE INTO word_tags (tag_key, word_seq, tag)
                    SELECT midiccio_tag_key(t.value), w.seq, t.value FROM words w, json_each(w.tags) t
                    WHERE w.seq >= ? ORDER BY w.seq, t.key
                    """, [.integer(first)])
                if let trigger {
                    try database.execute(trigger)
                    // As the trigger would: live words only, the smallest spelling kept.
                    // Looking each tag row's word up costs most of the count, so only when
                    // some of the words written are in the Trash (never in an import).
                    let trashed = try database.integer(
                        "SELECT EXISTS (SELECT 1 FROM words WHERE deleted_at IS NOT NULL AND seq >= ?)", [.integer(first)])
                    let live = trashed == 1 ? "JOIN words w ON w.seq = t.word_seq WHERE w.deleted_at IS NULL AND" : "WHERE"
                    try database.run(
                        """
                        INSERT INTO tag_counts (tag_key, tag, count)
                        SELECT * FROM (
                            SELECT t.tag_key, min(t.tag), count(*) FROM word_tags t
                            \(live) t.word_seq >= ? GROUP BY t.tag_key
                        ) WHERE true
                        ON CONFLICT (tag_key) DO UPDATE SET count = count + excluded.count, tag = min(tag, excluded.tag)
                        """, [.integer(first)])
                }
            }
            for sql in deferred { try database.execute(sql) }
            return result
        }
    }

    /// Puts every word outside the Trash from row `first` on into the search indexes, in
    /// row order (FTS5 writes out its buffer at every row out of order: 7x slower).
    func addToSearchIndexes(from first: Int64) throws {
        try database.run(
            """
            INSERT INTO words_fts (rowid, term, reading, meaning, examples, notes, tags)
            SELECT seq, \(SearchText.columns) FROM words WHERE seq >= ? AND +deleted_at IS NULL ORDER BY seq
            """, [.integer(first)])
        try database.run(
            """
            INSERT INTO terms_fts (rowid, term)
            SELECT seq, midiccio_search_text(term) FROM words WHERE seq >= ? AND +deleted_at IS NULL ORDER BY seq
            """, [.integer(first)])
    }

    /// Builds the search indexes again from the words: the fold that made them changed
    /// (`TermKey.foldVersion`, or the ICU), or they are new.
    func rebuildSearchIndexes() throws {
        try makeSearchChanges()
        try database.execute("INSERT INTO words_fts (words_fts) VALUES ('delete-all')")
        try database.execute("INSERT INTO terms_fts (terms_fts) VALUES ('delete-all')")
        try addToSearchIndexes(from: Int64.min)
    }

    /// How many segments the search index is in, each with rows of its own in FTS5's
    /// table of leaf pages (`words_fts_idx`). Entries FTS5 still holds in memory, to write
    /// out at the commit or when its table fills, are not one yet.
    func searchIndexSegments() throws -> Int64 {
        try database.integer("SELECT count(DISTINCT segid) FROM words_fts_idx") ?? 0
    }

    /// Sets how FTS5 merges the search index's segments as it writes them: `automerge`
    /// 0 merges none as it goes (FTS5's default is 4), and `crisismerge` is how many
    /// segments of one level it lets pile up before it merges them all the same (default
    /// 16).
    private func setSearchIndexMerging(automerge: Int, crisismerge: Int) throws {
        try setSearchIndexOption("automerge", automerge)
        try setSearchIndexOption("crisismerge", crisismerge)
    }

    /// Sets one of the search index's own settings (FTS5 keeps them in the file with it).
    private func setSearchIndexOption(_ name: String, _ value: Int) throws {
        try database.execute("INSERT INTO words_fts (words_fts, rank) VALUES ('\(name)', \(value))")
    }

    /// Drops the indexes of `words` that the schema made with CREATE INDEX (not the
    /// unique id, the primary key and the Trash's) and returns the statements that make
    /// them again, as the schema wrote them.
    private func dropSecondaryIndexes() throws -> [String] {
        // The Trash's partial indexes stay: the words a bulk write inserts are live (an
        // import's all are), so those indexes take few or no entries, while building one
        // again reads the whole table once more, through the write-ahead log.
        // The index of each word's tag rows stays too. The tag rows of the words inserted
        // go in at the end in the order of their words, so it only grows at its end; and
        // without it, each word already stored whose tags the write changes, or that it
        // moves to the Trash or purges, read every tag row of the library (the tag rows'
        // statement, the tag counts' triggers, the foreign key's cascade): a library of
        // 100,000 words pulling 60,000 new words and a tag on 50,000 of its own took
        // 419 s instead of 6.6 s.
        let indexes = try database.cached(
            """
            SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'words' AND sql IS NOT NULL
            AND name NOT IN ('words_trash', 'words_trash_seen', 'words_trash_term_key') ORDER BY name
            """
        ).rows([]) { (name: $0.text(0), sql: $0.text(1)) }
        for index in indexes { try database.execute("DROP INDEX \"\(index.name)\"") }
        return indexes.map(\.sql)
    }

    /// Runs `body` as one write transaction; any error rolls everything back.
    package func writing<T>(_ body: () throws -> T) throws -> T {
        try guarded {
            let outermostSearch = searchChanges == nil
            if outermostSearch { searchChanges = SearchChanges(limit: searchChangesHeldBack) }
            // Rolled back or committed, nothing is left to make.
            defer { if outermostSearch { searchChanges = nil } }
            return try database.write {
                let outermost = changeCounter == nil
                let outermostDigest = digest == nil
                let result = try body()
                if outermostSearch { try makeSearchChanges() }
                if outermost, let changeCounter {
                    try setInfo("change.counter", String(changeCounter))
                }
                if outermostDigest, let digest {
                    let text = String(digest, radix: 16)
                    try setInfo("sync.digest", text)
                    if let tally {
                        try setInfo("words.counts", "\(text) \(tally.live) \(tally.trash) \(String(tally.trashKey, radix: 16)) 2")
                    }
                }
                if outermost { changeCounter = nil }
                if outermostDigest {
                    digest = nil
                    tally = nil
                }
                return result
            }
        }
    }

    /// Turns SQLite failures into `LibraryError.storage`, leaving other errors alone.
    package func guarded<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            changeCounter = nil
            digest = nil
            tally = nil
            if let version = Database.newerSchema(in: error) { throw LibraryError.newerSchema(path: path, version: version) }
            throw LibraryError.from(error)
        } catch {
            changeCounter = nil
            digest = nil
            tally = nil
            throw error
        }
    }

    // MARK: - Digest

    /// An order-independent checksum over every word's id, updated time and Trash flag:
    /// two devices that hold the same words have the same digest. Kept up to date on
    /// every save, so reading it never scans the library.
    public func libraryDigest() throws -> String {
        try guarded {
            if let stored = try info("sync.digest") { return stored }
            return String(try computeDigest(), radix: 16)
        }
    }

    func updateDigest(removing old: Word?, adding new: Word?) throws {
        if digest == nil {
            if let stored = try info("sync.digest"), let value = UInt64(stored, radix: 16) {
                digest = value
            } else {
                digest = try computeDigest()
            }
        }
        if tally == nil { tally = try storedTally() ?? countWords() }
        if let old {
            digest = digest! &- Self.digestTerm(old)
            tally!.apply(old, -1)
        }
        if let new {
            digest = digest! &+ Self.digestTerm(new)
            tally!.apply(new, 1)
        }
    }

    private func computeDigest() throws -> UInt64 {
        try database.prepare("SELECT id, updated_at, deleted_at IS NOT NULL FROM words").rows { row in
            Self.digestTerm(id: row.text(0), updatedAt: row.int64(1), deleted: row.int64(2) != 0)
        }.reduce(0, &+)
    }

    static func digestTerm(_ word: Word) -> UInt64 {
        digestTerm(id: word.id.rawValue, updatedAt: word.updatedAt.milliseconds, deleted: word.isDeleted)
    }

    /// FNV-1a over "id|updatedAt|deleted"; summed (mod 2^64) so order does not matter.
    static func digestTerm(id: String, updatedAt: Int64, deleted: Bool) -> UInt64 {
        var hash = FNV1a()
        hash.add(id.utf8)
        hash.add(0x7C)
        hash.add(String(updatedAt).utf8)
        hash.add(0x7C)
        hash.add(deleted ? 0x31 : 0x30)
        return hash.value
    }

    /// Computes every word's term key and sort key again with this ICU and these folding
    /// rules, builds the search indexes again, and records their version: keys from
    /// another ICU or other rules may order or match terms differently (a library moved to
    /// another machine, ICU upgraded, `TermKey.foldVersion` changed), and the search index
    /// must hold what a delete later takes out of it. Runs once per change, in one
    /// transaction; only the keys that differ are written. Nothing synced changes.
    func refreshTermKeys(progress: ((_ done: Int, _ total: Int) -> Void)? = nil) throws {
        try database.write {
            guard try info("collation.icu") != TermCollation.keysVersion else { return }
            let batch = try database.prepare("SELECT seq, term, term_key, sort_key FROM words WHERE seq > ? ORDER BY seq LIMIT 2000")
            let update = try database.prepare("UPDATE words SET term_key = ?, sort_key = ? WHERE seq = ?")
            let total = progress == nil ? 0 : Int(try database.integer("SELECT count(*) FROM words") ?? 0)
            var done = 0
            var last: Int64 = 0
            progress?(done, total)
            while true {
                let rows = try batch.rows([.integer(last)]) { ($0.int64(0), $0.text(1), $0.text(2), $0.bytes(3)) }
                for (seq, term, termKey, sortKey) in rows {
                    let newTermKey = TermKey.fold(term)
                    let newSortKey = collation.sortKey(term)
                    if newTermKey != termKey || newSortKey != sortKey {
                        try database.run(update, [.text(newTermKey), .blob(newSortKey), .integer(seq)])
                    }
                }
                guard let end = rows.last?.0 else { break }
                last = end
                done += rows.count
                progress?(done, total)
            }
            try rebuildSearchIndexes()
            try setInfo("collation.icu", TermCollation.keysVersion)
        }
    }

    package func setInfo(_ key: String, _ value: String) throws {
        try database.run(
            "INSERT INTO library_info (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.text(key), .text(value)])
    }

    package func info(_ key: String) throws -> String? {
        try database.text("SELECT value FROM library_info WHERE key = ?", [.text(key)])
    }

    /// `ids` without repeats, in first-seen order (a word named twice is handled once).
    static func unique(_ ids: [WordID]) -> [WordID] {
        var seen = Set<WordID>()
        return ids.filter { seen.insert($0).inserted }
    }

    /// Refuses to write an export over the library file itself (or its WAL files).
    func checkNotLibrary(_ target: String) throws {
        func resolved(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path }
        let library = resolved(path)
        let resolvedTarget = resolved(target)
        let sameFile =
            FileSystem.identity(target).map { found in
                [path, path + "-wal", path + "-shm"].contains { FileSystem.identity($0).map { $0 == found } ?? false }
            } ?? false
        if sameFile || resolvedTarget == library || resolvedTarget == library + "-wal" || resolvedTarget == library + "-shm" {
            throw LibraryError.fileError(path: target, reason: "is the library itself; choose another file name")
        }
    }

    /// The bytes of a file to import or restore. The library file itself is refused
    /// before it is opened: reading it outside SQLite, then closing it, would drop the
    /// locks this process's connections hold on it.
    func readInputFile(_ target: String) throws -> Data {
        try checkNotLibrary(target)
        return try files { try FileSystem.read(target) }
    }

    /// `content` checked (`WordContent.validated`); `holding` is how many tags the word it
    /// replaces holds, which an edit may keep when that is past `WordLimits.tagCount`, and
    /// `term` that word's term, which an edit may keep as it is.
    static func validate(_ content: WordContent, holding heldTags: Int = 0, term: String? = nil) throws -> WordContent {
        do {
            return try content.validated(tagLimit: max(WordLimits.tagCount, heldTags), keepingTerm: term)
        } catch {
            throw LibraryError.invalidWord(error)
        }
    }
}

/// Random word ids from a SplitMix64 generator seeded from the system's secure one: ids
/// need to be unique, not secret.
private final class WordIDSource {
    private var state: UInt64

    init() {
        var system = SystemRandomNumberGenerator()
        state = system.next()
    }

    func next() -> WordID {
        var generator = Generator(owner: self)
        return WordID.random(using: &generator)
    }

    private struct Generator: RandomNumberGenerator {
        let owner: WordIDSource

        mutating func next() -> UInt64 {
            owner.state &+= 0x9E37_79B9_7F4A_7C15
            var value = owner.state
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            return value ^ (value >> 31)
        }
    }
}
