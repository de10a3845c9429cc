import Foundation
import MiDiccioModel
import MiDiccioStore

/// The words a bulk action works on.
public enum BulkTarget: Sendable, Equatable {
    /// These words (each must exist).
    case words([WordID])
    /// Every word outside the Trash that matches a search: the same words, query and
    /// tag meaning the same, as `find(_:)` counts.
    case matches(query: String, tag: String?)
    /// Every Trash entry whose term starts with `term`, as `trashPage(term:...)` counts
    /// them (empty: the whole Trash, except entries hidden by `trash.hideAfterDays`).
    case trash(term: String)
}

/// What a bulk action does to each word.
public enum BulkActionKind: String, Sendable, CaseIterable {
    /// Adds a tag to words that lack it.
    case addTag
    /// Removes a tag (any case) from words that carry it.
    case removeTag
    /// Moves words to the Trash.
    case moveToTrash
    /// Takes words out of the Trash.
    case restore
}

/// How far a bulk action (or its undo) has come: words gone through, of all it goes
/// through. It is called with 0 first, then after every `bulkWordsPerRead` words, and with
/// the total last; the transaction is still to be committed then.
public typealias BulkProgress = (_ done: Int, _ total: Int) -> Void

/// What a bulk action (or its undo) changed.
public struct BulkResult: Sendable, Equatable {
    /// The action.
    public var action: BulkActionKind
    /// The tag added or removed (nil for Trash moves).
    public var tag: String?
    /// Words the action changed.
    public var changed: Int
    /// Words it left as they were (they already had, or lacked, what it sets).
    public var unchanged: Int
    /// The action's number: `undoBulkAction(step:)` undoes this action only, not a later one.
    public var step: Int64
    /// Words a tag was not put on because they already hold the most tags a word can
    /// (`WordLimits.tagCount`, or more that a merge gave them); left as they were.
    public var leftOut: Int = 0
    /// The terms of the first `leftOutNamed` words of `leftOut`, to name them.
    public var leftOutTerms: [String] = []
    /// How many of the words left out a result names.
    public static let leftOutNamed = 5
    /// For an undo: words whose change was changed again since the action, here or on
    /// another device (a tag put on or taken off by hand, a word deleted, restored or
    /// edited), kept as they are.
    public var keptSince: Int = 0
    /// The terms of the first `leftOutNamed` words of `keptSince`.
    public var keptSinceTerms: [String] = []
    /// For the undo of a restore from the Trash: words it moved back to the Trash that have
    /// study answers (they stay with them there), as `import undo` and `backup undo` tell.
    public var trashedStudied: Int = 0
}

/// Bulk actions: one tag on many words, many words to or from the Trash, each in one
/// transaction and undoable in one step; and permanent deletion of many Trash entries.
///
/// Every word changed is changed as a local edit (a new time, pending), exactly as the
/// single-word edit, delete and restore do, so sync carries each one. An undo is new
/// edits too (never a rewind of times), so other devices follow it.
extension WordLibrary {
    /// The ids of the words `target` names, without repeats; throws when a named word
    /// does not exist, or when `expecting` is given and the matches of a search or the
    /// Trash are not that many (`selectionChanged`).
    public func bulkIDs(_ target: BulkTarget, expecting: Int? = nil) throws -> [WordID] {
        try guarded {
            try database.read {
                var ids: [WordID] = []
                try forEachBulkWord(target, expecting: expecting) { ids.append($0.word.id) }
                return ids
            }
        }
    }

    /// Adds `tag` to every word of `target` that lacks it (in any case). A word that
    /// already holds the most tags it can (`WordLimits.tagCount`, or more after a merge)
    /// is left out, counted and named in the result (`leftOut`), and the others are
    /// tagged. A word in the Trash refuses the whole action, as do matches that are not
    /// `expecting` many (the words a person saw counted: `selectionChanged`). `progress`
    /// hears how far it has come.
    @discardableResult
    public func addTag(_ tag: String, to target: BulkTarget, expecting: Int? = nil, progress: BulkProgress? = nil) throws -> BulkResult {
        try tagAction(.addTag, tag, target, expecting, progress) { tags, tag in TagSet.applying(adding: [tag], removing: [], to: tags) }
    }

    /// Removes `tag` (in any case) from every word of `target` that carries it. Words in
    /// the Trash are refused, as for `addTag`, and so is `expecting` as there.
    /// `progress` hears how far it has come.
    @discardableResult
    public func removeTag(
        _ tag: String, from target: BulkTarget, expecting: Int? = nil, progress: BulkProgress? = nil
    ) throws
        -> BulkResult
    {
        try tagAction(.removeTag, tag, target, expecting, progress) { tags, tag in TagSet.applying(adding: [], removing: [tag], to: tags) }
    }

    /// A tag action: `newTags` gives a word's tags after it from its tags and the tag as
    /// checked (trimmed). Words in the Trash refuse the whole action; words that would get
    /// more than `WordLimits.tagCount` tags (or more than they hold) are left out.
    private func tagAction(
        _ action: BulkActionKind, _ tag: String, _ target: BulkTarget, _ expecting: Int?, _ progress: BulkProgress?,
        _ newTags: @escaping ([String], String) -> [String]
    ) throws -> BulkResult {
        let tag = try Self.checkedTag(tag)
        var leftOut = 0, leftOutTerms: [String] = []
        var result = try bulkAction(action, tag: tag, target, expecting, progress) { stored in
            guard !stored.word.isDeleted else {
                throw LibraryError.wrongTrashState(stored.word.id, term: stored.word.term, inTrash: true)
            }
            let tags = newTags(stored.word.tags, tag)
            guard tags != stored.word.tags else { return false }
            // A word that holds more (merged from several devices) may lose one.
            guard tags.count <= max(WordLimits.tagCount, stored.word.tags.count) else {
                leftOut += 1
                if leftOutTerms.count < BulkResult.leftOutNamed { leftOutTerms.append(stored.word.term) }
                return false
            }
            _ = try update(stored) { word, _ in word.tags = tags }
            return true
        }
        result.unchanged -= leftOut
        result.leftOut = leftOut
        result.leftOutTerms = leftOutTerms
        return result
    }

    /// Moves every word of `target` to the Trash; words already there stay as they are.
    /// Matches that are not `expecting` many refuse the whole action (`selectionChanged`).
    /// `progress` hears how far it has come.
    @discardableResult
    public func moveToTrash(_ target: BulkTarget, expecting: Int? = nil, progress: BulkProgress? = nil) throws -> BulkResult {
        try bulkAction(.moveToTrash, tag: nil, target, expecting, progress) { stored in
            guard !stored.word.isDeleted else { return false }
            _ = try update(stored) { word, time in word.deletedAt = time }
            return true
        }
    }

    /// Takes every word of `target` out of the Trash (bumping its time, as `restore`
    /// does); words outside the Trash stay as they are. Entries that are not `expecting`
    /// many refuse the whole action (`selectionChanged`). `progress` hears how far it has
    /// come.
    @discardableResult
    public func restoreFromTrash(_ target: BulkTarget, expecting: Int? = nil, progress: BulkProgress? = nil) throws -> BulkResult {
        try bulkAction(.restore, tag: nil, target, expecting, progress) { stored in
            guard stored.word.isDeleted else { return false }
            _ = try update(stored) { word, _ in word.deletedAt = nil }
            return true
        }
    }

    /// Deletes every word of `target` permanently, as `purge(_:)` does (each leaves a
    /// marker sync carries everywhere). Cannot be undone: ask first. All or nothing: a
    /// word outside the Trash refuses the whole action, and so do entries that are not
    /// `expecting` many. Returns how many were purged.
    @discardableResult
    public func purge(_ target: BulkTarget, expecting: Int? = nil, progress: BulkProgress? = nil) throws -> Int {
        try purge(try bulkIDs(target, expecting: expecting), progress: progress).count
    }

    /// `purge(_:expecting:progress:)` of named words, refused when one changed since the page
    /// showed it (`purge(_:asShown:progress:)`).
    public func purge(_ target: BulkTarget, expecting: Int? = nil, asShown: [WordID: String], progress: BulkProgress? = nil) throws -> Int {
        try purge(try bulkIDs(target, expecting: expecting), asShown: asShown, progress: progress).count
    }

    /// The last bulk action, while it can still be undone; nil when there is none.
    public func lastBulkAction() throws -> BulkResult? {
        try guarded {
            try database.cached("SELECT step, action, tag, changed FROM bulk_undo_action WHERE id = 1 AND undone = 0").rows { row in
                BulkResult(
                    action: BulkActionKind(rawValue: row.text(1)) ?? .addTag, tag: row.optionalText(2),
                    changed: Int(row.int64(3)), unchanged: 0, step: row.int64(0))
            }.first
        }
    }

    /// Puts the words the last bulk action changed back as they were, as new edits
    /// (pending): a tag added is removed, a tag removed comes back (in its place, when the
    /// tags did not change since), words trashed are restored and restored words go back
    /// to the Trash. With `step`, only that action is undone: a later one refuses with
    /// `nothingBulkToUndo`. One step: a second undo has nothing to undo. `progress` hears
    /// how far it has come, in the words the action changed.
    @discardableResult
    public func undoBulkAction(step: Int64? = nil, progress: BulkProgress? = nil) throws -> BulkResult {
        try writing {
            guard var last = try lastBulkAction(), step == nil || step == last.step else {
                throw LibraryError.nothingBulkToUndo
            }
            var changed = 0, rows = 0
            try forEachUndoRow(total: last.changed, progress: progress) { idText, priorText, doneAt in
                rows += 1
                guard let id = WordID(idText), let current = try stored(id) else { return }
                // Changed again since the action (here, or on another device and pulled):
                // kept. The undo took back a tag another device had put on by hand, a word it
                // had deleted, or restored and edited (found by the exploratory helper, round 16B).
                if let doneAt, Self.changedSince(current, doneAt: doneAt, action: last.action, tag: last.tag ?? "") {
                    last.keptSince += 1
                    if last.keptSinceTerms.count < BulkResult.leftOutNamed { last.keptSinceTerms.append(current.word.term) }
                    return
                }
                let before = current.word
                let after = try update(current) { word, time in
                    switch last.action {
                    case .addTag:
                        word.tags = TagSet.applying(adding: [], removing: [last.tag ?? ""], to: word.tags)
                    case .removeTag:
                        let prior = priorText.map(JSONText.stringArray) ?? []
                        let key = TagSet.key(last.tag ?? "")
                        guard !word.tags.contains(where: { TagSet.key($0) == key }) else { return }
                        let removed = TagSet.applying(adding: [], removing: [last.tag ?? ""], to: prior)
                        if word.tags == removed {
                            word.tags = prior
                        } else {
                            word.tags.append(prior.first { TagSet.key($0) == key } ?? last.tag ?? "")
                        }
                    case .moveToTrash:
                        word.deletedAt = nil
                    case .restore:
                        if word.deletedAt == nil { word.deletedAt = time }
                    }
                }
                if after != before { changed += 1 }
                if before.deletedAt == nil, after.deletedAt != nil, try hasAnswers(id) { last.trashedStudied += 1 }
            }
            try database.run("DELETE FROM bulk_undo")
            try database.run("UPDATE bulk_undo_action SET undone = 1 WHERE id = 1")
            last.unchanged = rows - changed - last.keptSince
            last.changed = changed
            return last
        }
    }

    /// True when what the action set in `current` (at `doneAt`) has a later time now: the
    /// tag's mark for a tag action, the Trash flag for a move to the Trash, and any field
    /// for a restore (a word edited since it came out of the Trash stays out).
    private static func changedSince(_ current: StoredWord, doneAt: Int64, action: BulkActionKind, tag: String) -> Bool {
        switch action {
        case .addTag, .removeTag:
            let marks = current.tagClock.resolved(tags: current.word.tags, time: current.times.tags)
            let mark = marks[TagSet.key(tag)]
            // No mark: the tag's state is the floor's, from before the action or a list written whole since.
            return (mark?.time.milliseconds ?? current.tagClock.floor?.milliseconds ?? 0) > doneAt
        case .moveToTrash:
            return current.times.deleted.milliseconds > doneAt
        case .restore:
            return WordField.allCases.contains { current.times[$0].milliseconds > doneAt }
        }
    }

    // MARK: - Steps

    /// Hands each row of the undo data (a word's id, and its tags before a tag was
    /// removed) to `body`, in id order, read `bulkWordsPerRead` at a time, as
    /// `forEachBulkWord` reads the words. `body` changes words, never these rows.
    /// `progress` hears how many rows were handed over, of `total` (the action's count).
    private func forEachUndoRow(total: Int, progress: BulkProgress?, _ body: (String, String?, Int64?) throws -> Void) throws {
        let read = try database.cached("SELECT word_id, prior_tags, done_at FROM bulk_undo WHERE word_id > ? ORDER BY word_id LIMIT ?")
        var after = ""
        var done = 0
        progress?(0, total)
        while true {
            let rows = try read.rows([.text(after), .integer(Int64(bulkWordsPerRead))]) {
                ($0.text(0), $0.optionalText(1), $0.isNull(2) ? nil : $0.int64(2))
            }
            for (id, prior, doneAt) in rows { try body(id, prior, doneAt) }
            done += rows.count
            guard rows.count == bulkWordsPerRead, let last = rows.last else {
                progress?(max(done, total), max(done, total))
                return
            }
            progress?(done, max(done, total))
            after = last.0
        }
    }

    /// The tag as a word would store it (trimmed), or the reason it cannot be one.
    private static func checkedTag(_ tag: String) throws -> String {
        let trimmed = tag.trimmed
        guard !trimmed.isEmpty else {
            throw LibraryError.invalidWord(WordValidationError(field: "tag", message: "type a tag first"))
        }
        do {
            _ = try WordContent(term: "x", tags: [trimmed]).validated()
        } catch {
            throw LibraryError.invalidWord(WordValidationError(field: "tag", message: error.message))
        }
        return trimmed
    }

    /// Runs `change` on every word of `target` in one transaction, keeping what each
    /// changed word held before for the undo, and records the action as the one to undo.
    /// `change` answers whether it changed the word.
    private func bulkAction(
        _ action: BulkActionKind, tag: String?, _ target: BulkTarget, _ expecting: Int?, _ progress: BulkProgress?,
        _ change: (StoredWord) throws -> Bool
    ) throws -> BulkResult {
        try writing {
            try database.run("DELETE FROM bulk_undo")
            var changed = 0, unchanged = 0
            try forEachBulkWord(target, expecting: expecting, progress: progress) { stored in
                guard try change(stored) else { return unchanged += 1 }
                changed += 1
                let prior: SQLValue = action == .removeTag ? .text(JSONText.array(stored.word.tags)) : .null
                // The time the change got (`changedSince`): the tags' or the Trash flag's.
                let field = action == .addTag || action == .removeTag ? "tags_time" : "deleted_time"
                try database.run(
                    try database.cached(
                        "INSERT OR REPLACE INTO bulk_undo (word_id, prior_tags, done_at) VALUES (?1, ?2, (SELECT \(field) FROM words WHERE seq = ?3))"
                    ),
                    [.text(stored.word.id.rawValue), prior, .integer(stored.seq)])
            }
            let step = (try database.integer("SELECT step FROM bulk_undo_action WHERE id = 1") ?? 0) + 1
            try database.run(
                """
                INSERT OR REPLACE INTO bulk_undo_action (id, step, action, tag, changed, undone) VALUES (1, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(step), .text(action.rawValue), tag.map { .text($0) } ?? .null,
                    .integer(Int64(changed)), .integer(changed == 0 ? 1 : 0),
                ])
            return BulkResult(action: action, tag: tag, changed: changed, unchanged: unchanged, step: step)
        }
    }

    /// Hands the stored words `target` names to `body`, each once: named words in the
    /// order given, matches and Trash entries in row order. The rows are chosen first and
    /// read `bulkWordsPerRead` at a time as `body` goes, never all at once: a tag put on
    /// 270,375 matches among a million words held them all in memory (250 MB). `body`
    /// may change the word it is given, not another. Must run inside a read or a write.
    /// `progress` hears how many were handed over, of all. With `expecting`, matches or
    /// Trash entries that are not that many throw `selectionChanged` before any is handed.
    /// The rows (`seq`, in order) of every match or every Trash entry `target` names; none
    /// for named words.
    private func selectedRows(_ target: BulkTarget) throws -> [Int64] {
        guard let (members, values) = try selection(target) else { return [] }
        return try database.prepare("SELECT seq FROM words WHERE seq IN (\(members)) ORDER BY seq").rows(values) { $0.int64(0) }
    }

    /// The ids of the words `selectedRows` gives.
    private func selectedIDs(_ target: BulkTarget) throws -> [String] {
        guard let (members, values) = try selection(target) else { return [] }
        return try database.prepare("SELECT id FROM words WHERE seq IN (\(members))").rows(values) { $0.text(0) }
    }

    /// The SQL that selects the row numbers of every word of `target`, and its values; nil
    /// for named words.
    private func selection(_ target: BulkTarget) throws -> (String, [SQLValue])? {
        switch target {
        case .words:
            return nil
        case .matches(let query, let tag):
            return try searchPlan(SearchQuery(parsing: query), tag: tag).members()
        case .trash(let term):
            let (filter, filterValues) = try trashFilter(term: term)
            return ("SELECT seq FROM words WHERE \(filter)", filterValues)
        }
    }

    /// How many words every match or every Trash entry of `target` is now, and a
    /// fingerprint of which (16 hexadecimal digits): the same words, the same key. A page
    /// takes it when a person chooses "all N matches" and sends it with the action, so an
    /// action refuses other words than those shown even when their count is the same (a
    /// word renamed out of the matches and another added: `selectionChanged`). Named
    /// words give their count and an empty key.
    ///
    /// Every Trash entry of `target` is named by its content too (`trashEntryTerm`): a word
    /// there that a sync or another program changed since the page showed it changes the
    /// key, so a purge of it is refused (found by the exploratory helper, round 27B #1).
    public func selectionKey(_ target: BulkTarget) throws -> (count: Int, key: String) {
        if case .words(let ids) = target { return (Self.unique(ids).count, "") }
        if case .trash = target {
            guard let (members, values) = try selection(target) else { return (0, Self.fingerprint([])) }
            let terms = try guarded {
                try database.read {
                    try database.prepare("SELECT \(Self.columns) FROM words WHERE seq IN (\(members))").rows(values) {
                        Self.trashEntryTerm(try Self.storedWord($0).word)
                    }
                }
            }
            return (terms.count, terms.reduce(0, ^).sixteenHexDigits)
        }
        let ids = try guarded { try database.read { try selectedIDs(target) } }
        return (ids.count, Self.fingerprint(ids))
    }

    /// 16 hexadecimal digits that name a set of words (by their ids), whatever their order.
    /// By id, not row number: SQLite gives the number of the newest row, once deleted, to
    /// the next row made, so a word purged and another added took its key (found by the
    /// exploratory helper, round 10: Empty Trash purged the word nobody had seen).
    static func fingerprint(_ ids: [String]) -> String {
        ids.reduce(0) { $0 ^ fingerprintTerm($1) }.sixteenHexDigits
    }

    /// One Trash entry's share of the Trash's key (`trashKey`, `selectionKey`): its id and
    /// everything of it a person sees, and when it went to the Trash. An edit another device
    /// made to a word in the Trash before that move reached it left its id (and its newest
    /// time) as they were: Empty Trash, asked about the word as it was, purged the edit on
    /// every device (found by the exploratory helper, round 27B #1).
    package static func trashEntryTerm(_ word: Word) -> UInt64 {
        // Each text after a NUL, which no field holds; the lists after their counts.
        var text = word.id.rawValue + "\u{0}" + String(word.deletedAt?.milliseconds ?? 0)
        for part in [word.term, word.meaning, word.reading, word.notes, String(word.examples.count)] + word.examples + word.tags {
            text += "\u{0}" + part
        }
        return fingerprintTerm(text)
    }

    /// A Trash entry as it is now, 16 hexadecimal digits (`trashEntryTerm`): the page keeps
    /// it with each entry it shows, and a purge of the entries chosen is refused when one
    /// changed since (`purge(_:asShown:)`).
    public static func trashVersion(of word: Word) -> String {
        trashEntryTerm(word).sixteenHexDigits
    }

    /// One id's share of a fingerprint. The shares are combined with exclusive or, so a
    /// kept fingerprint takes a word in or out with the same step (the Trash's, `trashKey`).
    static func fingerprintTerm(_ id: String) -> UInt64 {
        // SplitMix64's finaliser spreads each id's hash over all 64 bits.
        var mixed = FNV1a.hash(id.utf8) &+ 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    private func forEachBulkWord(
        _ target: BulkTarget, expecting: Int? = nil, progress: BulkProgress? = nil, _ body: (StoredWord) throws -> Void
    ) throws {
        switch target {
        case .words(let ids):
            let unique = Self.unique(ids)
            progress?(0, unique.count)
            for (index, id) in unique.enumerated() {
                guard let stored = try stored(id) else { throw LibraryError.wordNotFound(id.rawValue) }
                try body(stored)
                if (index + 1) % bulkWordsPerRead == 0 || index + 1 == unique.count { progress?(index + 1, unique.count) }
            }
            return
        case .matches, .trash:
            break
        }
        let seqs = try selectedRows(target)
        if let expecting, expecting != seqs.count { throw LibraryError.selectionChanged(expected: expecting, found: seqs.count) }
        let read = try database.cached("SELECT \(Self.columns) FROM words WHERE seq IN (SELECT value FROM json_each(?)) ORDER BY seq")
        progress?(0, seqs.count)
        for start in stride(from: 0, to: seqs.count, by: bulkWordsPerRead) {
            let part = seqs[start..<min(start + bulkWordsPerRead, seqs.count)]
            for stored in try read.rows([.text(SearchPlan.jsonList(part))], Self.storedWord) { try body(stored) }
            progress?(part.endIndex, seqs.count)
        }
    }
}
