import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel

/// The merge rules, one field at a time (last writer wins per field).
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
        var changedFields: [WordField] = []
        var changed = false
        for field in WordField.allCases {
            let i = field.index
            let localTime = local.times[field], incomingTime = incoming.times[field]
            let sameValue = local.word.hasSameValue(field, as: incoming.word)
            let incomingWins: Bool
            if incomingTime != localTime {
                incomingWins = incomingTime > localTime
            } else if sameValue {
                // Already in sync. Keep the larger writer id so that a later three-way tie
                // is decided identically everywhere; this changes no value and no time.
                if incoming.writers[i] > writers[i] {
                    writers[i] = incoming.writers[i]
                    changed = true
                }
                continue
            } else if incoming.writers[i] != local.writers[i] {
                incomingWins = incoming.writers[i] > local.writers[i]
            } else {
                // Equal time, equal writer, different values: two copies of one library
                // file wrote the field in the same millisecond before one of them took a
                // new id. The larger value wins, the same way on every device.
                incomingWins = incoming.word.valueOrdersAfter(field, local.word)
            }
            guard incomingWins else { continue }
            word.takeValue(field, from: incoming.word)
            times[field] = incomingTime
            writers[i] = incoming.writers[i]
            changed = true
            if !sameValue { changedFields.append(field) }
        }
        word.createdAt = min(local.word.createdAt, incoming.word.createdAt)
        if word.createdAt != local.word.createdAt { changed = true }
        word.updatedAt = times.newest
        return Outcome(record: SyncRecord(word: word, times: times, writers: writers), changedFields: changedFields, changed: changed)
    }
}
