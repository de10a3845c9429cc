import Foundation
import MiDiccioModel
import MiDiccioStore

extension WordLibrary {
    /// Deletes words in the Trash permanently. Each leaves a marker (its id and the
    /// purge time, nothing of its content) that sync carries to every device, where it
    /// beats any version of the word. All or nothing: a word not in the Trash is refused.
    ///
    /// The purged words' text then leaves the search index's old segments and the WAL
    /// (`scrubIfOwed`); should another program be writing meanwhile, that waits for the
    /// next purge or sync, and the purge still stands. With `scrubsLater`, it waits for
    /// whoever calls `scrubIfOwed` next.
    ///
    /// `progress` hears how many words were purged, of all, as a bulk action's does.
    @discardableResult
    public func purge(_ ids: [WordID], progress: BulkProgress? = nil) throws -> [Word] {
        try purge(ids, byCleanUp: false, progress: progress)
    }

    /// `purge`, refused (`trashChangedSinceShown`, nothing purged) when a word's
    /// `trashVersion` is another than `asShown` gives for it: the page showed it otherwise.
    /// Words `asShown` does not name are purged as they are.
    public func purge(_ ids: [WordID], asShown: [WordID: String], progress: BulkProgress? = nil) throws -> [Word] {
        let purged = try purgeOwingScrub(ids, asShown: asShown, progress: progress)
        if !scrubsLater { try scrubIfOwed() }
        return purged
    }

    /// `purge`, by a person or, `byCleanUp`, by the Trash's clean-up (its markers say so).
    package func purge(_ ids: [WordID], byCleanUp: Bool, progress: BulkProgress? = nil) throws -> [Word] {
        let purged = try purgeOwingScrub(ids, byCleanUp: byCleanUp, progress: progress)
        if !scrubsLater { try scrubIfOwed() }
        return purged
    }

    /// The transaction of `purge`, which leaves the scrub owed.
    package func purgeOwingScrub(
        _ ids: [WordID], byCleanUp: Bool = false, asShown: [WordID: String] = [:], progress: BulkProgress? = nil
    ) throws -> [Word] {
        try writing {
            let time = clock.now()
            let unique = Self.unique(ids)
            if !asShown.isEmpty {
                let changed = try unique.compactMap { id -> String? in
                    guard let shown = asShown[id], let stored = try stored(id), stored.word.isDeleted else { return nil }
                    return Self.trashVersion(of: stored.word) == shown ? nil : stored.word.term
                }
                if !changed.isEmpty {
                    throw LibraryError.trashChangedSinceShown(count: changed.count, terms: Array(changed.prefix(5)))
                }
            }
            progress?(0, unique.count)
            let purged = try unique.enumerated().map { index, id in
                guard let stored = try stored(id) else { throw LibraryError.wordNotFound(id.rawValue) }
                guard stored.word.isDeleted else { throw LibraryError.notInTrashForPurge(id, term: stored.word.term) }
                try removePermanently(stored)
                // The clean-up's marker says which version it purged (`PurgeMarker.cleanUp`).
                let cleanUp = byCleanUp ? PurgeMarker.CleanUp(trashedAt: stored.times.deleted, newest: stored.times.newest) : nil
                try recordMarker(PurgeMarker(id: id, purgedAt: time, cleanUp: cleanUp), pending: true, byThisDevice: true)
                if (index + 1) % bulkWordsPerRead == 0 || index + 1 == unique.count { progress?(index + 1, unique.count) }
                return stored.word
            }
            if !purged.isEmpty { try oweScrub() }
            return purged
        }
    }

    /// Purges every word in the Trash; returns how many. `progress` as for `purge`.
    ///
    /// `expecting` is how many words the person saw in the Trash (hidden ones too): when it
    /// holds another number (another device moved words there, pulled by the sync before
    /// this), nothing is purged and `LibraryError.selectionChanged` says so. Words nobody
    /// saw were purged on every device (found by the exploratory helper, round 8).
    /// `expectingKey` is the Trash's `trashKey()` when the person saw it: the same count of
    /// other words (one restored elsewhere, another deleted) is refused as well (round 9).
    @discardableResult
    public func emptyTrash(expecting: Int? = nil, expectingKey: String? = nil, progress: BulkProgress? = nil) throws -> Int {
        try emptyTrash(expecting: expecting, expectingKey: expectingKey, progress: progress, afterLook: nil)
    }

    /// `emptyTrash`, running `afterLook` between its look at the Trash and the purge (tests
    /// play another program there).
    package func emptyTrash(
        expecting: Int?, expectingKey: String?, progress: BulkProgress?, afterLook: (() throws -> Void)?
    ) throws -> Int {
        let (rows, kept) = try guarded { try database.read { (try trashEntries(), try keptTrashKey()) } }
        try afterLook?()
        let key = rows.reduce(0) { $0 ^ $1.term }.sixteenHexDigits
        if kept != (rows.count, key) {
            // The kept key (`trashKey`) went wrong somehow: counted again at the next read,
            // so the person's next look at the Trash gets the true one and Empty Trash is
            // not refused for good.
            try guarded { try writing { try database.run("DELETE FROM library_info WHERE key = 'words.counts'") } }
        }
        if let expecting, expecting != rows.count { throw LibraryError.selectionChanged(expected: expecting, found: rows.count) }
        if let expectingKey, !expectingKey.isEmpty, expectingKey != key {
            throw LibraryError.selectionChanged(expected: expecting ?? rows.count, found: rows.count)
        }
        do {
            return try purge(rows.compactMap { WordID($0.id) }, progress: progress).count
        } catch LibraryError.notInTrashForPurge, LibraryError.wordNotFound {
            // A word taken out of the Trash (or purged) between the look and the purge (another program,
            // the web app): nothing was purged. It said "... is not in the Trash; delete it
            // first, then purge it" of a word the person had just restored (round 21B #7).
            let now = try guarded { try database.read { try counts().trash } }
            throw LibraryError.selectionChanged(expected: rows.count, found: now)
        }
    }

    /// How many words the Trash holds (hidden ones too) and which (16 hexadecimal digits,
    /// as `selectionKey` gives): what Empty Trash is asked about, for `emptyTrash`. Kept
    /// with the library's counts as each word goes in or out, so it reads no entry: every
    /// page of a Trash of 100,000 words gives it (`api/trash`).
    public func trashKey() throws -> (count: Int, key: String) {
        try guarded { try database.read { try keptTrashKey() } }
    }

    /// Purges words that have been in the Trash longer than `trash.autoPurgeDays`
    /// (off by default: the product notes prefer being able to restore).
    ///
    /// The days count from when this device first saw the word in the Trash, by this
    /// device's own clock: `deletedAt` is stamped by whichever device deleted the word,
    /// and a clock a day behind or ahead there must not hurry a purge here.
    ///
    /// `now` is the time to count to, this device's clock unless a sync knows a clock it
    /// trusts more (`SyncSession.autoPurge`). `lastSync` and `onlyUnshared` as for
    /// `autoPurgeDue`.
    ///
    /// Its markers say so (`PurgeMarker.cleanUp`): a device that holds such a word out of
    /// its Trash with a change newer than every field of the version purged here keeps it.
    @discardableResult
    public func autoPurge(
        now: Timestamp? = nil, lastSync: Int64? = nil, onlyUnshared: Bool = false, sentOnly: Bool = false, exceptRestored: Bool = false
    ) throws -> Int {
        try purge(
            try autoPurgeDue(now: now, lastSync: lastSync, onlyUnshared: onlyUnshared, sentOnly: sentOnly, exceptRestored: exceptRestored),
            byCleanUp: true
        ).count
    }

    /// The words `autoPurge(now:)` would purge: in the Trash here longer than
    /// `trash.autoPurgeDays` (none with the setting off). With `lastSync` (a library that
    /// syncs: when its last sync finished, or `Int64.min`), not those whose change here is
    /// still to be sent, unless no other device can have them (every field written here,
    /// and made after that sync): their days count from the upload (`SyncStore.markUploaded`),
    /// once other devices can see them in the Trash. A word a backup restore brought or
    /// changed is not one of those (`restored_from_elsewhere`): the backup may be another
    /// device's. A new laptop started from the phone's backup purged, before its first
    /// sync, a word the phone had edited since, on the phone too (found by the exploratory
    /// helper, round 15C). With `onlyUnshared` as well, only
    /// those no other device can have, sent or not: while a device this library synced
    /// with through another cloud has not synced through this one (`SyncStore.devicesElsewhere`),
    /// a deletion sent here has not reached it.
    ///
    /// With `sentOnly` (a sync's clean-up), a word whose change here is not sent yet waits
    /// whoever made it: "made here since the last sync" is not "no other device can have
    /// it" for a library file copied meanwhile (the copy holds it under the same device
    /// id). A copy of a laptop's file that deleted a word the laptop had made and not
    /// synced purged it at its first sync, and the marker took the word, live and edited,
    /// from the laptop, which had never seen it in its Trash (round 16A F11). Sent, it
    /// reaches the other copy's Trash with the deletion, and counts its days from then.
    ///
    /// With `exceptRestored`, none of the words a backup restore brought or changed
    /// (`restored_from_elsewhere`), sent or not: the devices of the library the backup came
    /// from have not synced where this library sent their deletion (`SyncSession.autoPurge`).
    public func autoPurgeDue(
        now: Timestamp? = nil, lastSync: Int64? = nil, onlyUnshared: Bool = false, sentOnly: Bool = false,
        exceptRestored: Bool = false
    ) throws -> [WordID] {
        guard let days = try settingDays(.autoPurgeDays) else { return [] }
        let cutoff = (now ?? clock.now()).milliseconds - Int64(days) * 86_400_000
        let here =
            "term_by = 0 AND meaning_by = 0 AND reading_by = 0 AND examples_by = 0 AND notes_by = 0 AND tags_by = 0 AND deleted_by = 0"
        return try guarded {
            try database.cached(
                "SELECT id FROM words WHERE trash_seen_at IS NOT NULL AND trash_seen_at < ?1 "
                    + "AND (?2 IS NULL OR (pending = 0 AND ?3 = 0) OR (?4 = 0 AND \(here) AND created_at > ?2 "
                    + "AND id NOT IN (SELECT id FROM restored_from_elsewhere))) "
                    + "AND (?5 = 0 OR id NOT IN (SELECT id FROM restored_from_elsewhere))"
            ).rows([
                .integer(cutoff), lastSync.map { .integer($0) } ?? .null, .integer(onlyUnshared ? 1 : 0), .integer(sentOnly ? 1 : 0),
                .integer(exceptRestored ? 1 : 0),
            ]) { $0.text(0) }
        }.compactMap(WordID.init)
    }

    /// `autoPurge()` for a library that does not sync, as it opens. A library that syncs
    /// purges only inside a sync, after its pull: a word another device took out of the
    /// Trash meanwhile is out of it here only then, and a purge made before the pull beat
    /// that restore on every device (found by hand: the word and the edits made to it
    /// after its restore were gone everywhere). With the setting off this is one small query.
    ///
    /// Words that other devices may hold wait even here, as in a library that syncs
    /// (`autoPurgeDue`'s `lastSync`, from `lastSyncEver`): a library that synced before its
    /// remote was removed purged a word whose deletion no other device had seen, and the
    /// marker then took it, live and edited there, from every device once the remote was
    /// set back (found by the exploratory helper, round 15C).
    ///
    /// And while this library synced with other devices in the last 180 days (through a
    /// cloud it has left, `SyncStore.devicesElsewhere`), only words no other device can
    /// have are purged: one of them may have taken a word out of its Trash and edited it
    /// since, and the marker, sent once the remote is set again, took it from there too.
    @discardableResult
    public func autoPurgeUnlessSyncing() throws -> Int {
        let store = SyncStore(self)
        guard try settingDays(.autoPurgeDays) != nil, try store.remoteLocation() == nil else { return 0 }
        let partners = try store.devicesElsewhere(now: clock.now().milliseconds, within: Self.devicesRememberedFor)
        // While they may still sync, nothing goes: "made here since the last sync" told by
        // the clocks took a word made on a clock running fast, set right before that sync,
        // for one no other device could have, and its marker, sent once the remote was set
        // back, took it, live and edited, from them (round 17B #1).
        guard partners.isEmpty else { return 0 }
        // The words of a restore 180 days old or more no longer wait for the devices of the
        // library the backup came from: in a library that never syncs they waited for good
        // (round 17A G5).
        if let restored = try info(Self.restoredFromElsewhereAtKey).flatMap({ Int64($0) }),
            restored < clock.now().milliseconds - Self.devicesRememberedFor
        {
            try writing {
                try database.run("DELETE FROM restored_from_elsewhere")
                try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.restoredFromElsewhereAtKey)])
            }
        }
        return try autoPurge(lastSync: try lastSyncEver())
    }

    /// For a library that does not sync now: what its Trash's clean-up keeps past
    /// `trash.autoPurgeDays`, and why, in a sentence (nil when nothing, the setting off, or
    /// a remote set: a sync says it then). `trash` and `status` say it: with no sync, no note
    /// ever said why words 10 or 100 days in the Trash stayed (round 16A). Read after the
    /// clean-up the command's opening ran (`autoPurgeUnlessSyncing`). `emptyTrash` names
    /// what deletes them now (the web app's button rather than the command).
    public func autoPurgeHeldNote(emptyTrash: String = "'midiccio trash empty'") throws -> String? {
        guard let days = try settingDays(.autoPurgeDays) else { return nil }
        let store = SyncStore(self)
        guard try store.remoteLocation() == nil else { return nil }
        let now = clock.now().milliseconds
        let past = try guarded {
            try database.integer(
                "SELECT count(*) FROM words WHERE trash_seen_at IS NOT NULL AND trash_seen_at < ?",
                [.integer(now - Int64(days) * 86_400_000)]) ?? 0
        }
        guard past > 0 else { return nil }
        let partners = try store.devicesElsewhere(now: now, within: Self.devicesRememberedFor)
        // Not those the clean-up purges when it next runs (a command, the web app's next
        // sync): read before it ran, the web app's Settings said a backup restore kept them
        // (round 18A).
        let dueNow = partners.isEmpty ? try autoPurgeDue(lastSync: try lastSyncEver()).count : 0
        let held = Int(past) - dueNow
        guard held > 0 else { return nil }
        let them = held == 1 ? "it" : "them"
        var note =
            "\(held) word\(held == 1 ? "" : "s") in the Trash \(held == 1 ? "is" : "are") past trash.autoPurgeDays (\(days)) and kept: "
        let names = zip(partners, SyncStore.labels(of: partners)).compactMap { partner, label in
            partner.device.isEmpty ? partner.name.map { "any device that synced through \($0) after this library" } : label
        }
        let neverSynced = try lastSyncEver() == .min
        if names.isEmpty && neverSynced {
            // Never synced: held only because a backup restore brought them (round 17A G5:
            // the note said this library had synced).
            note +=
                "a backup restore brought \(them), and the devices of the library the backup came from may hold \(them) "
                + "without having seen \(them) go to the Trash. \(held == 1 ? "It goes" : "They go") once a sync sends the "
                + "deletion and its days pass, or 180 days after the restore; \(emptyTrash) deletes \(them) now"
        } else if names.isEmpty {
            note +=
                "this library synced before, and other devices (or a copy of this library file, or the library a backup "
                + "restore came from) may hold \(them) without having seen \(them) go to the Trash. \(held == 1 ? "It goes" : "They go") "
                + "once a sync sends the deletion and its days pass; \(emptyTrash) deletes \(them) now"
        } else {
            note +=
                "in the last 180 days this library synced with devices that may not have seen \(them) go to the Trash ("
                + names.joined(separator: ", ")
                + "). \(held == 1 ? "It goes" : "They go") once a sync sends the deletion and they sync there, or 180 "
                + "days after this library last heard from them; \(emptyTrash) deletes \(them) now"
        }
        return note
    }

    /// What the Trash's clean-up says when it deleted `count` words: the days counted by
    /// this computer's clock, or by the cloud's when that one is behind (`byCloudsClock`: a
    /// sync counts by the earlier of the two, and the note said "this computer's clock"
    /// beside a warning that the cloud's counted; round 22A #7). `howToStop` follows (the
    /// command line says how to turn it off).
    public static func autoPurgedNote(_ count: Int, byCloudsClock: Bool = false, howToStop: String? = nil) -> String {
        let clock = byCloudsClock ? "the cloud's clock, which is behind this computer's" : "this computer's clock"
        return "Deleted permanently \(count == 1 ? "1 word" : "\(count) words") that had been in the Trash longer than "
            + "trash.autoPurgeDays allows (counted by \(clock)\(howToStop.map { "; " + $0 } ?? ""))."
    }

    /// How long a device heard from counts as one that may still sync (ms): 180 days, as
    /// sync's own retention (`SyncEngine.retention`).
    package static let devicesRememberedFor: Int64 = 180 * 86_400_000

    /// The `library_info` key of when this library's last sync finished, with any remote.
    static let lastSyncKey = "sync.lastFinished"

    /// When this library last finished a sync with any remote (ms); `Int64.max` for one
    /// known only to have synced (a remote's state kept aside, from before the time was
    /// noted), so every word changed here waits; `Int64.min` for one that never synced
    /// (then only a word another device wrote waits while its change here is not sent).
    package func lastSyncEver() throws -> Int64 {
        try guarded {
            if let time = try info(Self.lastSyncKey).flatMap({ Int64($0) }) { return time }
            let aside = try database.integer("SELECT count(*) FROM library_info WHERE key GLOB 'sync.previous:*'") ?? 0
            return aside > 0 ? Int64.max : Int64.min
        }
    }

    /// The id a word purged under `id` comes back under (`WordID.restoredAfterPurge`), past
    /// any such id purged too: a `--replace` restore's, and a word the Trash's clean-up
    /// purged elsewhere that a change here keeps (`SyncSession.keepFromCleanUp`).
    package func idAfterPurge(of id: WordID) throws -> WordID {
        var next = id.restoredAfterPurge
        while try isPurged(next) { next = next.restoredAfterPurge }
        return next
    }

    /// True when the word with this id was purged (here or on another device).
    public func isPurged(_ id: WordID) throws -> Bool {
        try guarded { (try database.integer("SELECT count(*) FROM purged WHERE id = ?", [.text(id.rawValue)]) ?? 0) > 0 }
    }

    /// How many purge markers this library holds.
    public func purgedCount() throws -> Int {
        try guarded { Int(try database.integer("SELECT count(*) FROM purged") ?? 0) }
    }

    // MARK: - Internals shared with sync

    /// Removes every trace of a word's content: its row, tags, search entry and undo data.
    package func removePermanently(_ stored: StoredWord) throws {
        // Before the row goes: a digest or count not loaded yet is read from the words as
        // they are, then changed by this word.
        try updateDigest(removing: stored.word, adding: nil)
        if !stored.word.isDeleted { try removeFromSearch(stored.word, seq: stored.seq) }
        try database.run("DELETE FROM words WHERE seq = ?", [.integer(stored.seq)])
        try database.run("DELETE FROM restore_undo WHERE word_id = ?", [.text(stored.word.id.rawValue)])
        if database.changes > 0 { try notePurgedSinceRestore(stored.word.term) }
        // Its id stays in the import's undo data (no text: the purge marker keeps the id
        // too), so that the undo counts it among the words already gone; the counts did not
        // add up to the import's (found by the exploratory helper, round 23A #2).
        try database.run("DELETE FROM bulk_undo WHERE word_id = ?", [.text(stored.word.id.rawValue)])
        try database.run("DELETE FROM restored_from_elsewhere WHERE id = ?", [.text(stored.word.id.rawValue)])
        try removeReviewEvents(of: stored.word.id)
    }

    /// Stores a marker; an existing one keeps the earlier purge time, and counts as a
    /// person's purge when either was one (`PurgeMarker.cleanUp` nil). A marker new to
    /// this library gets the next position in the order this device learnt them.
    package func recordMarker(_ marker: PurgeMarker, pending: Bool, byThisDevice: Bool) throws {
        // A purge takes the word's review events too, even those that came before the word.
        try removeReviewEvents(of: marker.id)
        try database.run(
            """
            INSERT INTO purged (id, purged_at, pending, by_this_device, seen, clean_up_trashed_at, clean_up_newest)
                VALUES (?, ?, ?, ?, (SELECT coalesce(max(seen), 0) + 1 FROM purged), ?, ?)
            ON CONFLICT (id) DO UPDATE SET purged_at = min(purged_at, excluded.purged_at),
                pending = max(pending, excluded.pending), by_this_device = max(by_this_device, excluded.by_this_device),
                clean_up_trashed_at = iif(clean_up_newest IS NULL OR excluded.clean_up_newest IS NULL, NULL, clean_up_trashed_at),
                clean_up_newest = iif(clean_up_newest IS NULL OR excluded.clean_up_newest IS NULL, NULL, clean_up_newest)
            """,
            [
                .text(marker.id.rawValue), .time(marker.purgedAt), .integer(pending ? 1 : 0), .integer(byThisDevice ? 1 : 0),
                marker.cleanUp.map { .time($0.trashedAt) } ?? .null, marker.cleanUp.map { .time($0.newest) } ?? .null,
            ])
    }

    /// Notes, in the transaction that purges, that the purged words' text is still to be
    /// scrubbed from the search index and the WAL (`scrubIfOwed`).
    package func oweScrub() throws {
        try setInfo(Self.scrubOwedKey, "1")
    }

    /// True while a purge's scrub is owed: another program was writing to the library when
    /// it was due, or its disk was full, so the purged words' text may remain in the search
    /// index's older segments and the WAL until the next purge or sync (`scrubIfOwed`).
    public func purgedTextRemains() throws -> Bool {
        try guarded { try info(Self.scrubOwedKey) != nil }
    }

    /// The `library_info` key set while a purge's scrub is owed.
    static let scrubOwedKey = "purge.scrubOwed"

    /// Scrubs the purged words' text (`scrubFreedContent`) when a purge owes it. The purge
    /// has committed by then, so another program that writes to the library for longer
    /// than the busy timeout, or a disk with no room for the rewrite, does not undo it, nor
    /// make it report a failure: the scrub stays owed, and the next purge or sync makes it.
    /// Returns false when it is still owed.
    @discardableResult
    package func scrubIfOwed() throws -> Bool {
        guard try purgedTextRemains() else { return true }
        do {
            try scrubFreedContent()
            return true
        } catch LibraryError.storage(let error) where error.isBusy || error.isFull {
            // A disk too full for the rewrite is no reason to report the purge, which
            // stands, as failed ("nothing was changed", round 12B); the scrub stays owed.
            return false
        }
    }

    /// Rewrites the search indexes without deleted entries (FTS5 keeps a deleted word's
    /// tokens in old segments until they merge) and empties the WAL, so with
    /// secure_delete no purged text survives anywhere in the library's files.
    func scrubFreedContent() throws {
        try guarded {
            try database.write {
                try database.execute("INSERT INTO words_fts (words_fts) VALUES ('optimize')")
                try database.execute("INSERT INTO terms_fts (terms_fts) VALUES ('optimize')")
                try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.scrubOwedKey)])
            }
            // Another connection reading at this moment can keep the WAL from being
            // emptied; its next checkpoint finishes the job.
            try database.checkpoint(.truncate)
        }
    }
}
