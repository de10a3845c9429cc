import Foundation
import MiDiccioFiles
import MiDiccioModel
import MiDiccioStore

/// What a backup restore (or its undo) changed.
public struct RestoreReport: Hashable, Sendable {
    /// Words that were not in the library.
    public var added = 0
    /// Words whose content changed.
    public var updated = 0
    /// Words left as they were (the library's copy was newer or identical).
    public var unchanged = 0
    /// A merge: words left as they were whose backup copy gives a field another value at
    /// the same time as the library's (a backup edited by hand, say), which a merge does
    /// not take. They were counted "unchanged", and nothing said the backup's values were
    /// left out (found by the exploratory helper, round 23A #3).
    public var differingAtSameTime = 0
    /// The terms of the first `listedTerms` of `differingAtSameTime`.
    public var differingAtSameTimeTerms: [String] = []
    /// Words moved to the Trash.
    public var trashed = 0
    /// Backup words left out because they were purged (a merge never brings them back).
    public var skippedPurged = 0
    /// True when a `replace` restore merged instead, into a library that held no word
    /// and no purge (a new laptop, say): there was nothing to replace, and restored words
    /// given new times would have undone, on every device this library then syncs with,
    /// every edit made there since the backup (found by the exploratory helper).
    public var mergedIntoEmpty = false
    /// True when the restore added, changed or moved to the Trash any word: only then is
    /// there anything for `backup undo` to put back.
    public var changedWords: Bool { added > 0 || updated > 0 || trashed > 0 }
    /// Undo only: words changed since the restore (here or on another device), kept as
    /// they are rather than put back, so undoing a restore never loses a later edit.
    public var keptEdited = 0
    /// Undo only: true when no sync had met the restore (`WordLibrary.restoreUnsent`), so
    /// its words went back with their own times as well: the restore never reaches other
    /// devices, and an edit made there before it still wins.
    public var undoneBeforeSync = false
    /// Undo only: words another device holds as the restore left them, its own changes
    /// synced from there (the restore brought a copy of them, from that device's backup),
    /// kept as they are: taken back, they were taken back on that device too.
    public var keptHeldElsewhere = 0
    /// Undo only: of the words it moved to the Trash, those studied (answers stay with them
    /// there, and come back when they are restored). It said nothing of them, where
    /// `import undo` did (found by the exploratory helper, round 23B #8).
    public var trashedStudied = 0
    /// A replace that changed no word (the library equalled the backup): true when the
    /// undo of an earlier restore is there still, which `backup undo` then undoes; false
    /// when there is none (the new times themselves cannot be undone).
    public var earlierUndoKept = false
    /// Undo only: words of the restore deleted permanently since (Empty Trash,
    /// trash.autoPurgeDays), which cannot be put back, and the first of their terms.
    public var purgedSinceRestore = 0
    /// The terms of the first `listedTerms` of `purgedSinceRestore`.
    public var purgedSinceRestoreTerms: [String] = []
    /// For an undo: the restore undone, its file and when it ran (nil for a restore from
    /// before 2026-12-05, which noted neither).
    public var source: UndoSource?
    /// Answers of the backup's study history that were not here, added (a restore or its
    /// dry run; events are immutable, so an undo leaves them).
    public var answersAdded = 0
    /// The settings (`LibrarySetting` keys) the restore took from the backup, where the
    /// backup's was set later than the library's, or the library's never was (a new laptop
    /// set up from a backup): they sync from here as a setting changed here does. Restores
    /// left them out until 2026-12-06 (round 23A #5). For an undo: those the restore it
    /// undid took, which it leaves as they are.
    public var settingsTaken: [String] = []
    /// Settings of the backup it left out, as `key = value`: `trash.autoPurgeDays` (on, it
    /// deletes words for good: taken, it purged the Trash of a library that never had it on,
    /// on every device; round 25B #1), and any dated more than a day after this computer's
    /// clock (one of 2999 then beat every later change, on every device; round 25B #2).
    public var settingsLeftOut: [String] = []
    /// The backup's `trash.autoPurgeDays`, when it was on and left out (it is in
    /// `settingsLeftOut` too).
    public var cleanUpLeftOut: String?
    /// Settings this library changed later than the backup did, kept as they are.
    public var settingsKeptHere: [String] = []
    /// Backup words with a time more than two years after this device's clock
    /// (`WordLibrary.latestTime(now:)`), restored as they are: sync takes such a word from
    /// a device whose clock was that far ahead. Before 2026-12-05 one refused the whole
    /// backup, so a single sync from a device set to 2029 made every later backup of
    /// every device unrestorable (found by the exploratory helper, round 12C).
    public var wordsAhead = 0
    /// Answers of the backup's study history dated as far ahead, or before 2000, left out
    /// (a hand-edited answer of 2999 made its word due in 2999 on every device; round 7).
    /// The rest of the backup is restored.
    public var answersLeftOut = 0
    /// The earliest and the latest time of the `wordsAhead` and the `answersLeftOut`.
    public var strayTimeRange: ClosedRange<Timestamp>?
    /// The terms of the first `listedTerms` words added, in the backup's order.
    public var addedTerms: [String] = []
    /// The terms of the first `listedTerms` words updated.
    public var updatedTerms: [String] = []
    /// The terms of the first `listedTerms` words moved to the Trash.
    public var trashedTerms: [String] = []
    /// The terms of the first `listedTerms` backup words left out as purged.
    public var skippedPurgedTerms: [String] = []
    /// A replace: which words it moves to the Trash for being absent from the backup, as
    /// a fingerprint of their ids (16 hexadecimal digits; the same set, the same text). A
    /// preview gives it, and the restore it confirms passes it back (`expectingSwept`).
    public var sweptKey: String { sweptFingerprint.sixteenHexDigits }
    /// The XOR of the FNV-1a hashes of the ids `sweptKey` stands for.
    var sweptFingerprint: UInt64 = 0

    /// How many terms each list of a report holds at most (a preview shows them).
    public static let listedTerms = 50

    /// Counts a word added, and lists its term while the list has room.
    mutating func countAdded(_ term: String) {
        added += 1
        if addedTerms.count < Self.listedTerms { addedTerms.append(term) }
    }

    /// Counts a word updated, and lists its term while the list has room.
    mutating func countUpdated(_ term: String) {
        updated += 1
        if updatedTerms.count < Self.listedTerms { updatedTerms.append(term) }
    }

    /// Counts a backup word left out as purged, and lists its term while the list has room.
    mutating func countSkippedPurged(_ term: String) {
        skippedPurged += 1
        if skippedPurgedTerms.count < Self.listedTerms { skippedPurgedTerms.append(term) }
    }

    /// Counts a word a replace moves to the Trash for being absent from the backup.
    mutating func countSwept(_ id: WordID, term: String) {
        sweptFingerprint ^= FNV1a.hash(id.rawValue.utf8)
        countTrashed(term)
    }

    /// Counts a word an undo made `result` of `current`: unchanged (its content as it was;
    /// not counted when it keeps an edit, `edited`), moved to the Trash, or updated.
    mutating func countUndone(_ result: Word, from current: Word, edited: Bool) {
        if result.hasSameContent(as: current) {
            if !edited { unchanged += 1 }
        } else if result.isDeleted && !current.isDeleted {
            countTrashed(result.term)
        } else {
            countUpdated(result.term)
        }
    }

    /// Counts a word kept as it is that the backup gives otherwise at the same time
    /// (`differingAtSameTime`), and lists its term while the list has room.
    mutating func countDifferingAtSameTime(_ term: String) {
        differingAtSameTime += 1
        if differingAtSameTimeTerms.count < Self.listedTerms { differingAtSameTimeTerms.append(term) }
    }

    /// Counts a word moved to the Trash, and lists its term while the list has room.
    mutating func countTrashed(_ term: String) {
        trashed += 1
        if trashedTerms.count < Self.listedTerms { trashedTerms.append(term) }
    }

    /// Makes an empty report.
    public init() {}

    /// The counts as JSON members (name, JSON value), with `dryRun`: what the command
    /// line's `--json` and the web app's API both say of a restore or its undo.
    package func jsonMembers(dryRun: Bool) -> [(String, String)] {
        [
            ("added", String(added)), ("updated", String(updated)), ("unchanged", String(unchanged)),
            ("trashed", String(trashed)), ("skippedPurged", String(skippedPurged)), ("keptEdited", String(keptEdited)),
            ("differingAtSameTime", String(differingAtSameTime)),
            ("earlierUndoKept", String(earlierUndoKept)),
            ("mergedIntoEmpty", String(mergedIntoEmpty)), ("answersAdded", String(answersAdded)),
            ("settingsTaken", JSONText.array(settingsTaken)), ("settingsLeftOut", JSONText.array(settingsLeftOut)),
            ("settingsKeptHere", JSONText.array(settingsKeptHere)), ("dryRun", String(dryRun)),
            ("sweptKey", JSONText.quote(sweptKey)), ("undid", JSONText.optional(source?.described)),
            ("wordsAhead", String(wordsAhead)), ("answersLeftOut", String(answersLeftOut)),
            ("purgedSinceRestore", String(purgedSinceRestore)), ("undoneBeforeSync", String(undoneBeforeSync)),
            ("keptHeldElsewhere", String(keptHeldElsewhere)), ("trashedStudied", String(trashedStudied)),
            ("earliestStrayTime", JSONText.optional(strayTimeRange?.lowerBound.iso8601)),
            ("latestStrayTime", JSONText.optional(strayTimeRange?.upperBound.iso8601)),
        ]
    }

    /// What a restore says of the backup's settings (`dryRun`: as it would), or nil when it
    /// took, kept and left out none.
    public func settingsNote(dryRun: Bool) -> String? {
        var parts: [String] = []
        if !settingsTaken.isEmpty {
            parts.append("settings \(dryRun ? "that would be " : "")taken from it: " + settingsTaken.joined(separator: ", "))
        }
        if !settingsKeptHere.isEmpty {
            parts.append("this library's own later settings kept: " + settingsKeptHere.joined(separator: ", "))
        }
        let key = LibrarySetting.autoPurgeDays.rawValue
        if let days = cleanUpLeftOut {
            parts.append(
                "not taken: \(key) = \(days) (the Trash's clean-up deletes words for good, so a restore never turns it on: "
                    + "'midiccio config set \(key) \(days)' does)")
        }
        let ahead = settingsLeftOut.filter { $0 != "\(key) = \(cleanUpLeftOut ?? "")" }
        if !ahead.isEmpty {
            parts.append("not taken, dated far after this computer's clock: " + ahead.joined(separator: ", "))
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// What an undo says of the settings the restore it undid took, or nil when none.
    public var settingsLeftByUndoNote: String? {
        settingsTaken.isEmpty
            ? nil
            : "The settings the restore took stay as they are: " + settingsTaken.joined(separator: ", ")
                + " (change them with 'midiccio config set', or in Settings)."
    }

    /// What an undo says when `undoneBeforeSync`.
    public static let undoneBeforeSyncNote =
        "No sync had sent the restore yet, so its words went back with their own times too: it never reaches your other devices, and what they changed before it is kept when this library syncs."

    /// What a restore says of `differingAtSameTime`, or nil when there are none.
    public var differingAtSameTimeNote: String? {
        guard differingAtSameTime > 0 else { return nil }
        let one = differingAtSameTime == 1
        return "\(one ? "1 word" : "\(differingAtSameTime) words") of the backup \(one ? "gives" : "give") a field another value "
            + "at the same time as the library (a backup edited by hand, say): a merge keeps the library's, and a replace "
            + "takes the backup's: \(TermList.named(differingAtSameTimeTerms, of: differingAtSameTime))."
    }

    /// What an undo says of `purgedSinceRestore`, or nil when there are none.
    public var purgedSinceRestoreNote: String? {
        guard purgedSinceRestore > 0 else { return nil }
        let named = TermList.named(purgedSinceRestoreTerms, of: purgedSinceRestore)
        return "\(purgedSinceRestore == 1 ? "1 word" : "\(purgedSinceRestore) words") the restore changed "
            + "\(purgedSinceRestore == 1 ? "was" : "were") deleted permanently since (Empty Trash, or trash.autoPurgeDays) "
            + "and cannot be put back: \(named)."
    }

    /// This computer's clock as the restore read it, when it found a time out of range.
    public var clockAtRestore: Timestamp?

    /// Notes a time out of the range a clock set right gives (`strayTimeRange`), found when
    /// this computer's clock read `now`.
    mutating func noteStray(_ time: Timestamp, now: Timestamp) {
        strayTimeRange = strayTimeRange.map { min($0.lowerBound, time)...max($0.upperBound, time) } ?? time...time
        clockAtRestore = now
    }

    /// What a person is told of the `wordsAhead` and the `answersLeftOut`, or nil when
    /// there are none.
    public var strayTimesNote: String? {
        guard let range = strayTimeRange else { return nil }
        let span =
            range.lowerBound == range.upperBound ? range.lowerBound.iso8601 : "\(range.lowerBound.iso8601) to \(range.upperBound.iso8601)"
        var parts: [String] = []
        if wordsAhead > 0 {
            parts.append("\(wordsAhead) word\(wordsAhead == 1 ? " keeps its time" : "s keep theirs") (sync takes such times too)")
        }
        if answersLeftOut > 0 { parts.append("\(answersLeftOut) study answer\(answersLeftOut == 1 ? " is" : "s are") left out") }
        // This computer's clock may be the wrong one: one that reads 1970 (no clock kept
        // while off) left out every answer after 2028 and blamed the device that wrote them
        // (found by the exploratory helper, round 22A #6).
        let reading = clockAtRestore.map { ", which reads \($0.iso8601)" } ?? ""
        return "The backup holds times far from this computer's clock\(reading) (\(span)): a device's clock was wrong when "
            + "they were written, this computer's clock is wrong now, or the file was edited. " + parts.joined(separator: "; ") + "."
    }
}

/// Rolls a restore back that must keep nothing: a dry run, or one that changed nothing.
private struct RestoreRollback: Error {}

extension WordLibrary {
    /// Writes every word, Trash included, to a backup file at `path` (atomically), readable
    /// by its owner only, as the library is: a backup holds every word and the study history.
    /// An existing file is replaced only when it is a backup, or with `overwrite`; a
    /// symbolic link's file is written (`exportDestination`).
    @discardableResult
    public func exportBackup(to target: String, overwrite: Bool = false) throws -> Int {
        let path = try exportDestination(target, kind: .backup, overwrite: overwrite)
        // Word by word as they are read, in one read transaction: a library of a million
        // words is never held whole, nor is its text. The file appears whole, or not at all.
        return try guarded {
            try database.read {
                let count = Int(try database.integer("SELECT count(*) FROM words") ?? 0)
                let reviews = try allReviewEvents()
                let settings = try database.cached("SELECT key, value, time, writer FROM settings ORDER BY key").rows([]) {
                    SettingRecord(key: $0.text(0), value: $0.text(1), time: Timestamp(milliseconds: $0.int64(2)), writer: $0.text(3))
                }
                try files {
                    try FileSystem.writeAtomically(to: path, ownerOnly: true) { write in
                        var writer = BackupFile.Writer()
                        try write(
                            Data(
                                writer.start(
                                    wordCount: count, reviews: reviews, settings: settings, exportedAt: clock.now(), exportedBy: deviceID
                                ).utf8))
                        var exported = 0
                        try database.cached("SELECT \(Self.columns) FROM words ORDER BY created_at, seq").forEachRow { row in
                            let stored = try Self.storedWord(row)
                            try write(Data(writer.next(stored.word, times: stored.times, tagClock: stored.tagClock).utf8))
                            exported += 1
                        }
                        // The file states its count, and a restore checks it: within one read
                        // transaction they agree, and a file where they did not would not be kept.
                        guard exported == count else {
                            throw LibraryError.fileError(
                                path: path, reason: "the words changed while they were written; nothing was written")
                        }
                        try write(Data(writer.end().utf8))
                    }
                }
                return count
            }
        }
    }

    /// Restores a backup file, all in one transaction, which a problem anywhere in the file
    /// rolls back: nothing is changed then.
    ///
    /// Merge (default): a backup word newer than the library's copy, or missing from the
    /// library, replaces it and becomes pending so it reaches other devices (product
    /// notes, bug 2); a newer library word stays. A backup that gives each field's time
    /// (`times`, written since 2026-12-04) is merged field by field: a field edited here,
    /// or on another device, after the backup's copy of it stays as it is. `replace`: the library becomes equal to
    /// the backup; words not in it go to the Trash and restored words get a new time so
    /// they win on every device; into a library that holds no word and no purge, it merges
    /// instead (`RestoreReport.mergedIntoEmpty`). The prior state of every touched word is kept for
    /// `undoRestore()`. With `dryRun` nothing is changed; the report says what would be.
    ///
    /// `progress` is called with (backup words done, words in the backup) before the
    /// first word, then every `progressInterval` words, and last when every word is done.
    ///
    /// `expectingSwept` is the `sweptKey` of the preview a person confirmed: a replace that
    /// would now move other words to the Trash for being absent from the backup (words
    /// another device added since, pulled by the sync before it) changes nothing and
    /// throws `LibraryError.restoreChangedSincePreview`.
    ///
    /// `source` is the file the undo names, when the backup at `path` was made from
    /// another file (`restoreLibraryFile(from:replace:dryRun:progress:)`); else `path`.
    public func restoreBackup(
        from path: String, replace replacing: Bool = false, dryRun: Bool = false, expectingSwept: String? = nil,
        source: String? = nil, progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> RestoreReport {
        // Streamed, never held whole. A file that states its word count before its words
        // (as MiDiccio writes them) is read once: each word is checked and restored as it
        // is read, and the check's verdict at the end (a bad word anywhere, a bad end)
        // rolls the transaction back. Any other is read twice: first every word checked,
        // then each restored as it is read again. Either way a problem is reported as the
        // whole-file check finds it (`BackupFile.check`).
        let header = BackupFile.statedHeader(pieces: try backupPieces(path))
        let stated = header.wordCount
        let checkedFirst = stated == nil ? try BackupFile.check(pieces: try backupPieces(path), file: path) : nil
        let total = stated ?? checkedFirst?.wordCount ?? 0
        var report = RestoreReport()
        progress?(0, total)
        do {
            try writingInBulk(expectedWords: total) {
                // Into a library that holds nothing, a replace is a merge (`mergedIntoEmpty`).
                let replace = try replacing && !isBlank()
                report.mergedIntoEmpty = replace != replacing
                // A restore that changes no word and adds answers only gives these back at the
                // end: it has nothing of its own to undo.
                try database.run("DROP TABLE IF EXISTS temp.restore_undo_before")
                try database.run("CREATE TEMP TABLE restore_undo_before AS SELECT * FROM restore_undo")
                // The words a replace gives a fresh time and nothing else (`replaceWith`).
                try database.run("DROP TABLE IF EXISTS temp.restore_retimed")
                try database.run("CREATE TEMP TABLE restore_retimed (word_id TEXT PRIMARY KEY)")
                try database.run("DELETE FROM restore_undo")
                var inBackup = Set<WordID>()
                // Purged ids a replace brought back under new ones: their history follows.
                var renamed: [WordID: WordID] = [:]
                var index = 0
                // Into a library that holds no word (a new laptop, say) a merge has nothing
                // to look up: every word goes in as read, several rows to a statement, its
                // derived columns made as it is read, and the undo's rows in one statement
                // at the end (each word was absent before).
                let intoEmpty = try usesBulkWrites && !replace && (database.integer("SELECT EXISTS (SELECT 1 FROM words)") ?? 0) == 0
                var fresh: [NewRow] = []
                func saveFresh() throws {
                    guard !fresh.isEmpty else { return }
                    try insertNew(fresh, pending: true)
                    fresh.removeAll(keepingCapacity: true)
                }
                // A word this far ahead of this device's clock came from a device whose
                // clock was as far ahead (sync takes it), or from an edited file: restored
                // as it is, and told (`strayTimes`).
                let latest = Self.latestTime(now: clock.now())
                func restore(_ entry: BackupFile.Entry, columns: NewWordColumns?) throws {
                    let restored = entry.word
                    if let progress, index > 0, index % Self.progressInterval == 0 { progress(index, total) }
                    index += 1
                    let times = [restored.updatedAt, restored.createdAt, restored.deletedAt]
                    let newest = times.compactMap(\.self).max() ?? restored.updatedAt
                    if newest.milliseconds > latest {
                        report.wordsAhead += 1
                        report.noteStray(newest, now: clock.now())
                    }
                    if intoEmpty, let columns {
                        // A marker wins over a backup, as in `merge`.
                        if try isPurged(restored.id) {
                            report.countSkippedPurged(restored.term)
                            return
                        }
                        fresh.append(
                            NewRow(
                                word: restored, times: entry.times ?? FieldTimes(all: restored.updatedAt), writers: StoredWord.localWriters,
                                columns: columns, tagClock: entry.tagClock ?? .implied))
                        report.countAdded(restored.term)
                        if fresh.count == Self.restoreBlock { try saveFresh() }
                        return
                    }
                    // Only a replace needs the backup's ids, to trash the words it lacks.
                    if replace { inBackup.insert(restored.id) }
                    let local = try stored(restored.id)
                    // A marker wins over a backup: a merge never brings a purged word back.
                    if replace {
                        // A purged id comes back under a new one, which must count as "in
                        // the backup" too, or the clean-up below would trash it again.
                        let id = try replaceWith(restored, local: local, report: &report)
                        inBackup.insert(id)
                        if id != restored.id { renamed[restored.id] = id }
                    } else {
                        try merge(entry, local: local, report: &report)
                    }
                }
                let locale = intoEmpty ? collationLocale : nil
                var checked = BackupFile.Checked(wordCount: 0, reviews: [])
                // A large backup is parsed on a second thread while this one writes
                // (`Handoff`), a few blocks of words apart at most.
                if total >= restoreReadAsideFrom {
                    try Handoff.run(capacity: 8) { emit in
                        let maker = locale.map { ColumnMaker(locale: $0) }
                        var block: [(BackupFile.Entry, NewWordColumns?)] = []
                        block.reserveCapacity(Self.restoreBlock)
                        let history = try BackupFile.readWords(pieces: try filePieces(path), file: path, checkedFirst: checkedFirst) {
                            entry in
                            block.append((entry, maker?.columns(for: entry.word)))
                            guard block.count == Self.restoreBlock else { return }
                            try emit(.words(block))
                            block.removeAll(keepingCapacity: true)
                        }
                        if !block.isEmpty { try emit(.words(block)) }
                        try emit(.end(history))
                    } consume: { (batch: RestoreBatch) in
                        switch batch {
                        case .words(let block):
                            for (entry, columns) in block { try restore(entry, columns: columns) }
                        case .end(let history): checked = history
                        }
                    }
                } else {
                    let maker = locale.map { ColumnMaker(locale: $0) }
                    checked = try BackupFile.readWords(pieces: try backupPieces(path), file: path, checkedFirst: checkedFirst) { entry in
                        try restore(entry, columns: maker?.columns(for: entry.word))
                    }
                }
                try saveFresh()
                if intoEmpty {
                    try database.run("INSERT OR IGNORE INTO restore_undo (word_id, prior) SELECT id, NULL FROM words ORDER BY id")
                }
                if replace {
                    let live = try database.cached("SELECT \(Self.columns) FROM words WHERE deleted_at IS NULL").rows([], Self.storedWord)
                    for local in live where !inBackup.contains(local.word.id) {
                        try keepUndo(local)
                        _ = try update(local) { word, time in word.deletedAt = time }
                        report.countSwept(local.word.id, term: local.word.term)
                    }
                    if let expectingSwept, expectingSwept != report.sweptKey {
                        throw LibraryError.restoreChangedSincePreview(trashedNow: report.trashed)
                    }
                }
                // The review history: events are immutable, so a restore only adds those
                // missing here (pending, so they reach other devices); a purged word's stay
                // out, except those of a word a replace brought back under a new id, which
                // come with it (they stayed out, and the word came back as new).
                var reviews = checked.reviews
                if !renamed.isEmpty {
                    for index in reviews.indices {
                        if let id = renamed[reviews[index].wordID] { reviews[index].wordID = id }
                    }
                }
                report.answersAdded = try restoreReviewEvents(try checkRestoredReviews(reviews, file: path, report: &report))
                try restoreSettings(checked.settings, report: &report)
                let reviewsAdded = report.answersAdded > 0 || !report.settingsTaken.isEmpty
                // Each touched word's time as the restore leaves it: a word whose time has
                // moved by the undo was edited since, and the undo keeps that edit.
                try noteRestoredTimes()
                progress?(total, total)
                // Said of a replace that changes nothing (a dry run's too): is there an earlier
                // restore its undo still undoes? It promised one when there was none (round 16B).
                if !report.changedWords {
                    report.earlierUndoKept = try database.integer("SELECT EXISTS (SELECT 1 FROM temp.restore_undo_before)") == 1
                }
                // A merge that changes nothing leaves the undo of the restore before it, which
                // it would otherwise have emptied (found by the exploratory helper).
                if dryRun || (!replace && !report.changedWords && !reviewsAdded) { throw RestoreRollback() }
                // One that adds answers only keeps them, and leaves that undo as well (found by
                // the exploratory helper, round 6: `backup undo` then had nothing to undo).
                // So does a replace into a library that already equals the backup: its fresh
                // times stay (they make it win over edits other devices have not sent yet), and
                // the undo of the restore before it stays, its words' times as this one leaves
                // them, so that it does not take them for edits made since. The same replace
                // run twice threw that undo away, with the edits only it could put back (found
                // by the exploratory helper, round 13A).
                if !report.changedWords {
                    try database.run("DELETE FROM restore_undo")
                    try database.run("INSERT INTO restore_undo SELECT * FROM temp.restore_undo_before")
                    try noteRestoredTimes(where: "word_id IN (SELECT word_id FROM temp.restore_retimed)")
                } else {
                    // Its words may be another device's: the Trash's clean-up leaves them
                    // until a sync sends their deletion (`autoPurgeDue`). Not a backup this
                    // library, or a device it syncs with, wrote: their devices sync here, and
                    // the clean-up waits for them as for every word. It held the clean-up up to
                    // 180 days after a restore of the library's own backup, on every device
                    // (found by the exploratory helper, round 23A #4).
                    if try !isFromThisLibrary(exportedBy: header.exportedBy) {
                        try database.run(
                            "INSERT OR IGNORE INTO restored_from_elsewhere (id) SELECT word_id FROM restore_undo WHERE NOT retimed")
                        try setInfo(Self.restoredFromElsewhereAtKey, String(clock.now().milliseconds))
                    }
                    try noteUndoSource(Self.restoreSourceKey, path: source ?? path)
                    if report.settingsTaken.isEmpty {
                        try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.restoreSettingsKey)])
                    } else {
                        try setInfo(Self.restoreSettingsKey, report.settingsTaken.joined(separator: ","))
                    }
                    try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.restorePurgedKey)])
                    // No sync has sent it yet (`restoreUnsent`).
                    try setInfo(Self.restoreUnsentKey, "1")
                }
                try database.run("DROP TABLE temp.restore_undo_before")
                try database.run("DROP TABLE temp.restore_retimed")
            }
        } catch is RestoreRollback {}
        return report
    }

    /// Notes in the undo's rows (those `condition` picks, or all) each word's times as the
    /// restore leaves them, which tell the undo what was edited since.
    private func noteRestoredTimes(where condition: String? = nil) throws {
        try database.run(
            """
            UPDATE restore_undo SET (restored_updated_at, restored_times, restored_tags) = (
                SELECT updated_at, term_time || ',' || meaning_time || ',' || reading_time || ',' || examples_time
                    || ',' || notes_time || ',' || tags_time || ',' || deleted_time, tags
                FROM words WHERE words.id = restore_undo.word_id)
            """ + (condition.map { " WHERE " + $0 } ?? ""))
    }

    /// True when `device` (a backup's `exportedBy`) is this library or a device it has
    /// synced with; false for nil (a backup from before the field, or another program's).
    private func isFromThisLibrary(exportedBy device: String?) throws -> Bool {
        guard let device else { return false }
        return try device == deviceID || database.integer("SELECT EXISTS (SELECT 1 FROM sync_devices WHERE id = ?)", [.text(device)]) == 1
    }

    /// True when the library holds no word, not even in the Trash, and no word was ever
    /// purged from it (no purge marker): a replace has nothing to replace.
    private func isBlank() throws -> Bool {
        try database.integer("SELECT EXISTS (SELECT 1 FROM words) OR EXISTS (SELECT 1 FROM purged)") == 0
    }

    /// How many words a backup's reading thread hands over at once.
    static let restoreBlock = 256

    /// What a backup's reading thread hands over: words with their derived columns (into
    /// an empty library), then the review history once the file is read.
    private enum RestoreBatch: Sendable {
        case words([(BackupFile.Entry, NewWordColumns?)])
        case end(BackupFile.Checked)
    }

    /// Takes each of a backup's `settings` that was set later there than here (by time,
    /// then writer, as sync decides), or never here, as pending: the next sync carries it,
    /// and a device that set it later still keeps its own. It keeps the backup's time and
    /// is written by this device: a hand-edited backup giving another value at the time and
    /// by the writer of a device's own setting left the two disagreeing for good (round 25B
    /// #4). Never `trash.autoPurgeDays` turned on, nor one dated more than a day after this
    /// computer's clock (`RestoreReport.settingsLeftOut`).
    private func restoreSettings(_ settings: [SettingRecord], report: inout RestoreReport) throws {
        let latest = clock.now().milliseconds + 86_400_000
        for setting in settings {
            guard let known = LibrarySetting(rawValue: setting.key) else { continue }
            let local = try database.cached("SELECT value, time, writer FROM settings WHERE key = ?")
                .rows([.text(setting.key)]) { ($0.text(0), $0.int64(1), $0.text(2)) }.first
            if let local, local.0 == setting.value { continue }
            if let local, (local.1, local.2) >= (setting.time.milliseconds, setting.writer) {
                report.settingsKeptHere.append(setting.key)
                continue
            }
            if local == nil, known.defaultValue == setting.value { continue }
            let turnsCleanUpOn = known == .autoPurgeDays && setting.value != "off"
            if turnsCleanUpOn || setting.time.milliseconds > latest {
                report.settingsLeftOut.append("\(setting.key) = \(setting.value)")
                if turnsCleanUpOn { report.cleanUpLeftOut = setting.value }
                continue
            }
            try storeSetting(key: setting.key, value: setting.value, time: setting.time, writer: deviceID, pending: true)
            report.settingsTaken.append(setting.key)
        }
    }

    /// The `library_info` key of the settings the last restore took, for its undo to name.
    static let restoreSettingsKey = "restore.settingsTaken"

    /// The backup file at `path` a megabyte at a time (nil at its end).
    private func backupPieces(_ path: String) throws -> () throws -> [UInt8]? {
        try checkNotLibrary(path)
        guard FileManager.default.fileExists(atPath: path) else { throw LibraryError.fileError(path: path, reason: "no such file") }
        return try filePieces(path)
    }

    /// The `library_info` key counting the last restore's words deleted permanently since,
    /// with the first terms (`notePurgedSinceRestore`): "count", then a term a line.
    static let restorePurgedKey = "restore.undo.purged"

    /// The `library_info` key of when the last restore that brought or changed words ran
    /// (ms, this device's clock): the devices of the library the backup came from may hold
    /// its words, and a sync's clean-up leaves them until a sync reads another device's
    /// record of one of them (`SyncStore.restoreHolderHeard`), or for 180 days
    /// (`SyncSession.autoPurge`); a library that never syncs, 180 days too.
    package static let restoredFromElsewhereAtKey = "restore.fromElsewhereAt"

    /// Notes, in the purge's transaction, that a word the last restore touched was deleted
    /// permanently, so its undo can say so (found by the exploratory helper, round 12C:
    /// after trash.autoPurgeDays took the words a replace had moved to the Trash, `backup
    /// undo` said nothing of them, or "there is no restore to undo").
    func notePurgedSinceRestore(_ term: String) throws {
        var purged = try info(Self.restorePurgedKey).map(Self.purgedSinceRestore) ?? (count: 0, terms: [])
        purged.count += 1
        if purged.terms.count < RestoreReport.listedTerms { purged.terms.append(term) }
        let lines = ["\(purged.count)"] + purged.terms.map { String($0.map { $0.isNewline ? " " : $0 }) }
        try setInfo(Self.restorePurgedKey, lines.joined(separator: "\n"))
    }

    /// The count and terms `restorePurgedKey` holds.
    static func purgedSinceRestore(_ text: String) -> (count: Int, terms: [String]) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        return (Int(lines.first ?? "") ?? 0, Array(lines.dropFirst()))
    }

    /// The migration that gave undo data the word's time as a restore left it: undo data
    /// without it was written before this library took it.
    static let undoTimesMigration = "2026-12-restore-undo-keeps-later-edits"

    /// Puts every word the last restore touched back as it was before it, as new edits
    /// (pending, so other devices follow). A word edited since the restore, here or on a
    /// device it synced from, keeps that edit and counts in `keptEdited`. One step: a
    /// second undo has nothing to undo.
    ///
    /// `expecting`: the restore's source as a page showed it (`UndoSource.described`); a
    /// restore made since, elsewhere, is not undone in its place.
    public func undoRestore(expecting: String? = nil) throws -> RestoreReport {
        try writing {
            try checkUndoSource(Self.restoreSourceKey, expected: expecting)
            // A restore no sync has met is put back times and all (`restoreUnsent`).
            let unsent = try info(Self.restoreUnsentKey) != nil
            let allRows = try database.cached(
                "SELECT word_id, prior, restored_updated_at, restored_times, restored_tags, prior_sync, prior_tag_clock, retimed, "
                    + "held_elsewhere FROM restore_undo"
            )
            .rows { row in
                UndoRow(
                    id: row.text(0), prior: row.optionalText(1), restoredAt: row.isNull(2) ? nil : row.int64(2),
                    restoredTimes: row.optionalText(3), restoredTags: row.optionalText(4),
                    asBefore: unsent ? row.optionalText(5).flatMap(PriorSync.init(stored:)) : nil, priorTagClock: row.optionalText(6),
                    retimed: row.int64(7) != 0,
                    heldElsewhere: Set(WordField.allCases.filter { row.int64(8) & (1 << Int64($0.index)) != 0 }))
            }
            // A word a replace gave a new time and nothing else has only its times to put
            // back, and those only while the restore is on this device alone.
            let rows = allRows.filter { !$0.retimed || $0.asBefore != nil }
            // Words of the restore deleted permanently since (Empty Trash, trash.autoPurgeDays)
            // cannot come back: the undo names them, and says so when they were all it had.
            let purged = try info(Self.restorePurgedKey).map(Self.purgedSinceRestore)
            guard rows.contains(where: { !$0.retimed }) else {
                if let purged, purged.count > 0 {
                    throw LibraryError.restoreWordsPurged(count: purged.count, terms: purged.terms)
                }
                throw LibraryError.nothingToUndo
            }
            var report = RestoreReport()
            report.settingsTaken = try info(Self.restoreSettingsKey).map { $0.split(separator: ",").map(String.init) } ?? []
            try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.restoreSettingsKey)])
            report.purgedSinceRestore = purged?.count ?? 0
            report.purgedSinceRestoreTerms = purged?.terms ?? []
            let timelessSince =
                try database.integer("SELECT applied_at FROM schema_migrations WHERE name = ?", [.text(Self.undoTimesMigration)]) ?? .min
            /// The fields of `current` changed since the restore.
            func changedSince(_ row: UndoRow, _ current: StoredWord) -> Set<WordField> {
                if let times = row.restoredTimes.flatMap(Self.fieldTimes) {
                    return Set(WordField.allCases.filter { current.times[$0] != times[$0] })
                } else if let restoredAt = row.restoredAt {
                    return current.word.updatedAt.milliseconds != restoredAt ? Set(WordField.allCases) : []
                }
                return Set(WordField.allCases.filter { current.times[$0].milliseconds > timelessSince })
            }
            // A word the replace only gave a new time (the restore counted it unchanged) is left
            // as it is now, edited since or not, and counted unchanged as well: the undo's
            // counts named fewer words than the restore touched (found by the exploratory
            // helper, round 28B #2). Its edit is not one the undo kept: the restore never
            // changed the word (round 9).
            report.unchanged += allRows.filter { $0.retimed && $0.asBefore == nil }.count
            for row in rows {
                guard let id = WordID(row.id), let current = try stored(id) else { continue }
                let (priorText, asBefore, retimed) = (row.prior, row.asBefore, row.retimed)
                // A field changed since the restore (here, or pulled from another device) keeps
                // its change: its time moved. Told by the fields' times as the restore left
                // them: a restore takes fields with the backup's own times, and an edit pulled
                // since may leave the word's time where it was (and was put back). The other
                // fields of such a word are put back all the same: the whole word was kept
                // before, so a meaning the restore overwrote stayed overwritten once another
                // device changed the reading (found by the exploratory helper, round 8).
                // Undo data from before has the word's time only (every later edit moved it
                // when a restore stamped what it took with the backup word's time): a word
                // edited since is kept whole, as before. Undo data from before 2026-12-01 has
                // no time at all: a field changed after this library took the migration that
                // added them was changed after that restore, and keeps its change (it was put
                // back, found by the exploratory helper, round 12A).
                let editedSince = changedSince(row, current)
                // A field another device holds as the restore left it, its own change, stays
                // too: the restore brought a copy of it (`SyncStore.noteRestoredFieldsHeld`).
                let editedFields = editedSince.union(row.heldElsewhere)
                if !retimed {
                    if !editedSince.isEmpty {
                        report.keptEdited += 1
                    } else if !editedFields.isEmpty {
                        report.keptHeldElsewhere += 1
                    }
                }
                // A word the restore added and that was edited since (or that another device
                // holds) stays; so does one whose every field was edited since.
                if !editedFields.isEmpty && (priorText == nil || editedFields.count == WordField.allCases.count) { continue }
                guard let priorText else {
                    // The restore added this word: undoing it moves it to the Trash (never
                    // a hard delete, which sync would undo by bringing the word back).
                    if current.word.isDeleted {
                        report.unchanged += 1
                        continue
                    }
                    _ = try update(current) { word, time in word.deletedAt = time }
                    report.countTrashed(current.word.term)
                    if try hasAnswers(id) { report.trashedStudied += 1 }
                    continue
                }
                let prior = try BackupFile.decodeWord(
                    JSONText.parse(Data(priorText.utf8)) ?? JSONNull(), location: "undo data", file: path)
                if let asBefore {
                    let result = try putBackAsBefore(
                        current, prior: prior, sync: asBefore,
                        tagClock: Self.tagClock(stored: row.priorTagClock, tagsTime: asBefore.times.tags),
                        edited: editedFields)
                    report.undoneBeforeSync = true
                    // Retimed only: unchanged, as above, whatever was edited since.
                    report.countUndone(result, from: current.word, edited: !retimed && !editedFields.isEmpty)
                    continue
                }
                let tags = row.restoredTags.map { Self.tagsUndone(prior.tags, restored: JSONText.stringArray($0), now: current.word.tags) }
                let result = try update(current) { word, time in
                    let back = { (field: WordField) in !editedFields.contains(field) }
                    if back(.term) { word.term = prior.term }
                    if back(.meaning) { word.meaning = prior.meaning }
                    if back(.reading) { word.reading = prior.reading }
                    if back(.examples) { word.examples = prior.examples }
                    if back(.notes) { word.notes = prior.notes }
                    if back(.tags) { word.tags = tags ?? prior.tags }
                    if back(.deleted) { word.deletedAt = prior.deletedAt == nil ? nil : (current.word.deletedAt ?? time) }
                }
                // A word edited since counts as kept (above), and as updated too when its
                // other fields went back: it was counted as neither "updated" nor "unchanged"
                // (found by the exploratory helper, round 9: "0 updated" for 2 put back).
                report.countUndone(result, from: current.word, edited: !editedFields.isEmpty)
            }
            try database.run("DELETE FROM restore_undo")
            try database.run("DELETE FROM library_info WHERE key IN (?, ?)", [.text(Self.restorePurgedKey), .text(Self.restoreUnsentKey)])
            report.source = try takeUndoSource(Self.restoreSourceKey)
            // A conflict copy whose taking in is undone holds words out of sight again.
            if let file = report.source?.file { try forgetTakenIn(file) }
            return report
        }
    }

    /// The tags after undoing a restore that made `restored` of `prior`, where the word now
    /// has `now`: the tags the restore put on come off and those it took off go back on;
    /// a tag put on since (pulled from another device whose change left the tags' time as
    /// it was) stays (found by the exploratory helper). Unchanged since, the list is
    /// `prior` as it was, in its order.
    static func tagsUndone(_ prior: [String], restored: [String], now: [String]) -> [String] {
        guard !SameBytes.equal(now, restored) else { return prior }
        let priorKeys = Set(prior.map(TagSet.key)), restoredKeys = Set(restored.map(TagSet.key))
        let putOn = restoredKeys.subtracting(priorKeys)
        var tags = now.filter { !putOn.contains(TagSet.key($0)) }
        let kept = Set(tags.map(TagSet.key))
        tags += prior.filter { !restoredKeys.contains(TagSet.key($0)) && !kept.contains(TagSet.key($0)) }
        return tags
    }

    /// One row of `restore_undo`, as `undoRestore` reads it.
    private struct UndoRow {
        /// The word's id.
        var id: String
        /// The word before the restore (JSON), nil when the restore added it.
        var prior: String?
        /// The word's time as the restore left it (undo data of before its field times).
        var restoredAt: Int64?
        /// Each field's time as the restore left it (`fieldTimes`).
        var restoredTimes: String?
        /// The tags as the restore left them (JSON).
        var restoredTags: String?
        /// The sync state before the restore, when the restore has met no sync.
        var asBefore: PriorSync?
        /// The tag clock before the restore (`storedTagClock`).
        var priorTagClock: String?
        /// True for a word a replace only gave a new time.
        var retimed: Bool
        /// The fields another device holds as the restore left them.
        var heldElsewhere: Set<WordField>
    }

    /// Field times as `restore_undo.restored_times` keeps them; nil for any other text.
    static func fieldTimes(_ text: String) -> FieldTimes? {
        let numbers = text.split(separator: ",").compactMap { Int64($0) }
        guard numbers.count == WordField.allCases.count else { return nil }
        var times = FieldTimes(all: Timestamp(milliseconds: 0))
        for field in WordField.allCases { times[field] = Timestamp(milliseconds: numbers[field.index]) }
        return times
    }

    /// True when `undoRestore()` has something to put back.
    public func canUndoRestore() throws -> Bool {
        try guarded { try database.integer("SELECT EXISTS (SELECT 1 FROM restore_undo)") == 1 }
    }

    // MARK: - Restore steps

    /// Keeps `local`'s state before the restore (nil: the word was not here), its values
    /// and its sync state (`PriorSync`), once per word. `retimed`: a word a replace gives a
    /// new time and nothing else.
    private func keepUndo(_ local: StoredWord?, id: WordID? = nil, retimed: Bool = false) throws {
        let wordID = local?.word.id ?? id!
        try database.run(
            database.cached(
                "INSERT OR IGNORE INTO restore_undo (word_id, prior, prior_sync, prior_tag_clock, retimed) VALUES (?, ?, ?, ?, ?)"),
            [
                .text(wordID.rawValue), local.map { .text(WordJSON.object($0.word, pretty: false)) } ?? .null,
                local.map { .text(PriorSync(of: $0).stored) } ?? .null,
                local.map { Self.storedTagClock($0.tagClock, tagsTime: $0.times.tags) } ?? .null, .integer(retimed ? 1 : 0),
            ])
    }

    /// Merge: newest wins, compared on `updatedAt`; fields that differ take the backup's
    /// time, so a newer edit made on another device still wins when sync pulls it. With
    /// the backup's field `times`, field by field: a field whose backup copy is newer than
    /// the library's is taken, with its time; the others stay. Before, a word edited after
    /// the backup's other fields had been edited elsewhere brought those fields back as
    /// they were in the backup, stamped newer, on every device (found by the exploratory
    /// helper).
    ///
    /// The tags of a backup that gives times are merged one tag at a time, as sync merges
    /// them (`TagClock.merge`), with the backup's `tagClock` when it has one: a tag put on
    /// here, or on another device, that the backup never knew of stays (found by the
    /// exploratory helper: the list was taken whole, and such a tag was dropped).
    private func merge(_ entry: BackupFile.Entry, local: StoredWord?, report: inout RestoreReport) throws {
        let restored = entry.word, restoredTimes = entry.times
        if local == nil, try isPurged(restored.id) {
            report.countSkippedPurged(restored.term)
            return
        }
        guard let local else {
            try keepUndo(nil, id: restored.id)
            try save(
                restored, times: restoredTimes ?? FieldTimes(all: restored.updatedAt), previous: nil, pending: true,
                tagClock: entry.tagClock)
            report.countAdded(restored.term)
            return
        }
        // Without field times, the backup's word is as new as its newest field throughout.
        let backupTimes = restoredTimes ?? FieldTimes(all: restored.updatedAt)
        let tagsByTag = restoredTimes != nil || entry.tagClock != nil
        // With times, a field the backup has newer is taken even when its value is already
        // the library's: its time wins over an older edit another device made, as it did
        // on the backup's device (found by the exploratory helper: an edit undone there,
        // back to the library's value, was "unchanged" here and lost to the edit it undid).
        var taken = WordField.allCases.filter { field in
            (field != .tags || !tagsByTag) && backupTimes[field] > local.times[field]
                && (restoredTimes != nil || (!local.word.hasSameValue(field, as: restored) && restored.updatedAt > local.word.updatedAt))
        }
        var mergedTags: (tags: [String], clock: TagClock)?
        if tagsByTag {
            let merged = TagClock.merge(
                TagClock.Side(tags: local.word.tags, clock: local.tagClock, time: local.times.tags),
                TagClock.Side(tags: restored.tags, clock: entry.tagClock ?? .implied, time: backupTimes.tags),
                time: max(local.times.tags, backupTimes.tags))
            // The same list with newer marks (a tag taken off there since it was put on
            // elsewhere) is taken too, for the same reason.
            if !SameBytes.equal(merged.tags, local.word.tags) || (backupTimes.tags > local.times.tags && merged.clock != local.tagClock) {
                mergedTags = merged
                taken.append(.tags)
            }
        }
        guard !taken.isEmpty else {
            // A field the backup gives another value at the same time (a file edited by
            // hand) is not taken, and the word is not "unchanged" either (round 23A #3).
            if restoredTimes != nil,
                WordField.allCases.contains(where: {
                    $0 != .tags && backupTimes[$0] == local.times[$0] && !local.word.hasSameValue($0, as: restored)
                })
            {
                report.countDifferingAtSameTime(restored.term)
            } else {
                report.unchanged += 1
            }
            return
        }
        try keepUndo(local)
        var word = local.word
        var times = local.times
        var writers = local.writers
        for field in taken {
            word.takeValue(field, from: restored)
            times[field] = backupTimes[field]
            writers[field.index] = 0
        }
        if let mergedTags {
            word.tags = mergedTags.tags
            times.tags = max(local.times.tags, backupTimes.tags)
        }
        word.updatedAt = times.newest
        try save(word, times: times, writers: writers, previous: local, pending: true, tagClock: mergedTags?.clock)
        if word.isDeleted && !local.word.isDeleted { report.countTrashed(word.term) } else { report.countUpdated(word.term) }
    }

    /// The backup's answers to restore. Refuses answers of a word that is neither in the
    /// library now (the backup's words restored) nor purged (a purged word's answers are
    /// left out, as ever); leaves out, counted in `report`, answers dated after
    /// `latestTime(now:)` or before 2000, which no clock set right gave (found by the
    /// exploratory helper, round 7: a hand-edited answer of 2999 made the word due in 2999
    /// on every device, and no undo took it back; they refused the whole backup until
    /// round 12C found a device's clock set to 2029 doing the same). Call inside the
    /// restore's transaction, after its words: a refusal changes nothing.
    private func checkRestoredReviews(_ reviews: [ReviewEvent], file: String, report: inout RestoreReport) throws -> [ReviewEvent] {
        guard !reviews.isEmpty else { return reviews }
        let latest = Self.latestTime(now: clock.now())
        let earliest = Timestamp(iso8601: "2000-01-01T00:00:00.000Z")?.milliseconds ?? 0
        var known = Set<WordID>()
        var purged: Set<WordID>?
        var kept: [ReviewEvent] = []
        kept.reserveCapacity(reviews.count)
        let exists = try database.cached("SELECT 1 FROM words WHERE id = ?")
        for (index, event) in reviews.enumerated() {
            let time = event.time.milliseconds
            if time > latest || time < earliest {
                report.answersLeftOut += 1
                report.noteStray(event.time, now: clock.now())
                continue
            }
            kept.append(event)
            guard !known.contains(event.wordID) else { continue }
            if try !exists.rows([.text(event.wordID.rawValue)], { _ in true }).isEmpty {
                known.insert(event.wordID)
                continue
            }
            if purged == nil { purged = try purgedWordIDs() }
            guard purged?.contains(event.wordID) == true else {
                throw LibraryError.invalidBackup(
                    file: file, location: "review \(index + 1)",
                    message: "its word \(event.wordID.rawValue) is neither in the backup nor in this library")
            }
        }
        return kept
    }

    /// The latest time a backup may hold when this device's clock says `now`: two years
    /// after it (a clock may be set a day wrong, or even a year, not more), and never
    /// before 2028, so a device whose clock stopped in 1970 (no battery) still restores.
    static func latestTime(now: Timestamp) -> Int64 {
        max(now.milliseconds, 1_767_225_600_000) + 2 * 366 * 86_400_000
    }

    /// Replace: the backup's content with a fresh time on every field, so it wins everywhere.
    @discardableResult
    private func replaceWith(_ restored: Word, local: StoredWord?, report: inout RestoreReport) throws -> WordID {
        var restored = restored
        var local = local
        if local == nil, try isPurged(restored.id) {
            // The purged id must stay gone everywhere; the word comes back under an id
            // derived from it, the same on every device: one backup restored on two devices,
            // or twice on one, makes one word (random ids made a copy each time). A word
            // already back under that id is replaced in place.
            restored.id = try idAfterPurge(of: restored.id)
            local = try stored(restored.id)
        }
        // A word the backup holds as it is here gets a fresh time too: its undo puts back
        // its times while no sync has sent the restore, and nothing once one has (it has no
        // value to put back, and an edit made to it since is not one it keeps).
        if let local, local.word.hasSameContent(as: restored) {
            try database.run(
                database.cached("INSERT OR IGNORE INTO temp.restore_retimed (word_id) VALUES (?)"), [.text(restored.id.rawValue)])
            // Its times can be put back while no sync has sent them (`undoRestore`).
            try keepUndo(local, retimed: true)
        } else {
            try keepUndo(local, id: restored.id)
        }
        // Never before the word's creation: a backup made on a device whose clock is ahead
        // of this one would otherwise give a word updated before it was created.
        let time = max(editTime(after: local?.word), restored.createdAt)
        var word = restored
        word.updatedAt = time
        // The tag list is written whole: a tag another device put on before it is off
        // everywhere, and one it took off is on again. Written over the library's list, a
        // tag the library already had kept its older mark, which lost to another device's
        // taking it off (found by the exploratory helper).
        try save(word, times: FieldTimes(all: time), previous: local, pending: true, tagClock: .writtenWhole(at: time))
        if let local {
            if local.word.hasSameContent(as: restored) {
                report.unchanged += 1
            } else if restored.isDeleted && !local.word.isDeleted {
                report.countTrashed(restored.term)
            } else {
                report.countUpdated(restored.term)
            }
        } else {
            report.countAdded(restored.term)
        }
        return restored.id
    }
}
