import MiDiccioModel
import MiDiccioStore

/// A word's sync state before a restore, as `restore_undo.prior_sync` keeps it: each
/// field's time and writer, and whether the word was pending.
struct PriorSync: Equatable {
    /// Each field's time.
    var times: FieldTimes
    /// Each field's writer, indexed like `WordField.allCases`.
    var writers: [Int64]
    /// True when the word had a change not sent yet.
    var pending: Bool

    /// The state of `stored`.
    init(of stored: StoredWord) {
        times = stored.times
        writers = stored.writers
        pending = stored.pending
    }

    /// The state `text` holds (`stored`); nil for any other text.
    init?(stored text: String) {
        let numbers = text.split(separator: ",").compactMap { Int64($0) }
        let count = WordField.allCases.count
        guard numbers.count == 2 * count + 1 else { return nil }
        var times = FieldTimes(all: Timestamp(milliseconds: 0))
        for field in WordField.allCases { times[field] = Timestamp(milliseconds: numbers[field.index]) }
        self.times = times
        writers = Array(numbers[count..<2 * count])
        pending = numbers[2 * count] != 0
    }

    /// The times, then the writers, then 1 or 0 for pending, comma-separated.
    var stored: String {
        (WordField.allCases.map { String(times[$0].milliseconds) } + writers.map(String.init) + [pending ? "1" : "0"])
            .joined(separator: ",")
    }
}

extension WordLibrary {
    /// The `library_info` key present from a restore that changed words until a sync saves
    /// its state (`SyncStore.saveState`): until then the restore is on this device only.
    static let restoreUnsentKey = "restore.unsent"

    /// True when the last restore has met no sync yet: no device has its new times, nor
    /// has this one pulled anything since. Its undo then puts each word back as it was,
    /// times included, so that an edit another device made before the restore wins over
    /// it again; once a sync has sent it, the undo gives what it puts back a new time,
    /// which an edit made elsewhere before the restore cannot beat (found by the
    /// exploratory helper, round 22A #3). `backup undo` does not sync first then: that sync
    /// would send the restore.
    public func restoreUnsent() throws -> Bool {
        try guarded { try info(Self.restoreUnsentKey) != nil && canUndoRestore() }
    }

    /// Notes that a sync has saved its state since the last restore (`restoreUnsent`).
    package func noteRestoreMetASync() throws {
        try database.run(database.cached("DELETE FROM library_info WHERE key = ?"), [.text(Self.restoreUnsentKey)])
    }

    /// Puts `current` back as it was before a restore no sync has sent (`restoreUnsent`):
    /// each field not in `edited` (changed since the restore, here) takes `prior`'s value
    /// with its time and writer; the tags their tag clock too. The word is pending again
    /// only when it was before, or when a field keeps an edit made since. Returns the word
    /// as it is now.
    func putBackAsBefore(
        _ current: StoredWord, prior: Word, sync before: PriorSync, tagClock: TagClock, edited: Set<WordField>
    ) throws -> Word {
        var word = current.word
        var times = current.times
        var writers = current.writers
        for field in WordField.allCases where !edited.contains(field) {
            switch field {
            case .term: word.term = prior.term
            case .meaning: word.meaning = prior.meaning
            case .reading: word.reading = prior.reading
            case .examples: word.examples = prior.examples
            case .notes: word.notes = prior.notes
            case .tags: word.tags = prior.tags
            case .deleted: word.deletedAt = prior.deletedAt
            }
            times[field] = before.times[field]
            writers[field.index] = before.writers[field.index]
        }
        word.updatedAt = times.newest
        let pending = before.pending || !edited.isEmpty
        try save(
            word, times: times, writers: writers, previous: current, pending: pending,
            tagClock: edited.contains(.tags) ? nil : tagClock)
        if !pending {
            try database.run(database.cached("UPDATE words SET pending = 0 WHERE seq = ?"), [.integer(current.seq)])
        }
        return word
    }
}
