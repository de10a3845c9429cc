import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel

/// The merge rules, one field at a time (last writer wins per field), and the tags one
/// tag at a time (`TagClock`).
///
/// For each field the value with the newer time wins. Equal time and equal value is
/// already in sync (product notes: "do nothing"). Equal time with different values is a
/// conflict decided by the larger writer id (and, between two copies of one library that
/// share an id, by the larger value), so every device picks the same winner.
public enum MergeRules {
    /// The outcome of merging one incoming record into the local one.
    public struct Outcome: Sendable {
        /// The merged record.
        public var record: SyncRecord
        /// Fields whose value the incoming record changed.
        public var changedFields: [WordField]
        /// True when something (a value, a time or a writer) differs from the local record.
        public var changed: Bool
    }

    /// Merges `incoming` into `local` (nil: the word is new here).
    public static func merge(local: SyncRecord?, incoming: SyncRecord) -> Outcome {
        guard let local else {
            return Outcome(record: incoming, changedFields: WordField.allCases, changed: true)
        }
        var word = local.word
        var times = local.times
        var writers = local.writers
        var tagClock = local.tagClock
        var changedFields: [WordField] = []
        var changed = false
        for field in WordField.allCases {
            let i = field.index
            if field == .tags {
                mergeTags(local: local, incoming: incoming, into: &word, &times, &writers, &tagClock, &changedFields, &changed)
                continue
            }
            let sameValue = local.word.hasSameValue(field, as: incoming.word)
            if incoming.times[field] == local.times[field] && sameValue {
                // Already in sync. Keep the larger writer id so that a later three-way tie
                // is decided identically everywhere; this changes no value and no time.
                if incoming.writers[i] > writers[i] {
                    writers[i] = incoming.writers[i]
                    changed = true
                }
                continue
            }
            guard incomingLeads(field, local: local, incoming: incoming) else { continue }
            word.takeValue(field, from: incoming.word)
            times[field] = incoming.times[field]
            writers[i] = incoming.writers[i]
            changed = true
            if !sameValue { changedFields.append(field) }
        }
        word.createdAt = min(local.word.createdAt, incoming.word.createdAt)
        if word.createdAt != local.word.createdAt { changed = true }
        word.updatedAt = times.newest
        return Outcome(
            record: SyncRecord(word: word, times: times, writers: writers, tagClock: tagClock), changedFields: changedFields,
            changed: changed)
    }

    /// True when `incoming`'s value of `field` beats `local`'s: the newer time wins; at one
    /// time the larger writer id; from one writer at one millisecond (two copies of one
    /// library file, before one of them took a new id), the larger value. The same way on
    /// every device.
    private static func incomingLeads(_ field: WordField, local: SyncRecord, incoming: SyncRecord) -> Bool {
        let i = field.index
        if incoming.times[field] != local.times[field] { return incoming.times[field] > local.times[field] }
        if incoming.writers[i] != local.writers[i] { return incoming.writers[i] > local.writers[i] }
        return incoming.word.valueOrdersAfter(field, local.word)
    }

    /// The tags, merged one tag at a time (`TagClock.merge`): the field takes the newer
    /// time, and the writer of the side the field rule would keep, but its list holds every
    /// tag whose newest mark, on either side, put it on.
    private static func mergeTags(
        local: SyncRecord, incoming: SyncRecord, into word: inout Word, _ times: inout FieldTimes, _ writers: inout [String],
        _ tagClock: inout TagClock, _ changedFields: inout [WordField], _ changed: inout Bool
    ) {
        let i = WordField.tags.index
        let localTime = local.times.tags, incomingTime = incoming.times.tags
        let mine = TagClock.Side(tags: local.word.tags, clock: local.tagClock, time: localTime)
        let theirs = TagClock.Side(tags: incoming.word.tags, clock: incoming.tagClock, time: incomingTime)
        let time = max(localTime, incomingTime)
        let (tags, clock) = TagClock.merge(mine, theirs, time: time)
        let writer = incomingLeads(.tags, local: local, incoming: incoming) ? incoming.writers[i] : local.writers[i]
        let sameTags = SameBytes.equal(tags, local.word.tags)
        guard !sameTags || clock != local.tagClock || time != localTime || writer != local.writers[i] else { return }
        if !sameTags { changedFields.append(.tags) }
        word.tags = tags
        times.tags = time
        writers[i] = writer
        tagClock = clock
        changed = true
    }
}
