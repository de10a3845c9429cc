import Foundation
import MiDiccioFiles
import MiDiccioLibrary
import MiDiccioModel

// Step 3b of a sync: merge what was read into the library, in one transaction with the
// new cursors, behind the mass-delete guard.
extension SyncSession {
    /// Applies `batches` (purge markers first: a person's purge beats every version of a
    /// word, whatever its time; the Trash clean-up's leaves a change it never saw,
    /// `keepFromCleanUp`), then records field by field (`MergeRules`), then saves the
    /// cursors they reach. Stops without changing anything when other devices' changes
    /// would take more than half of a library of 20 or more words out of it (to the
    /// Trash or purged), unless `allowMassDelete`.
    func merge(_ batches: [SyncBatch], cursors: [String: Int64], allowMassDelete: Bool) throws {
        let total = batches.reduce(0) { $0 + $1.recordCount }
        announce(.merging(words: total))
        var purgedHere = 0
        var purgedEditedHere = 0
        // The first few of each, by name, for the note.
        var purgedTerms: [String] = [], purgedEditedTerms: [String] = []
        // Of them, words the Trash's clean-up took with answers given here (an edit keeps a
        // word from it: `keepFromCleanUp`), told apart (`SyncReport.purgedStudiedHere`).
        var purgedStudiedHere = 0
        var purgedStudiedTerms: [String] = []
        func countPurged(_ term: String, editedHere: Bool, byCleanUp: Bool = false) {
            purgedHere += 1
            if purgedTerms.count < SyncReport.purgedNamed { purgedTerms.append(term) }
            guard editedHere else { return }
            if byCleanUp {
                purgedStudiedHere += 1
                if purgedStudiedTerms.count < SyncReport.purgedNamed { purgedStudiedTerms.append(term) }
                return
            }
            purgedEditedHere += 1
            if purgedEditedTerms.count < SyncReport.purgedNamed { purgedEditedTerms.append(term) }
        }
        // Words, each once (by its id's hash), though several files of one pull change it:
        // 10 words changed in two files read as "20 pulled" (round 17B). Merged: it held a
        // change made here.
        var pulledWords = Set<Int>()
        var mergedWords = Set<Int>()
        // Words whose field edited here since the last sync a later change replaced.
        // Each once, though one pull may bring several files changing it (it was named twice).
        var overridden = NamedWords()
        // Words edited here since the last sync that another device moved to the Trash.
        var trashedEdited = NamedWords()
        // Words moved to the Trash here since the last sync that another device edited before
        // that move was sent: they stay in the Trash with the edit, said by name (round 17B).
        var editedTrashedHere = NamedWords()
        // Words another device's Trash clean-up purged that hold a change here it never had:
        // kept under a new id (`keepFromCleanUp`), said by name.
        var keptFromCleanUp = NamedWords()
        // The id each word kept so went to, and the id it is named under above: a word kept
        // again, from a later clean-up of the word kept, is one word (round 22A #2 said
        // "2 words ... “perro”, “perro”").
        var keptNamedAs: [WordID: WordID] = [:]
        let syncedUpTo = state.lastSync ?? Int64.min
        // A field this device wrote since its last sync: an edit made here. Not one a backup
        // restore added with the backup's own time (a new device started from a backup was
        // told, at its first sync, that words "edited here" had lost; round 16B F5).
        func editedHere(_ local: LocalRecord, _ field: WordField) throws -> Bool {
            guard local.record.times[field].milliseconds > syncedUpTo else { return false }
            return try writtenHere(local, field)
        }
        // A field this device wrote at any time (not one a backup restore added): with a
        // folder remote a sync "sends" into this computer's copy of the folder, and the sync
        // program delivers it minutes or days later, so a change sent already may still be
        // one the other device never had (round 20B #6).
        func writtenHere(_ local: LocalRecord, _ field: WordField) throws -> Bool {
            guard local.record.writers[field.index] == deviceID else { return false }
            return try store.timesAddedByRestore(local.record.word.id)?[field] != local.record.times[field]
        }
        var settingsPulled = 0, answersPulled = 0
        // What comes from ids this library took over (or from libraries that took over
        // its old id) may be known nowhere else: this library passes it on itself, even
        // when it arrives after the full upload that followed the takeover.
        let relayed = Set(state.absorbed.filter { !$0.cleanedUp }.map(\.device)).union(descendants)
        // While the words a backup restore brought wait for the devices of the library it
        // came from: another device's record of one of them shows one syncs here.
        let restoreHeld = try store.restoredFromElsewhereAt().map { $0 >= now - engine.retention } ?? false
        let restoredIDs = restoreHeld ? try store.restoredIDs() : []
        var restoreHolderHeard = false
        // Words the last restore touched: a record holding one as it left them, written by
        // another device, is kept from its undo (`noteRestoredFieldsHeld`).
        let restoreUndoable = try store.restoreUndoable()
        try commit(bulkWords: total) { next in
            let live = try store.liveCount()
            // The guard cannot stop a pull into fewer than 20 words (a new device's first
            // sync): the account of which words leave is kept only when it can.
            let guarded = !allowMassDelete && live >= 20
            // Whether each word touched was outside the Trash before this pull: only the
            // net effect counts (a word deleted and restored again within it is no loss).
            var wasLive: [WordID: Bool] = [:]
            var leaving = Set<WordID>()
            // Of them, those another device purged: they would be gone for good here too.
            var leavingPurged = Set<WordID>()
            // And the device that took each out, to name it in the stop.
            var leavingBy: [WordID: String] = [:]
            var purged = try store.purgedIDs()
            // Words the Trash's clean-up purged: their answers are settled at the end
            // (`settleAnswers`), those they had here when the marker came held meanwhile,
            // and the words removed here by such a marker, told at the end unless the
            // word is back by then (kept by another device).
            var cleanedUp = try store.cleanedUpIDs()
            var heldAnswers: [WordID: [(event: ReviewEvent, pending: Bool)]] = [:]
            var cleanedUpHere: [(id: WordID, term: String, editedHere: Bool)] = []
            for batch in batches {
                for marker in batch.markers {
                    if let keptWord = try keepFromCleanUp(marker) {
                        _ = try store.apply(marker)
                        let named = keptNamedAs[marker.id] ?? marker.id
                        keptFromCleanUp.insert(named, keptWord.term)
                        keptNamedAs[keptWord.id] = named
                        // Into the Trash from outside it: a move to the Trash from elsewhere.
                        if guarded && keptWord.inTrash && wasLive[marker.id] == nil {
                            wasLive[marker.id] = true
                            leaving.insert(marker.id)
                            leavingBy[marker.id] = batch.device
                        }
                        purged.insert(marker.id)
                        continue
                    }
                    if marker.cleanUp != nil, heldAnswers[marker.id] == nil {
                        heldAnswers[marker.id] = try store.answers(of: marker.id)
                    }
                    let effect = try store.apply(marker)
                    switch effect {
                    case .removedLive(let term, let editedHere), .removedFromTrash(let term, let editedHere):
                        if marker.cleanUp != nil {
                            // Told as answers set aside when it held answers not sent yet:
                            // a change of its Trash flag alone (taken out and put back) was
                            // told as answers no one gave (round 25B #8).
                            let studiedHere = heldAnswers[marker.id]?.contains { $0.pending } ?? false
                            cleanedUpHere.append((marker.id, term, studiedHere))
                        } else {
                            countPurged(term, editedHere: editedHere)
                        }
                    case .nothing:
                        break
                    }
                    switch effect {
                    case .removedLive:
                        if guarded && wasLive[marker.id] == nil { wasLive[marker.id] = true }
                        if guarded && wasLive[marker.id] == true {
                            leaving.insert(marker.id)
                            leavingPurged.insert(marker.id)
                            leavingBy[marker.id] = batch.device
                        }
                    case .removedFromTrash:
                        if guarded && wasLive[marker.id] == nil { wasLive[marker.id] = false }
                    case .nothing:
                        break
                    }
                    purged.insert(marker.id)
                }
                for setting in batch.settings where try store.merge(setting) { settingsPulled += 1 }
            }
            if batches.contains(where: { !$0.markers.isEmpty }) { cleanedUp = try store.cleanedUpIDs() }
            // A new device skips the lookup of words it cannot have yet (a first sync of
            // 100,000 words), except those an earlier batch of this sync may have inserted:
            // their hashes are kept (a million ids as text took a hundred megabytes), and a
            // hash seen before means a lookup, which has the last word.
            let empty = try store.wordCount() == 0
            var inserted = Set<Int>()
            // Words in the Trash here that a change from another device reached (below).
            var trashChanged: [WordID] = []
            var done = 0
            // Review events follow each batch's words, read in the same pass over its file:
            // both the bulk path of a new device and the word-by-word path carry them, and
            // a purged word's events stay out.
            let events = batches.reduce(0) { $0 + $1.eventCount }
            // Into a library with no words, a large file's rows are made ready (term keys,
            // sort keys) on the thread that decodes it: nearly every word is new here.
            let columnsLocale = empty ? store.library.collationLocale : nil
            // Words new here with their rows made ahead wait here to go in a few hundred
            // at a time, several to a statement; written before anything reads the words.
            var fresh: [(record: SyncRecord, columns: WordLibrary.NewWordColumns)] = []
            var freshPending = false
            func saveFresh() throws {
                guard !fresh.isEmpty else { return }
                try store.saveNewMerged(fresh, pending: freshPending)
                fresh.removeAll(keepingCapacity: true)
            }
            // The answers of a word the clean-up purged go in under its id, and are
            // settled below.
            var answered = Set<WordID>()
            answersPulled = try store.mergeReviewEvents(
                expected: events, purged: purged.subtracting(cleanedUp), restartingTrashDaysAt: now, answered: { answered = $0 }
            ) { reviews in
                for batch in batches {
                    // Events of an id this library took over are passed on, as its words are.
                    try reviews.setPending(relayed.contains(batch.device))
                    try batch.forEachRecord(
                        { incoming, columns in
                            if done > 0, done % WordLibrary.progressInterval == 0 { announce(.merging(words: total, done: done)) }
                            done += 1
                            let id = incoming.word.id
                            guard !purged.contains(id) else {
                                try saveFresh()
                                if let kept = try keepIncomingFromCleanUp(incoming, cleanedUp: cleanedUp) {
                                    pulledWords.insert(kept.hashValue)
                                    // Written: a later record of it is looked up (a new device's
                                    // first sync skips the lookup of words it cannot have yet).
                                    if empty { inserted.insert(kept.hashValue) }
                                }
                                return
                            }
                            var local: LocalRecord?
                            if !empty || inserted.contains(id.hashValue) {
                                try saveFresh()
                                local = try store.local(id)
                            }
                            if empty && local == nil { inserted.insert(id.hashValue) }
                            if guarded && wasLive[id] == nil { wasLive[id] = local.map { !$0.record.word.isDeleted } ?? false }
                            let outcome = MergeRules.merge(local: local?.record, incoming: incoming)
                            if restoreHeld, !restoreHolderHeard, restoredIDs.contains(id.rawValue),
                                incoming.writers.contains(where: { !$0.isEmpty && $0 != deviceID })
                            {
                                restoreHolderHeard = true
                            }
                            if restoreUndoable { try store.noteRestoredFieldsHeld(incoming, deviceID: deviceID) }
                            guard outcome.changed else { return }
                            if guarded {
                                if outcome.record.word.isDeleted {
                                    if wasLive[id] == true {
                                        leaving.insert(id)
                                        if !leavingPurged.contains(id) { leavingBy[id] = outcome.record.writers[WordField.deleted.index] }
                                    }
                                } else {
                                    leaving.remove(id)
                                }
                            }
                            if !outcome.changedFields.isEmpty {
                                if local?.pending == true { mergedWords.insert(id.hashValue) } else { pulledWords.insert(id.hashValue) }
                            }
                            // A field this device wrote since its last sync, now replaced. Tags
                            // merge one tag at a time, so a tag put on here stays: not counted.
                            if let local, local.pending,
                                try outcome.changedFields.contains(where: { try $0 != .tags && editedHere(local, $0) })
                            {
                                overridden.insert(id, local.record.word.term)
                            }
                            // A word edited here since the last sync that another device moved to
                            // the Trash meanwhile: the edit stays, but out of sight; said, by name
                            // (round 16B: an import undone elsewhere took it there silently).
                            // Counted by where the word ends: one deleted and restored again in
                            // the files of one pull is not in the Trash (it was named, round 17B).
                            // At this library's first sync with this cloud (a device set to a copy
                            // of the folder it synced with, round 17A G8), an edit sent elsewhere
                            // counts when made after the word went to the Trash here.
                            // An edit sent already counts when it came after the deletion:
                            // the deleting device did not have it (a sync program that
                            // delivered late, or this library's first sync with this cloud).
                            // So do answers given here that the deleting device had not had
                            // (round 20A #8: a word studied here for weeks went to the Trash with
                            // another device's import undo, and no sync said so).
                            if let local, !local.record.word.isDeleted, outcome.record.word.isDeleted,
                                try WordField.allCases.contains(where: { field in
                                    guard field != .deleted else { return false }
                                    if local.pending, try editedHere(local, field) { return true }
                                    guard local.record.times[field] > outcome.record.times[.deleted] else { return false }
                                    return try writtenHere(local, field)
                                }) || store.studiedHere(id, after: outcome.record.times[.deleted])
                            {
                                trashedEdited.insert(id, local.record.word.term)
                            } else if !outcome.record.word.isDeleted {
                                trashedEdited.remove(id)
                                editedTrashedHere.remove(id)
                            }
                            // Likewise a deletion sent already, whose device had not had the
                            // edit: one made before the deletion reached it.
                            if let local, local.record.word.isDeleted, outcome.record.word.isDeleted,
                                outcome.changedFields.contains(where: { $0 != .deleted }),
                                try local.pending ? editedHere(local, .deleted) : writtenHere(local, .deleted)
                            {
                                editedTrashedHere.insert(id, local.record.word.term)
                            }
                            // A change from another device to a word that stays in the Trash here:
                            // that device may not have seen it go there (an edit and the deletion
                            // crossing), and sees it in its Trash only once this deletion reaches
                            // it, so the word's days count again from now. The clean-up purged it
                            // in the very sync that brought the edit, and the marker took the word,
                            // edited, from a device that never saw it in its Trash (round 18A #8).
                            if let local, local.record.word.isDeleted, outcome.record.word.isDeleted,
                                outcome.changedFields.contains(where: { $0 != .deleted })
                            {
                                trashChanged.append(id)
                            }
                            // A word new here is saved as `incoming`, which `columns` were made from.
                            if local == nil, let columns {
                                fresh.append((outcome.record, columns))
                                freshPending = relayed.contains(batch.device)
                                if fresh.count == Self.freshWordsPerWrite { try saveFresh() }
                            } else {
                                try saveFresh()  // rows keep the order of the file
                                try store.saveMerged(outcome.record, replacing: local, pending: relayed.contains(batch.device))
                            }
                        }, recordsDone: saveFresh, thenEventsInto: reviews, recordsAsideFrom: store.library.recordsReadAsideFrom,
                        columnsLocale: columnsLocale)
                }
            }
            let restartedAt = now
            for id in trashChanged { try store.restartTrashDays(of: id, now: restartedAt) }
            // Answers another device gave to a word this device moved to the Trash, pulled
            // now: that device had not had the move. Said as an edit is: a word studied there
            // left its study in silence (found by the exploratory helper, round 27A #1).
            for id in answered {
                guard let local = try store.local(id), local.record.word.isDeleted, try writtenHere(local, .deleted) else { continue }
                editedTrashedHere.insert(id, local.record.word.term)
            }
            // Answers given to a word the Trash's clean-up purged follow it to the id it is
            // kept under, wherever a device kept it: those held here when the marker came,
            // and those another device's file brought (stored under the old id above). They
            // were dropped, and two weeks of answers went from every device while the word
            // they were given to lived on, kept by another device (round 20A #7).
            var settling = Set(heldAnswers.keys).intersection(cleanedUp)
            if answersPulled > 0 {
                for id in cleanedUp where !settling.contains(id) {
                    if try store.hasAnswers(id) { settling.insert(id) }
                }
            }
            for id in settling { try store.settleAnswers(of: id, held: heldAnswers[id] ?? []) }
            // A word the clean-up removed here that another device kept, and sent here in
            // this pull, is here still: not told as removed.
            var removedByCleanUp = false
            for removed in cleanedUpHere {
                removedByCleanUp = true
                if try store.local(try store.library.idAfterPurge(of: removed.id)) == nil {
                    countPurged(removed.term, editedHere: removed.editedHere, byCleanUp: true)
                }
            }
            // Joplin lost notes when a sync read absence as deletion; MiDiccio never does,
            // and still stops when other devices' changes would empty much of the library.
            if guarded, leaving.count * 2 > live {
                // Those that moved words to the Trash, when some were purged too.
                let purgedLeaving = leavingPurged.intersection(leaving)
                let trashedLeaving = purgedLeaving.count == leaving.count ? leaving : leaving.subtracting(purgedLeaving)
                throw SyncError.massDeletion(
                    count: leaving.count, of: live, purged: purgedLeaving.count,
                    by: deviceNames(ofMost: trashedLeaving.map { leavingBy[$0] ?? "" }))
            }
            if restoreHolderHeard { try store.restoreHolderHeard() }
            next.cursors = cursors
            for index in next.absorbed.indices where !next.absorbed[index].cleanedUp {
                let device = next.absorbed[index].device
                next.absorbed[index].through = max(next.absorbed[index].through, cursors[device] ?? 0)
            }
            next.purgedElsewhere += purgedHere
            if purgedHere > 0 || removedByCleanUp { try store.oweScrub() }
            // Kept until this sync has told it (`finish`): one stopped after this commit
            // leaves it to the next.
            if purgedHere > 0 || overridden.count > 0 || trashedEdited.count > 0 || editedTrashedHere.count > 0
                || keptFromCleanUp.count > 0
            {
                var untold = next.untold ?? SyncState.Untold()
                let named = SyncReport.purgedNamed
                untold.purged += purgedHere
                untold.purgedEdited += purgedEditedHere
                untold.purgedStudied = (untold.purgedStudied ?? 0) + purgedStudiedHere
                untold.overridden += overridden.count
                untold.overriddenTerms = Array((untold.overriddenTerms + overridden.terms(named)).prefix(named))
                untold.trashedEdited = (untold.trashedEdited ?? 0) + trashedEdited.count
                untold.trashedEditedTerms = Array(((untold.trashedEditedTerms ?? []) + trashedEdited.terms(named)).prefix(named))
                untold.trashedEditedIDs = (untold.trashedEditedIDs ?? []) + trashedEdited.allIDs
                untold.editedTrashedHere = (untold.editedTrashedHere ?? 0) + editedTrashedHere.count
                untold.editedTrashedHereTerms = Array(
                    ((untold.editedTrashedHereTerms ?? []) + editedTrashedHere.terms(named)).prefix(named))
                untold.editedTrashedHereIDs = (untold.editedTrashedHereIDs ?? []) + editedTrashedHere.allIDs
                untold.keptFromCleanUp = (untold.keptFromCleanUp ?? 0) + keptFromCleanUp.count
                untold.keptFromCleanUpTerms = Array(((untold.keptFromCleanUpTerms ?? []) + keptFromCleanUp.terms(named)).prefix(named))
                next.untold = untold
            }
        }
        let merged = mergedWords.count, pulled = pulledWords.subtracting(mergedWords).count
        report.pulled += pulled
        report.merged += merged
        let named = SyncReport.purgedNamed
        report.overriddenHere += overridden.count
        report.overriddenTerms = Array((report.overriddenTerms + overridden.terms(named)).prefix(named))
        report.trashedEditedHere += trashedEdited.count
        report.trashedEditedTerms = Array((report.trashedEditedTerms + trashedEdited.terms(named)).prefix(named))
        report.trashedEditedIDs += trashedEdited.allIDs
        report.editedTrashedHere += editedTrashedHere.count
        report.editedTrashedHereTerms = Array((report.editedTrashedHereTerms + editedTrashedHere.terms(named)).prefix(named))
        report.editedTrashedHereIDs += editedTrashedHere.allIDs
        report.keptFromCleanUp += keptFromCleanUp.count
        report.keptFromCleanUpTerms = Array((report.keptFromCleanUpTerms + keptFromCleanUp.terms(named)).prefix(named))
        report.answersPulled += answersPulled
        report.settingsPulled += settingsPulled
        report.purgedElsewhere += purgedHere
        report.purgedEditedHere += purgedEditedHere
        report.purgedTerms = Array((report.purgedTerms + purgedTerms).prefix(SyncReport.purgedNamed))
        report.purgedEditedTerms = Array((report.purgedEditedTerms + purgedEditedTerms).prefix(SyncReport.purgedNamed))
        report.purgedStudiedHere += purgedStudiedHere
        report.purgedStudiedTerms = Array((report.purgedStudiedTerms + purgedStudiedTerms).prefix(SyncReport.purgedNamed))
        kept.pulled += pulled + merged
        kept.purged += purgedHere
    }

    /// Keeps a word another device's Trash clean-up purged (`PurgeMarker.cleanUp`) when this
    /// library holds a change of it that device never had:
    /// - a change not sent yet (the word is pending here): an edit made offline, its restore
    ///   from the Trash, whenever it was stamped. Only a change newer than every field of the
    ///   version purged counted, and an edit made offline before the deletion (stamped
    ///   before it, or by a clock behind) was taken, though the merge alone keeps it in the
    ///   Trash with the edit (found by the exploratory helper, round 22A #1);
    /// - a change newer than every field of the version purged (one sent, that the purging
    ///   device had not read: a copy of a cloud folder, a device that joined the old folder
    ///   after the library left it; round 18A).
    /// A word in the Trash here is kept only when it is pending with a field, other than its
    /// Trash flag, newer than that version: a word an earlier clean-up's marker kept here in
    /// the Trash with an edit, which a later clean-up of the kept word took (round 22A #2).
    /// Without the purge the merge would have kept that change (in the Trash with the edit,
    /// or out of it after a restore); the purge only went ahead because its device had not
    /// seen it. The word comes back under the id a purged word comes back under
    /// (`WordID.restoredAfterPurge`, the same on every device, so two devices that kept it
    /// make one word), with its fields, their times and its answers, and is sent as a change
    /// of this library. Returns its new id, its term and whether it is in the Trash; nil when
    /// the marker takes the word as any purge does: a person's purge, a word in the Trash
    /// here, or one with nothing the purging device did not have. Call inside the merge's
    /// `commit`, before `store.apply(marker)`.
    func keepFromCleanUp(_ marker: PurgeMarker) throws -> (id: WordID, term: String, inTrash: Bool)? {
        guard let cleanUp = marker.cleanUp, let local = try store.local(marker.id) else { return nil }
        let times = local.record.times
        if local.record.word.isDeleted {
            let newestField = WordField.allCases.filter { $0 != .deleted }.map { times[$0] }.max() ?? times.deleted
            guard local.pending, newestField > cleanUp.newest else { return nil }
        } else {
            guard local.pending || times.newest > cleanUp.newest else { return nil }
        }
        let kept = try keepUnderNewID(local.record, purged: marker.id, cleanUp: cleanUp)
        try store.moveReviewEvents(from: marker.id, to: kept.id)
        return kept
    }

    /// Keeps `incoming`, a record of word `id` the Trash's clean-up purged, read from
    /// another device's file after the marker, when it holds a change the purging device
    /// had not seen: out of the Trash, with a field newer than the version purged. The
    /// device that made the change keeps it so when the marker reaches it
    /// (`keepFromCleanUp`); one lost before that, whose change was in the cloud, lost the
    /// word on every device that read the marker first (found by the exploratory helper,
    /// round 24B #1: a library that syncs with two clouds in turn carried another cloud's
    /// clean-up past a phone's restore and edit). Returns the id it is kept under, or nil.
    func keepIncomingFromCleanUp(_ incoming: SyncRecord, cleanedUp: Set<WordID>) throws -> WordID? {
        let id = incoming.word.id
        guard !incoming.word.isDeleted, cleanedUp.contains(id), let cleanUp = try store.cleanUp(of: id),
            incoming.times.newest > cleanUp.newest
        else { return nil }
        return try keepUnderNewID(incoming, purged: id, cleanUp: cleanUp).id
    }

    /// Saves `kept`, a version of purged word `purged` that its clean-up had not seen, under
    /// the id a purged word comes back under, as a change of this library.
    private func keepUnderNewID(
        _ kept: SyncRecord, purged: WordID, cleanUp: PurgeMarker.CleanUp
    ) throws -> (id: WordID, term: String, inTrash: Bool) {
        let id = try store.library.idAfterPurge(of: purged)
        var record = kept
        record.word.id = id
        // Not taken out of the Trash here after it went there: the deletion is the newer
        // value of the Trash flag, and the change stays with the word in the Trash.
        if kept.times.deleted <= cleanUp.trashedAt {
            record.word.deletedAt = cleanUp.trashedAt
            record.times.deleted = cleanUp.trashedAt
        }
        record.word.updatedAt = record.times.newest
        let existing = try store.local(id)
        let outcome = MergeRules.merge(local: existing?.record, incoming: record)
        if outcome.changed { try store.saveMerged(outcome.record, replacing: existing, pending: true) }
        return (id, kept.word.term, outcome.record.word.isDeleted)
    }

    /// How many words new here, with their rows made ahead, a merge saves at once.
    static let freshWordsPerWrite = 256

    /// The id a record's `trashHold` gives the devices of the library a backup restored here
    /// came from: no device has it, so every device of this cloud waits for them with it.
    static let restoreHolder = "restored-backup"

    /// Purges what has been in the Trash here longer than `trash.autoPurgeDays`: counted
    /// by this device's clock, or by the cloud's when the back end tells one (an HTTP
    /// server's `Date`) and it is earlier. A clock set weeks ahead otherwise purged, on
    /// every device, words that went to the Trash minutes before (found by the exploratory
    /// helper); a device without such a cloud (a folder) still counts by its own.
    ///
    /// Only after a pull that read everything the other devices' records name: a file it
    /// skipped (cut short, or not delivered yet by a file-sync client) may take a word out
    /// of the Trash, and the purge, made first, beat that restore and the edits after it on
    /// every device (found by the exploratory helper, round 12C). The words due wait for
    /// the next sync that reads it all (`autoPurgeWaitsFor`; `noteUnreadChanges`).
    func autoPurge() throws {
        var until = Timestamp(milliseconds: now)
        if let cloud = storage.cloudNow {
            let ahead = until.milliseconds - cloud.milliseconds
            if ahead > ClockAhead.threshold { report.aheadOfCloud = ahead }
            until = min(until, cloud)
        }
        // This library's own hold, for its record: the devices of this cloud wait with it.
        // Published whatever the setting: turned on later on another device of this cloud,
        // while this library was away a week, the setting let that device purge what this
        // one would hold back (round 17A G4).
        trashHold = try devicesNotHeardHere(until: until.milliseconds, ownOnly: true)
        // And the devices of the library a backup restored here came from, while they are
        // waited for: a tablet of this cloud purged the restored words (round 17A G3).
        if let restored = try store.restoredFromElsewhereAt(), restored >= until.milliseconds - engine.retention {
            let name = try store.library.deviceName()
            trashHold.append(
                SyncStore.DeviceElsewhere(
                    device: Self.restoreHolder, name: "the devices of the library a backup restored on \(name) came from", at: restored))
        }
        guard report.unreadFrom.isEmpty else {
            if try store.autoPurgeDue(now: until, lastSync: state.lastSync) > 0 { report.autoPurgeWaitsFor = report.unreadFrom }
            return
        }
        // Not before this sync's upload of every word (this cloud's first of this library
        // since it came or came back, an update's): a deletion sent to another cloud only
        // counted its days from there, and back here, the word was purged before the devices
        // here saw it in the Trash (round 15C). The upload starts every count again
        // (`SyncStore.Uploaded.everyWordThrough`). A word no other device could have was
        // purged even then, until a copy of the library file turned out to have it (16A F11).
        if state.fullUpload { return }
        // Nothing due (the setting off, say): no need to know who holds it, unless it held
        // before. Then whether they have come is looked at anyway, so that the days count
        // again when they come: with no word due at that sync (one their edit reached counts
        // again anyway), they counted again only once a word fell due, later, for nothing.
        let due = try store.autoPurgeDue(now: until, lastSync: state.lastSync)
        guard try due > 0 || store.autoPurgeHeld() else { return }
        let elsewhere = try devicesNotHeardHere(until: until.milliseconds)
        if !elsewhere.isEmpty {
            guard due > 0 else { return }
            // Every word waits for those devices: what is sent may be theirs, and what is not
            // sent yet waits for the sync that sends it anyway (`autoPurgeDue`).
            report.autoPurgeWaitsElsewhere = SyncStore.labels(of: elsewhere.filter { !$0.device.isEmpty })
            report.autoPurgeWaitsUnheard = elsewhere.filter(\.device.isEmpty).compactMap(\.name)
            try store.noteAutoPurgeHeld()
            return
        }
        // They have come: the days count again, for them to see the words in the Trash
        // (and restore one they edited) before they go.
        if try store.restartTrashDaysIfHeld(now: until) {
            report.autoPurgeDaysRestarted = true
            return
        }
        guard due > 0 else { return }
        // The words a backup restore brought wait for the devices of the library it came
        // from: until one of them syncs here (its record of such a word is read), or 180 days. Sent to a cloud
        // of this library's own first (a new laptop set up from the phone's backup, trying
        // another cloud), they were purged there, and the marker took them, live and edited,
        // from the phone once the laptop joined its cloud (round 16A F8).
        // It lets go once a pull brings another device's record of one of those words
        // (`merge`): any device syncing here let it go, and one that had never held them (a
        // tablet syncing with the laptop alone) purged them all the same (round 17A G3).
        if let restored = try store.restoredFromElsewhereAt(), restored >= until.milliseconds - engine.retention {
            report.autoPurged += try store.autoPurge(now: until, lastSync: state.lastSync, exceptRestored: true)
            report.autoPurgeWaitsRestore = due > report.autoPurged
            return
        }
        report.autoPurged += try store.autoPurge(now: until, lastSync: state.lastSync)
    }

    /// The devices whose records are in a cloud folder this library left, while that folder
    /// is still on this computer (another folder than this cloud's), written at `since` or
    /// later: among them those that joined it after this library left, which no state kept
    /// aside names. A phone set to the old folder of a cloud copied elsewhere edited a word
    /// there that this library had deleted in the copy, and the clean-up purged it (found by
    /// the exploratory helper, round 18A #6). Read from the folder's records at each sync.
    private func devicesInFoldersLeft(since: Int64) throws -> [SyncStore.DeviceElsewhere] {
        // Most libraries left no folder: one read of the states kept aside, and nothing more.
        let folders = try store.previousStates().compactMap { SyncStore.folder(ofPreviousKey: $0.key) }
        guard !folders.isEmpty else { return [] }
        let here = try store.remoteLocation().flatMap { $0.kind == "folder" ? FileSystem.identity($0.location) : nil }
        let former = try store.formerIDs()
        var found: [SyncStore.DeviceElsewhere] = []
        for folder in folders {
            guard let there = FileSystem.identity(folder),
                here.map({ $0 != there }) ?? true,
                let names = try? FileManager.default.contentsOfDirectory(atPath: folder + "/" + CloudLayout.devicesFolder)
            else { continue }
            for device in names.compactMap(CloudLayout.device(fromRecordName:)) where device != deviceID && !former.contains(device) {
                guard !found.contains(where: { $0.device == device }),
                    let data = FileManager.default.contents(atPath: folder + "/" + CloudLayout.devicePath(device)),
                    let record = DeviceRecord.decode(data), record.lastSync.milliseconds >= since
                else { continue }
                found.append(
                    SyncStore.DeviceElsewhere(
                        device: device, name: record.name.isEmpty ? nil : record.name, at: record.lastSync.milliseconds,
                        written: record.lastSync.milliseconds))
            }
        }
        return found
    }

    /// The devices this library synced with through a cloud it has left, within the
    /// retention period counted to `until` (the earlier of this device's clock and the
    /// cloud's: a clock months ahead let the hold go, round 16A), that have not synced
    /// through this one since they were heard there: no record of them here written, by
    /// their clock, after the one read there (an old record of them here, from before, let
    /// the hold go, round 16A). With the clouds where this library heard from no device
    /// (`device` empty) while no device here synced after it left them. Names without line
    /// breaks.
    ///
    /// Unless `ownOnly`, with those the other devices of this cloud wait for
    /// (`DeviceRecord.trashHold`, records written within the retention period): a device
    /// that had only ever synced here purged what the library that moved here held back
    /// (round 16A F1). Their unnamed clouds' entries count for nothing here: this device
    /// syncs here after they left them.
    private func devicesNotHeardHere(until: Int64, ownOnly: Bool = false) throws -> [SyncStore.DeviceElsewhere] {
        let heard = heardSoFar
        var candidates = try store.devicesElsewhere(now: until, within: engine.retention)
        for joined in try devicesInFoldersLeft(since: until - engine.retention)
        where !candidates.contains(where: { $0.device == joined.device }) {
            candidates.append(joined)
        }
        if !ownOnly {
            // Never this library's former ids: another device heard one in a cloud they both
            // left, never learnt it was taken over, and named it (round 17A G2).
            let former = try store.formerIDs()
            for record in others where record.device != deviceID && record.lastSync.milliseconds >= until - engine.retention {
                for held in record.trashHold ?? [] where !held.device.isEmpty && held.device != deviceID && !former.contains(held.device) {
                    guard held.at >= until - engine.retention, !candidates.contains(where: { $0.device == held.device }) else { continue }
                    candidates.append(SyncStore.DeviceElsewhere(device: held.device, name: held.name, at: held.at, written: held.written))
                }
            }
        }
        return candidates.filter { elsewhere in
            // A cloud where this library heard from nobody: until a device here has synced
            // since this library left it (the person's other devices are here now). Held for
            // 180 days, a mistyped folder set right a minute later held the clean-up as long
            // (round 16A).
            guard !elsewhere.device.isEmpty else {
                return !others.contains { $0.device != deviceID && $0.lastSync.milliseconds > elsewhere.at }
            }
            guard elsewhere.device != deviceID, !state.absorbed.contains(where: { $0.device == elsewhere.device }) else { return false }
            let here = others.first { $0.device == elsewhere.device }?.lastSync.milliseconds ?? heard[elsewhere.device]?.written
            guard let here else { return true }
            return here <= (elsewhere.written ?? elsewhere.at)
        }.map { elsewhere in
            var named = elsewhere
            named.name = elsewhere.name.map { String($0.map { $0.isNewline ? " " : $0 }) }
            return named
        }
    }

    /// The devices among `ids` (one per word), by name, the one there most often first;
    /// this device is "this device", an id no record names its first eight characters.
    private func deviceNames(ofMost ids: [String]) -> [String] {
        var counts: [String: Int] = [:]
        for id in ids where !id.isEmpty { counts[id, default: 0] += 1 }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { id, _ in
            if id == deviceID { return "this device" }
            guard let record = others.first(where: { $0.device == id }), !record.name.isEmpty else { return String(id.prefix(8)) }
            return record.name
        }
    }

    /// Names other devices as people tell them apart: by name, with the start of the id
    /// when another device (this one, named `thisDevice`, among them) has the same name; by
    /// the start of the id alone when a record has no name.
    func deviceLabels(thisDevice: String) -> (DeviceRecord) -> String {
        var named: [String: Int] = [thisDevice: 1]
        for record in others { named[record.name, default: 0] += 1 }
        return { record in
            guard !record.name.isEmpty else { return String(record.device.prefix(8)) }
            return (named[record.name] ?? 0) > 1 ? "\(record.name) (\(record.device.prefix(8)))" : record.name
        }
    }

    /// Notes, after the pull, the devices heard from within the retention period whose
    /// records name files this device has not read (not delivered yet, cut short, or
    /// missing): such a file may take a word out of the Trash or edit it, so the Trash's
    /// clean-up waits, and a command about to purge or override stops (`unreadFrom`).
    ///
    /// A record older than one read before (a sync program delivering two versions of it
    /// out of order, a cache in front of a WebDAV server) still counts the files the newer
    /// one named; and a device whose record could not be read (half delivered, damaged)
    /// counts as one whose changes have not all arrived. Either let the clean-up, `trash
    /// empty` and a replace restore go ahead over a restore or an edit not delivered yet
    /// (found by the exploratory helper, round 15C).
    func noteUnreadChanges() {
        let heard = heardSoFar
        // Named as status names them: two copies of a library on one laptop were both
        // "laptop" (round 28A #3).
        let label = deviceLabels(thisDevice: (try? store.library.deviceName()) ?? "")
        report.unreadFrom =
            activeReaders().filter { record in
                wants[record.device] != nil || (state.cursors[record.device] ?? 0) < max(record.lastSeq, heard[record.device]?.seq ?? 0)
            }
            .map(label)
            + unreadableRecords.map { "\($0.prefix(8)) (its record could not be read)" }
    }

    /// Notes each other device's newest record read (`SyncState.heard`): a record newer
    /// than the one noted, by its writer's clock, takes its place, read now by this
    /// device's clock; an older one (delivered late) leaves it. A device that numbers its
    /// files from 1 again writes a newer record with a lower number, which takes its place.
    ///
    /// Saved with the sync's end (`finish`), or at once when a device names files not read
    /// here yet, which later syncs must still wait for: a commit of its own on every sync
    /// cost a steady sync of one word 0.7 ms.
    func rememberRecordsHeard() throws {
        var heard = state.heard ?? [:]
        for record in others {
            let written = record.lastSync.milliseconds
            if let known = heard[record.device], known.written >= written { continue }
            heard[record.device] = SyncState.Heard(
                seq: record.lastSeq, written: written, at: now, name: record.name.isEmpty ? nil : record.name)
        }
        heardNow = heard
        guard heard != state.heard ?? [:],
            heard.contains(where: { device, known in (state.cursors[device] ?? 0) < known.seq })
        else { return }
        try commit { $0.heard = heard }
    }

    /// Each other device's newest record read (`rememberRecordsHeard`), saved or not yet.
    var heardSoFar: [String: SyncState.Heard] { heardNow ?? state.heard ?? [:] }

    /// Scrubs the text of words purged by this sync's merge, or by an earlier purge whose
    /// scrub another program's write kept waiting (`WordLibrary.scrubIfOwed`).
    func scrubPurgedText() throws {
        try store.scrubIfOwed()
    }
}

/// Words a sync names in a note: each once, in the order met, with its term.
struct NamedWords {
    private var ids: [WordID] = []
    private var termOf: [WordID: String] = [:]

    /// How many.
    var count: Int { ids.count }

    /// Adds word `id` (`term`) unless it is there.
    mutating func insert(_ id: WordID, _ term: String) {
        guard termOf[id] == nil else { return }
        ids.append(id)
        termOf[id] = term
    }

    /// Takes word `id` out, when it is there.
    mutating func remove(_ id: WordID) {
        guard termOf.removeValue(forKey: id) != nil else { return }
        ids.removeAll { $0 == id }
    }

    /// Every id, in order.
    var allIDs: [String] { ids.map(\.rawValue) }

    /// The terms of the first `limit`, in order.
    func terms(_ limit: Int) -> [String] { ids.prefix(limit).compactMap { termOf[$0] } }
}
