import Foundation
import MiDiccioModel
import MiDiccioStore

/// A word as sync sees it here: the record that travels, plus what the library keeps
/// beside it (pending, and the change number that tells an edit made during an upload).
package struct LocalRecord: Sendable {
    /// The word with its field times and writers.
    package var record: SyncRecord
    /// True when a local change has not been uploaded yet.
    package var pending: Bool
    /// The library's change counter at the last local change.
    package var localChange: Int64
    /// The stored row, for saving over it.
    fileprivate var stored: StoredWord
}

/// What applying a purge marker did to this library.
package enum MarkerEffect: Sendable {
    /// The word was not here (or already purged).
    case nothing
    /// A word outside the Trash was removed: its `term`, and `editedHere` when it held a
    /// change made here and not uploaded yet (pending), which went with it.
    case removedLive(term: String, editedHere: Bool)
    /// A word in the Trash was removed (`term` and `editedHere` as above).
    case removedFromTrash(term: String, editedHere: Bool)
}

/// The library's side of sync: everything the sync engine reads and writes in the
/// library, so that the engine writes no SQL and the library knows nothing of cloud
/// files.
///
/// Writes run in the library's transactions (`write`): a merge, its cursors and the
/// sync state commit together or not at all. Writer devices are numbered inside the
/// library; records here always carry device ids.
package final class SyncStore {
    /// The library this store belongs to.
    package let library: WordLibrary
    private var numberByDevice: [String: Int64] = [:]
    private var deviceByNumber: [Int64: String] = [:]

    /// The sync side of `library` (one per connection, like the library).
    package init(_ library: WordLibrary) {
        self.library = library
    }

    private var database: Database { library.database }

    /// The library file's path.
    package var path: String { library.path }
    /// The library's clock.
    package var clock: any Clock { library.clock }
    /// This device's id.
    package var deviceID: String { library.deviceID }

    // MARK: - Transactions

    /// Runs `body` as one write transaction of the library; any error rolls it back.
    package func write<T>(_ body: () throws -> T) throws -> T {
        try library.writing(body)
    }

    /// Like `write`, for a merge that may insert up to `expectedWords` words
    /// (`WordLibrary.writingInBulk`).
    package func writeInBulk<T>(expectedWords: Int, _ body: () throws -> T) throws -> T {
        try library.writingInBulk(expectedWords: expectedWords, body)
    }

    /// Runs `body` in one read transaction, so it sees one consistent state.
    package func read<T>(_ body: () throws -> T) throws -> T {
        try library.guarded { try database.read(body) }
    }

    // MARK: - Sync's own state

    /// What the cloud back end of `remote` saved between syncs, or nil.
    package func loadCloudCache(remote: String) throws -> Data? {
        try library.guarded {
            try database.blob("SELECT value FROM cloud_cache WHERE id = 1 AND remote = ?", [.text(remote)]).map { Data($0) }
        }
    }

    /// Replaces what the cloud back end of `remote` keeps between syncs, in a transaction
    /// of its own.
    package func saveCloudCache(_ data: Data, remote: String) throws {
        try write {
            try database.run(
                """
                INSERT INTO cloud_cache (id, remote, value) VALUES (1, ?, ?)
                ON CONFLICT (id) DO UPDATE SET remote = excluded.remote, value = excluded.value
                """, [.text(remote), .blob([UInt8](data))])
        }
    }

    /// After a new sign-in to the same remote (perhaps another account): drops what the
    /// cloud back end kept between syncs (an index of the cloud's files, a change token),
    /// so the next sync lists the cloud afresh, and marks the sign-in for it
    /// (`signedInAgain`).
    package func noteNewSignIn() throws {
        try write {
            try database.run("DELETE FROM cloud_cache")
            try library.setInfo("sync.signedIn", "1")
        }
    }

    /// True while no sync has gone through since a new sign-in (`noteNewSignIn`).
    package func signedInAgain() throws -> Bool {
        try library.guarded { try library.info("sync.signedIn") == "1" }
    }

    /// Forgets the mark of a new sign-in; call inside `write`.
    package func forgetSignIn() throws {
        try library.guarded { try database.run("DELETE FROM library_info WHERE key = 'sync.signedIn'") }
    }

    /// Sync's saved state (JSON written by `saveState`), nil before the first sync.
    package func loadState() throws -> String? {
        try library.guarded { try database.text("SELECT value FROM sync_state WHERE id = 1") }
    }

    /// Saves sync's state; call inside `write` to commit it with the data it describes.
    ///
    /// A sync saves it before it writes a file to the cloud and after it takes in what it
    /// pulled: from then on the last restore may have reached other devices, or met their
    /// edits, and its undo gives what it puts back a new time (`WordLibrary.restoreUnsent`).
    package func saveState(_ json: String) throws {
        try library.guarded {
            try database.run(
                "INSERT INTO sync_state (id, value) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET value = excluded.value",
                [.text(json)])
            try library.noteRestoreMetASync()
        }
    }

    /// True when an update asked for every word to be uploaded once (product notes:
    /// "the first sync after updating re-uploads all of your words once").
    package func uploadAllRequested() throws -> Bool {
        try library.guarded { try library.info("sync.fullUpload") == "1" }
    }

    /// Clears that request (sync has taken it over into its own state).
    package func clearUploadAllRequest() throws {
        try library.guarded { try database.run("DELETE FROM library_info WHERE key = 'sync.fullUpload'") }
    }

    /// True when an update asked the next sync to read every file of the cloud again once
    /// (`Migrations.readAgainKey`).
    package func readAgainRequested() throws -> Bool {
        try library.guarded { try library.info(Migrations.readAgainKey) == "1" }
    }

    /// Clears that request (sync has taken it over into its own state).
    package func clearReadAgainRequest() throws {
        try library.guarded { try database.run("DELETE FROM library_info WHERE key = ?", [.text(Migrations.readAgainKey)]) }
    }

    // MARK: - Where the library syncs to

    /// The key under which the state of `remote` is kept aside.
    private static func previousKey(_ remote: (kind: String, location: String, user: String?)) -> String {
        "sync.previous:" + [remote.kind, remote.location, remote.user ?? ""].joined(separator: "\u{1F}")
    }

    /// The state this library had with `remote` when it left it (`changeRemote`), and the
    /// device id it had then; nil when there is none.
    package func previousState(of remote: (kind: String, location: String, user: String?)) throws -> (device: String, state: String)? {
        try library.guarded {
            guard let text = try library.info(Self.previousKey(remote)), let newline = text.firstIndex(of: "\n") else { return nil }
            return (String(text[..<newline]), String(text[text.index(after: newline)...]))
        }
    }

    /// Every state kept aside (`changeRemote`), by the key it is kept under, with the device
    /// id this library had then.
    package func previousStates() throws -> [(key: String, device: String, state: String)] {
        try library.guarded {
            try database.cached("SELECT key, value FROM library_info WHERE key >= 'sync.previous:' AND key < 'sync.previous;'")
                .rows([]) { row -> (key: String, device: String, state: String)? in
                    let text = row.text(1)
                    guard let newline = text.firstIndex(of: "\n") else { return nil }
                    return (row.text(0), String(text[..<newline]), String(text[text.index(after: newline)...]))
                }.compactMap { $0 }
        }
    }

    /// A device this library synced with through a cloud it has since left (its state
    /// there kept aside, `previousStates`), as `devicesElsewhere` gives it.
    package struct DeviceElsewhere: Equatable, Sendable {
        /// Its id.
        package var device: String
        /// Its name, when this library read a record of it after names were kept.
        package var name: String?
        /// When this library last heard from it there, or last synced there (its clock, ms).
        package var at: Int64
        /// When that device wrote the newest record of it read there, by its own clock (ms;
        /// nil when not known): a record of it here written later shows it synced here since.
        package var written: Int64?

        /// Makes an entry.
        package init(device: String, name: String?, at: Int64, written: Int64? = nil) {
            self.device = device
            self.name = name
            self.at = at
            self.written = written
        }
    }

    /// How a note names each of `devices`, in order: its name (the start of its id when it
    /// has none), followed by the start of its id when another of them has the same name
    /// (devices set up from one computer's copy keep its name: a note named "vm, vm, vm").
    package static func labels(of devices: [DeviceElsewhere]) -> [String] {
        var named: [String: Int] = [:]
        for device in devices { named[device.name ?? "", default: 0] += 1 }
        return devices.map { device in
            guard let name = device.name else { return String(device.device.prefix(8)) }
            return (named[name] ?? 0) > 1 && !device.device.isEmpty ? "\(name) (\(device.device.prefix(8)))" : name
        }
    }

    /// The other devices this library synced with through a cloud it has left (another
    /// folder or server, another account), heard from there at `now - within` or later, as
    /// its kept-aside states tell: those devices may hold words whose deletion this library
    /// sent elsewhere, or nowhere. The Trash's clean-up waits for them to sync where this
    /// library does: a library moved to another cloud a while purged there a word whose
    /// deletion only it had seen, and set back, its marker took the word, live and edited,
    /// from the devices of the first cloud (found by the exploratory helper, round 15C).
    /// A state that cannot be read counts for nothing.
    ///
    /// A cloud where this library uploaded and heard from no other device counts as one
    /// device of no id (`device` empty), named by the cloud: a device that synced there
    /// after this library's last sync holds its words all the same (the helper's script:
    /// A synced, then B, then A moved). The sync lets it go sooner, once another device
    /// syncs where this library does after it left that cloud (`SyncSession.devicesNotHeardHere`).
    /// This library's own former ids (a copy's, taken over) are never another device.
    package func devicesElsewhere(now: Int64, within: Int64) throws -> [DeviceElsewhere] {
        var found: [String: DeviceElsewhere] = [:]
        let (decoded, own) = try keptStates()
        for (previous, kept) in decoded {
            var times: [String: (at: Int64, written: Int64?, name: String?)] = [:]
            if let last = kept.lastSync {
                for device in (kept.cursors ?? [:]).keys { times[device] = (last, nil, nil) }
            }
            for (device, heard) in kept.heard ?? [:] {
                times[device] = (max(heard.at, times[device]?.at ?? .min), heard.written, heard.name)
            }
            for device in own { times[device] = nil }
            if times.isEmpty, let last = kept.lastSync, (kept.lastSeq ?? 0) > 0, last >= now - within {
                found["\u{1F}" + previous.key] = DeviceElsewhere(device: "", name: Self.unheardDevices(previous.key), at: last)
            }
            for (device, time) in times where time.at >= now - within {
                if let known = found[device], known.at >= time.at { continue }
                found[device] = DeviceElsewhere(
                    device: device, name: time.name ?? found[device]?.name, at: time.at, written: time.written)
            }
        }
        return found.values.sorted { $0.at != $1.at ? $0.at > $1.at : $0.device < $1.device }
    }

    /// A kept-aside state as `devicesElsewhere` reads it.
    private struct KeptState: Decodable {
        struct Heard: Decodable {
            var at: Int64
            var written: Int64?
            var name: String?
        }
        struct Absorbed: Decodable { var device: String }
        var cursors: [String: Int64]?
        var lastSync: Int64?
        var lastSeq: Int64?
        var heard: [String: Heard]?
        var absorbed: [Absorbed]?
    }

    /// The states kept aside that can be read, and the ids never to wait for: this
    /// library's own (before it found it was a copy, say) and those it took over (its own
    /// former id, when it was put back from an older copy: it waited 180 days for it, round
    /// 16A F10).
    private func keptStates() throws -> (
        states: [(previous: (key: String, device: String, state: String), kept: KeptState)], former: Set<String>
    ) {
        struct Stored: Decodable { var state: KeptState? }
        let states = try previousStates()
        let decoded = states.compactMap { previous in
            (try? JSONDecoder().decode(Stored.self, from: Data(previous.state.utf8)).state).map { (previous, $0) }
        }
        let former = Set(states.map(\.device))
            .union(decoded.flatMap { ($0.1.absorbed ?? []).map(\.device) })
        return (decoded, former)
    }

    /// This library's former ids (`keptStates`): the Trash's clean-up never waits for them,
    /// whoever names them.
    package func formerIDs() throws -> Set<String> {
        try keptStates().former
    }

    /// How `devicesElsewhere` names a cloud left (kept under `key`) where this library
    /// heard from no other device.
    private static func unheardDevices(_ key: String) -> String {
        let parts = key.dropFirst("sync.previous:".count).split(separator: "\u{1F}", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] != "signin" else { return "another account it was signed in to" }
        switch parts[0] {
        case "gdrive": return "Google Drive" + (parts.count > 2 && !parts[2].isEmpty ? " (\(parts[2]))" : "")
        case "icloud": return "iCloud"
        case "webdav": return "WebDAV \(parts[1])"
        default: return "\(parts[0]) \(parts[1])"
        }
    }

    /// Keeps `state`, this library's sync state with the cloud of an account it is signing
    /// out of, aside with `device` under a key of its own (listed by `previousStates`): the
    /// remote reads the same for every account of Google Drive or iCloud, and a library
    /// signed in to another account and back took its own files for a copy's. Call inside
    /// `write`.
    package func keepStateAside(device: String, state: String) throws {
        try library.guarded {
            try library.setInfo("sync.previous:signin\u{1F}" + WordID.random().rawValue, device + "\n" + state)
        }
    }

    /// Keeps `state`, this library's state with `remote` when the cloud there was another
    /// (another account behind the same remote, a folder emptied), aside with `device`
    /// under a key of its own (listed by `previousStates`, named by `remote`); call inside
    /// `write`.
    package func keepStateAside(of remote: (kind: String, location: String, user: String?), device: String, state: String) throws {
        try library.guarded {
            try library.setInfo(Self.previousKey(remote) + "\u{1F}" + WordID.random().rawValue, device + "\n" + state)
        }
    }

    /// The folder a state kept aside under `key` (one of `previousStates`) was this
    /// library's state with; nil when that remote was not a folder.
    package static func folder(ofPreviousKey key: String) -> String? {
        guard key.hasPrefix("sync.previous:folder\u{1F}") else { return nil }
        let parts = key.dropFirst("sync.previous:".count).split(separator: "\u{1F}", omittingEmptySubsequences: false)
        return parts.count >= 2 ? String(parts[1]) : nil
    }

    /// Keeps `state` aside under `key` (one of `previousStates`) in place of what was kept
    /// there; call inside `write`.
    package func keepStateAside(key: String, device: String, state: String) throws {
        try library.guarded { try library.setInfo(key, device + "\n" + state) }
    }

    /// Forgets the state kept aside under `key` (one of `previousStates`); call inside `write`.
    package func forgetPreviousState(key: String) throws {
        try library.guarded { try database.run("DELETE FROM library_info WHERE key = ?", [.text(key)]) }
    }

    /// Forgets the state kept aside for `remote`; call inside `write`.
    package func forgetPreviousState(of remote: (kind: String, location: String, user: String?)) throws {
        try library.guarded { try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.previousKey(remote))]) }
    }

    /// The stored remote: its kind ("folder", "webdav"), location and user.
    package func remoteLocation() throws -> (kind: String, location: String, user: String?)? {
        try library.guarded {
            guard let kind = try library.info("remote.kind"), let location = try library.info("remote.location") else { return nil }
            return (kind, location, try library.info("remote.user"))
        }
    }

    /// Stores another spelling of the remote's location (another path to the same
    /// folder, or a copy of it), keeping sync's state. With `kept` (a copy of the folder,
    /// the old one still there), that state is also kept aside as the old folder's
    /// (`previousState(of:)`), as when a library moves to another cloud: the Trash's
    /// clean-up waits for the devices still syncing there (`devicesElsewhere`).
    package func renameRemoteLocation(to location: String, keepingAside kept: String? = nil) throws {
        try write {
            if let kept, let old = try remoteLocation() { try library.setInfo(Self.previousKey(old), deviceID + "\n" + kept) }
            try library.setInfo("remote.location", location)
        }
    }

    /// Stores another remote (nil: none) and forgets sync's state for the old one. A
    /// library with words uploads every one of them once to the new remote.
    ///
    /// The old remote's state is kept aside (`previousState(of:)`) with this device's id:
    /// set back to that remote (after `remote remove`, or a while in another cloud), a
    /// sync takes it up again when the cloud still holds the record it last wrote there.
    /// Starting afresh there found this library's own files under its id and took them
    /// for a copy's (found by the exploratory helper).
    package func changeRemote(to remote: (kind: String, location: String, user: String?)?) throws {
        try write {
            if let old = try remoteLocation(), let state = try loadState() {
                try library.setInfo(Self.previousKey(old), deviceID + "\n" + state)
            }
            try database.run("DELETE FROM sync_state")
            try database.run("DELETE FROM cloud_cache")
            try database.run("DELETE FROM library_info WHERE key IN ('remote.kind', 'remote.location', 'remote.user', 'sync.fullUpload')")
            guard let remote else { return }
            try library.setInfo("remote.kind", remote.kind)
            try library.setInfo("remote.location", remote.location)
            if let user = remote.user { try library.setInfo("remote.user", user) }
            if try wordCount() > 0 { try library.setInfo("sync.fullUpload", "1") }
        }
    }

    // MARK: - Words

    /// Every word here, the Trash included.
    package func wordCount() throws -> Int {
        let counts = try library.counts()
        return counts.words + counts.trash
    }

    /// Words outside the Trash.
    package func liveCount() throws -> Int {
        try library.counts().words
    }

    /// Words changed here and not uploaded yet.
    package func pendingCount() throws -> Int {
        try library.guarded { Int(try database.integer("SELECT count(*) FROM words WHERE pending = 1") ?? 0) }
    }

    /// The word with this id as sync sees it, or nil when it is not here.
    package func local(_ id: WordID) throws -> LocalRecord? {
        try library.guarded {
            try library.stored(id).map { try localRecord($0) }
        }
    }

    /// Saves `merged` over `replacing` (nil: a word new here) as received from other
    /// devices: not pending, unless it was pending here already or `pending` asks for it
    /// (what this library must pass on itself). Call inside `write`.
    package func saveMerged(_ merged: SyncRecord, replacing: LocalRecord?, pending: Bool = false) throws {
        try library.guarded {
            let writers = try merged.writers.map { try number($0) }
            try library.save(
                merged.word, times: merged.times, writers: writers, previous: replacing?.stored, pending: pending,
                tagClock: merged.tagClock)
        }
    }

    /// Saves words new here, received from other devices, as `saveMerged` does each with
    /// `replacing` nil, with their derived columns made ahead (`WordLibrary.ColumnMaker`),
    /// several rows to a statement in a bulk write. Call inside `write`.
    package func saveNewMerged(_ records: [(record: SyncRecord, columns: WordLibrary.NewWordColumns)], pending: Bool) throws {
        try library.guarded {
            let rows = try records.map { record, columns in
                WordLibrary.NewRow(
                    word: record.word, times: record.times, writers: try record.writers.map { try number($0) }, columns: columns,
                    tagClock: record.tagClock)
            }
            try library.insertNew(rows, pending: pending)
        }
    }

    /// Every pending word, in the order of their changes.
    package func pending() throws -> [LocalRecord] {
        var records: [LocalRecord] = []
        try forEachPending { records.append($0) }
        return records
    }

    /// Hands every pending word to `body` in the order of their changes, one at a time:
    /// a change file of many words (a tag put on 100,000 of them) never holds them all.
    /// `progress` is told how many have been read every `WordLibrary.progressInterval`
    /// words.
    package func forEachPending(progress: ((_ read: Int) -> Void)? = nil, _ body: (LocalRecord) throws -> Void) throws {
        // Ordered by the pending index's own column: ORDER BY seq made SQLite walk the
        // whole table, so a sync with nothing to do grew with the library.
        try forEachLocal(
            "SELECT \(WordLibrary.columns) FROM words WHERE pending = 1 ORDER BY local_change", progress: progress, body)
    }

    /// Every word, the Trash included.
    package func allRecords() throws -> [SyncRecord] {
        var records: [SyncRecord] = []
        try forEachRecord { records.append($0) }
        return records
    }

    /// Hands every word, the Trash included, to `body` in the order of their rows, one
    /// at a time: a snapshot of a million words never holds them all. `progress` is told
    /// how many have been read every `WordLibrary.progressInterval` words.
    package func forEachRecord(progress: ((_ read: Int) -> Void)? = nil, _ body: (SyncRecord) throws -> Void) throws {
        try forEachLocal("SELECT \(WordLibrary.columns) FROM words ORDER BY seq", progress: progress) { try body($0.record) }
    }

    /// Hands each word `sql` selects (`WordLibrary.columns`) to `body`, as sync sees it,
    /// telling `progress` how many have been read every `WordLibrary.progressInterval`.
    private func forEachLocal(
        _ sql: String, progress: ((_ read: Int) -> Void)?, _ body: (LocalRecord) throws -> Void
    ) throws {
        var read = 0
        try library.guarded {
            try database.cached(sql).forEachRow { row in
                read += 1
                if let progress, read % WordLibrary.progressInterval == 0 { progress(read) }
                try body(try localRecord(try WordLibrary.storedWord(row)))
            }
        }
    }

    /// How many rows `forEachRecord` hands over, counted (not taken from the counts kept
    /// with each change): a snapshot states it before its records.
    package func recordCount() throws -> Int {
        try library.guarded { Int(try database.integer("SELECT count(*) FROM words") ?? 0) }
    }

    /// Every device that can have written a field here, this one included: the writers a
    /// snapshot's records may name.
    package func writerIDs() throws -> [String] {
        try library.guarded {
            try database.cached("SELECT id FROM sync_devices ORDER BY num").rows([]) { $0.text(0) }
        }
    }

    /// The words an upload carried: these very ones, or every word pending up to a
    /// change number (a snapshot, which holds every word as read in one transaction).
    package enum Uploaded {
        /// The words of a change file, as read.
        case words([LocalRecord])
        /// Every word pending whose change is at most this number.
        case pendingThrough(Int64)
        /// Every word, as `pendingThrough`: a full upload's snapshot, the first this cloud
        /// has of this library since it came (or came back) to it, or since an update or
        /// the cloud's new start. Every word in the Trash counts its days again from it,
        /// sent or not before: a deletion sent to another cloud only has not reached the
        /// devices of this one.
        case everyWordThrough(Int64)
    }

    /// The newest change number among pending words (0: none pending).
    package func lastPendingChange() throws -> Int64 {
        try library.guarded { try database.integer("SELECT max(local_change) FROM words WHERE pending = 1") ?? 0 }
    }

    /// Marks uploaded words as no longer pending, except those changed again since they
    /// were read (an edit made while the upload was in flight stays pending). Call
    /// inside `write`.
    ///
    /// A word in the Trash counts its days for `trash.autoPurgeDays` from its upload at the
    /// earliest: only then can other devices see it there. A deletion made offline months
    /// before counted from then, and the sync that finally sent it purged the word on every
    /// device at once, edits made there since included (found by the exploratory helper,
    /// round 12C).
    package func markUploaded(_ uploaded: Uploaded) throws {
        try library.guarded {
            let now = SQLValue.integer(library.clock.now().milliseconds)
            let cleared = "pending = 0, trash_seen_at = CASE WHEN trash_seen_at IS NULL THEN NULL ELSE max(trash_seen_at, ?) END"
            switch uploaded {
            case .words(let records):
                for local in records {
                    try database.run(
                        "UPDATE words SET \(cleared) WHERE seq = ? AND local_change = ?",
                        [now, .integer(local.stored.seq), .integer(local.localChange)])
                }
            case .pendingThrough(let change):
                try database.run("UPDATE words SET \(cleared) WHERE pending = 1 AND local_change <= ?", [now, .integer(change)])
            case .everyWordThrough(let change):
                try database.run("UPDATE words SET \(cleared) WHERE pending = 1 AND local_change <= ?", [now, .integer(change)])
                try database.run("UPDATE words SET trash_seen_at = max(trash_seen_at, ?) WHERE trash_seen_at IS NOT NULL", [now])
            }
        }
    }

    /// The order-independent checksum over every word's id, time and Trash flag.
    package func digest() throws -> String {
        try library.libraryDigest()
    }

    // MARK: - Purge markers

    /// Purge markers, all of them or only those not uploaded yet.
    package func markers(pendingOnly: Bool) throws -> [PurgeMarker] {
        try library.guarded {
            try database.cached(
                "SELECT id, purged_at, clean_up_trashed_at, clean_up_newest FROM purged WHERE pending = 1 OR ? = 0 ORDER BY seen"
            )
            .rows([.integer(pendingOnly ? 1 : 0)]) { row in
                WordID(row.text(0)).map {
                    PurgeMarker(
                        id: $0, purgedAt: Timestamp(milliseconds: row.int64(1)),
                        cleanUp: row.isNull(2) || row.isNull(3)
                            ? nil
                            : PurgeMarker.CleanUp(
                                trashedAt: Timestamp(milliseconds: row.int64(2)), newest: Timestamp(milliseconds: row.int64(3))))
                }
            }.compactMap { $0 }
        }
    }

    /// The ids of every purged word.
    package func purgedIDs() throws -> Set<WordID> {
        try library.guarded { try library.purgedWordIDs() }
    }

    /// What the Trash's clean-up purged of word `id` (when it went to the Trash, its newest
    /// field), or nil when no marker of the clean-up's alone holds it.
    package func cleanUp(of id: WordID) throws -> PurgeMarker.CleanUp? {
        try library.guarded {
            try database.cached(
                "SELECT clean_up_trashed_at, clean_up_newest FROM purged WHERE id = ? AND clean_up_newest IS NOT NULL"
            ).rows([.text(id.rawValue)]) {
                PurgeMarker.CleanUp(trashedAt: Timestamp(milliseconds: $0.int64(0)), newest: Timestamp(milliseconds: $0.int64(1)))
            }.first
        }
    }

    /// The ids of the words the Trash's clean-up purged (their markers all the clean-up's):
    /// answers given to them are kept under the id such a word comes back under while
    /// the merge settles them (`settleAnswers(of:held:)`).
    package func cleanedUpIDs() throws -> Set<WordID> {
        try library.guarded {
            Set(
                try database.cached("SELECT id FROM purged WHERE clean_up_newest IS NOT NULL").rows([]) { $0.text(0) }
                    .compactMap(WordID.init))
        }
    }

    /// The answers of word `id` here, each with whether it still waits to be sent.
    package func answers(of id: WordID) throws -> [(event: ReviewEvent, pending: Bool)] {
        try library.guarded {
            var reader = try ReviewRows(database, word: id)
            return try database.cached("SELECT \(ReviewRows.columns), pending FROM reviews WHERE word = ?").rows([.blob(id.bytes)]) {
                row in reader.event(row).map { ($0, row.int64(5) == 1) }
            }.compactMap(\.self)
        }
    }

    /// True when this device answered word `id` after `time`, or gave an answer to it that
    /// waits to be sent.
    package func studiedHere(_ id: WordID, after time: Timestamp) throws -> Bool {
        try library.guarded {
            try database.cached(
                """
                SELECT EXISTS (SELECT 1 FROM reviews WHERE word = ?1 AND (time > ?2 OR pending = 1)
                    AND device = (SELECT num FROM review_devices WHERE id = ?3))
                """
            ).rows([.blob(id.bytes), .time(time), .text(deviceID)]) { $0.int64(0) }.first == 1
        }
    }

    /// True when word `id` has answers here.
    package func hasAnswers(_ id: WordID) throws -> Bool {
        try library.guarded { try library.hasAnswers(id) }
    }

    /// Settles the answers of a word the Trash's clean-up purged (`old`): `held`, those it
    /// had here when its marker came, and those stored under it since (from other devices'
    /// files). They go to the id the word comes back under (`idAfterPurge(of:)`): all of
    /// them when this library holds that word (a device that had a change the clean-up
    /// never saw kept it, `keepFromCleanUp`), else only those never sent, which would be
    /// lost everywhere (the word kept elsewhere later finds them). Sent again under that id,
    /// so every device holds them there. Returns how many the kept word got; call inside
    /// `write`.
    @discardableResult
    package func settleAnswers(of old: WordID, held: [(event: ReviewEvent, pending: Bool)]) throws -> Int {
        try library.guarded {
            let stored = try answers(of: old)
            if !stored.isEmpty { try library.removeReviewEvents(of: old) }
            let new = try library.idAfterPurge(of: old)
            let kept = try library.stored(new) != nil
            let moving = (held + stored).filter { kept || $0.pending }.map { answer in
                var event = answer.event
                event.wordID = new
                return event
            }
            guard !moving.isEmpty else { return 0 }
            try library.refreshStudyCache(after: try library.insertReviewEvents(moving, pending: true))
            return kept ? moving.count : 0
        }
    }

    /// Applies a marker from another device: removes the word (its content beaten by
    /// the purge, whatever its time) and keeps the marker. Call inside `write`.
    package func apply(_ marker: PurgeMarker) throws -> MarkerEffect {
        try library.guarded {
            var effect = MarkerEffect.nothing
            if let stored = try library.stored(marker.id) {
                // Answers given here and not sent go with the word too: said as edits are
                // (they went without a word; found by the exploratory helper, round 22B #5).
                let answered =
                    try database.integer("SELECT EXISTS (SELECT 1 FROM reviews WHERE word = ? AND pending = 1)", [.blob(marker.id.bytes)])
                    == 1
                let editedHere = stored.pending || answered
                effect =
                    stored.word.isDeleted
                    ? .removedFromTrash(term: stored.word.term, editedHere: editedHere)
                    : .removedLive(term: stored.word.term, editedHere: editedHere)
                try library.removePermanently(stored)
            }
            try library.recordMarker(marker, pending: false, byThisDevice: false)
            return effect
        }
    }

    /// Gives the review events of word `old` to word `new` (one the Trash's clean-up purged
    /// elsewhere, kept here under a new id), pending, so they travel with it; the marker
    /// then takes those of `old`. Call inside `write`.
    package func moveReviewEvents(from old: WordID, to new: WordID) throws {
        try library.guarded {
            try database.run(
                "INSERT OR IGNORE INTO reviews (word, time, device, grade, seconds, pending) "
                    + "SELECT ?, time, device, grade, seconds, 1 FROM reviews WHERE word = ?", [.blob(new.bytes), .blob(old.bytes)])
            if database.changes > 0 { try library.refreshStudyCache(of: [new]) }
        }
    }

    /// Marks uploaded markers as no longer pending. Call inside `write`.
    package func markMarkersUploaded(_ markers: [PurgeMarker]) throws {
        try library.guarded {
            for marker in markers {
                try database.run("UPDATE purged SET pending = 0 WHERE id = ?", [.text(marker.id.rawValue)])
            }
        }
    }

    /// How many markers this library has learnt: the position of the newest in the
    /// order this device learnt them (0: none). It grows whenever any marker arrives,
    /// whatever its purge time.
    package func markerPosition() throws -> Int64 {
        try library.guarded { try database.integer("SELECT coalesce(max(seen), 0) FROM purged") ?? 0 }
    }

    /// The markers learnt up to `position`, as a count and an order-independent digest
    /// of their ids: two devices that honour the same markers show the same pair.
    package func markerSet(through position: Int64) throws -> (count: Int, digest: String) {
        try library.guarded {
            var count = 0
            var sum: UInt64 = 0
            for id in try database.cached("SELECT id FROM purged WHERE seen <= ?").rows([.integer(position)], { $0.text(0) }) {
                count += 1
                sum = sum &+ WordLibrary.digestTerm(id: id, updatedAt: 0, deleted: true)
            }
            return (count, String(sum, radix: 16))
        }
    }

    /// Notes, in a merge's transaction that applied purge markers, that their words' text
    /// is still to be scrubbed (`scrubIfOwed`).
    package func oweScrub() throws {
        try library.oweScrub()
    }

    /// Rewrites the search index and empties the WAL when a purge, here or pulled, owes it;
    /// stays owed while another program writes (`WordLibrary.scrubIfOwed`).
    package func scrubIfOwed() throws {
        try library.scrubIfOwed()
    }

    // MARK: - Settings

    /// Synced settings, all of them or only those not uploaded yet.
    package func settings(pendingOnly: Bool) throws -> [SettingRecord] {
        try library.guarded {
            try database.cached("SELECT key, value, time, writer FROM settings WHERE pending = 1 OR ? = 0 ORDER BY key")
                .rows([.integer(pendingOnly ? 1 : 0)]) {
                    SettingRecord(key: $0.text(0), value: $0.text(1), time: Timestamp(milliseconds: $0.int64(2)), writer: $0.text(3))
                }
        }
    }

    /// Merges a setting from another device: last writer wins per key (newer time,
    /// then the larger writer id). A value this MiDiccio cannot use is kept as is, for
    /// newer devices. Call inside `write`.
    @discardableResult
    package func merge(_ incoming: SettingRecord) throws -> Bool {
        try library.guarded {
            let local = try database.cached("SELECT time, writer FROM settings WHERE key = ?")
                .rows([.text(incoming.key)]) { (Timestamp(milliseconds: $0.int64(0)), $0.text(1)) }.first
            if let local, (local.0, local.1) >= (incoming.time, incoming.writer) { return false }
            try library.storeSetting(key: incoming.key, value: incoming.value, time: incoming.time, writer: incoming.writer, pending: false)
            return true
        }
    }

    /// Marks uploaded settings as no longer pending, unless set again since (a newer
    /// time). Call inside `write`.
    package func markSettingsUploaded(_ settings: [SettingRecord]) throws {
        try library.guarded {
            for setting in settings {
                try database.run("UPDATE settings SET pending = 0 WHERE key = ? AND time = ?", [.text(setting.key), .time(setting.time)])
            }
        }
    }

    /// Purges what `trash.autoPurgeDays` says has been in the Trash long enough here, by
    /// the time `now`. `lastSync` is when this library's last sync finished (nil: never):
    /// words changed here and not sent yet wait (`WordLibrary.autoPurgeDue`).
    ///
    /// `lastSync` counts no earlier than `WordLibrary.lastSyncEver()` (a sync with another
    /// remote). A word made here and not sent waits too (`WordLibrary.autoPurgeDue`'s
    /// `sentOnly`): a copy of this library file may hold it.
    /// With `exceptRestored`, none of the words a backup restore brought or changed.
    package func autoPurge(now: Timestamp, lastSync: Int64?, exceptRestored: Bool = false) throws -> Int {
        guard try library.settingDays(.autoPurgeDays) != nil else { return 0 }
        return try library.autoPurge(now: now, lastSync: try since(lastSync), sentOnly: true, exceptRestored: exceptRestored)
    }

    /// The field times a backup restore gave word `id` when it added it (the backup's own),
    /// or nil when the last restore did not add it: a field still at its time holds the
    /// backup's value, not an edit made here.
    package func timesAddedByRestore(_ id: WordID) throws -> FieldTimes? {
        try library.guarded {
            try database.cached("SELECT restored_times FROM restore_undo WHERE word_id = ? AND prior IS NULL")
                .rows([.text(id.rawValue)]) { $0.optionalText(0) }.first.flatMap { $0.flatMap(WordLibrary.fieldTimes) }
        }
    }

    /// True when the last backup restore can be undone (`WordLibrary.canUndoRestore`).
    package func restoreUndoable() throws -> Bool {
        try library.canUndoRestore()
    }

    /// Notes, for the undo of the last restore, the fields of `incoming`'s word that it holds
    /// at the time the restore gave them, written by a device other than `deviceID`: the
    /// restore brought a copy of that device's own change (its backup, restored here), and
    /// the undo leaves them. It put back, on every device, an edit the backup's own device
    /// had made and synced itself, and moved a word it had added to its Trash (found by the
    /// exploratory helper, round 23A #1). A record of this device's own (another device's
    /// snapshot holding what it pulled from here) does not count. Call inside `write`.
    package func noteRestoredFieldsHeld(_ incoming: SyncRecord, deviceID: String) throws {
        try library.guarded {
            guard
                let (timesText, held) = try database.cached("SELECT restored_times, held_elsewhere FROM restore_undo WHERE word_id = ?")
                    .rows([.text(incoming.word.id.rawValue)], { ($0.optionalText(0), $0.int64(1)) }).first,
                let restored = timesText.flatMap(WordLibrary.fieldTimes)
            else { return }
            var mask = held
            for field in WordField.allCases where incoming.times[field] == restored[field] {
                let writer = incoming.writers[field.index]
                if !writer.isEmpty && writer != deviceID { mask |= 1 << Int64(field.index) }
            }
            guard mask != held else { return }
            try database.run(
                database.cached("UPDATE restore_undo SET held_elsewhere = ? WHERE word_id = ?"),
                [.integer(mask), .text(incoming.word.id.rawValue)])
        }
    }

    /// The ids of the words a backup restore brought or changed (`restored_from_elsewhere`).
    package func restoredIDs() throws -> Set<String> {
        try library.guarded { Set(try database.cached("SELECT id FROM restored_from_elsewhere").rows([]) { $0.text(0) }) }
    }

    /// The `library_info` key set while the Trash's clean-up waits for devices of another
    /// cloud (`noteAutoPurgeHeld`).
    static let autoPurgeHeldKey = "autoPurge.heldForOthers"

    /// Notes that the Trash's clean-up waits for devices of another cloud, so that once
    /// they have come, the words' days count again (`restartTrashDaysIfHeld`).
    package func noteAutoPurgeHeld() throws {
        guard try library.info(Self.autoPurgeHeldKey) == nil else { return }
        try write { try library.setInfo(Self.autoPurgeHeldKey, "1") }
    }

    /// True while the Trash's clean-up waits for devices of another cloud
    /// (`noteAutoPurgeHeld`), until `restartTrashDaysIfHeld` finds them come.
    package func autoPurgeHeld() throws -> Bool {
        try library.guarded { try library.info(Self.autoPurgeHeldKey) != nil }
    }

    /// Once the devices of another cloud that the Trash's clean-up waited for have synced
    /// here (`noteAutoPurgeHeld` was called, and nothing holds now): every word in the
    /// Trash counts its days again from `now`, so those devices see it there for as long
    /// as the setting says before it goes. True when it did. It went at the next sync,
    /// minutes after a device's edit there reached the Trash here (round 18A #5).
    package func restartTrashDaysIfHeld(now: Timestamp) throws -> Bool {
        guard try library.info(Self.autoPurgeHeldKey) != nil else { return false }
        try write {
            try database.run(
                "UPDATE words SET trash_seen_at = max(trash_seen_at, ?) WHERE trash_seen_at IS NOT NULL", [.integer(now.milliseconds)])
            try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.autoPurgeHeldKey)])
        }
        return true
    }

    /// Counts the days in the Trash of word `id` again from `now`, when it is in the Trash
    /// (`SyncSession.merge`, for a change another device made to it there). Call inside
    /// `write`.
    package func restartTrashDays(of id: WordID, now: Int64) throws {
        try library.guarded {
            try database.run(
                "UPDATE words SET trash_seen_at = max(trash_seen_at, ?) WHERE id = ? AND trash_seen_at IS NOT NULL",
                [.integer(now), .text(id.rawValue)])
        }
    }

    /// Lets the hold of the words a backup restore brought go (`restoredFromElsewhereAt` is
    /// nil after): a device that had them before the restore syncs where this library does.
    /// Call inside `write`.
    package func restoreHolderHeard() throws {
        try library.guarded {
            try database.run("DELETE FROM library_info WHERE key = ?", [.text(WordLibrary.restoredFromElsewhereAtKey)])
        }
    }

    /// When the last backup restore that brought or changed words ran (ms), or nil.
    package func restoredFromElsewhereAt() throws -> Int64? {
        try library.guarded { try library.info(WordLibrary.restoredFromElsewhereAtKey).flatMap { Int64($0) } }
    }

    /// `lastSync`, or a later time `WordLibrary.lastSyncEver()` knows.
    private func since(_ lastSync: Int64?) throws -> Int64 {
        max(lastSync ?? .min, try library.lastSyncEver())
    }

    /// Notes when a sync finished, kept whatever becomes of the remote (`lastSyncEver`);
    /// call inside `write`.
    package func noteSyncFinished(at time: Int64) throws {
        try library.guarded {
            try library.setInfo(WordLibrary.lastSyncKey, String(time))
            try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.lastFailureKey)])
        }
    }

    /// The `library_info` key of the last sync's failure (`noteSyncFailed`).
    static let lastFailureKey = "sync.lastFailure"

    /// Notes that a sync with `remote` failed at `time` with `message` (what it said), for
    /// `status` to tell until a sync finishes: the web app's Settings said so, `status` did
    /// not, and a pending word stuck behind a full server went unseen (found by the
    /// exploratory helper, round 24B #3). Best effort: a library that cannot be written now
    /// keeps the note it had.
    package func noteSyncFailed(at time: Int64, remote: String, message: String) {
        let value = JSONText.object([
            ("at", String(time)), ("remote", JSONText.quote(remote)), ("message", JSONText.quote(message)),
        ])
        try? write { try library.setInfo(Self.lastFailureKey, value) }
    }

    /// The last sync's failure, when the sync after it has not finished yet and it was a
    /// sync with `remote`.
    package func lastSyncFailure(remote: String) throws -> (at: Timestamp, message: String)? {
        guard let text = try library.guarded({ try library.info(Self.lastFailureKey) }),
            let object = JSONText.parse(Data(text.utf8)) as? [String: Any], object["remote"] as? String == remote,
            let at = object["at"] as? Int, let message = object["message"] as? String
        else { return nil }
        return (Timestamp(milliseconds: Int64(at)), message)
    }

    /// How many words `autoPurge(now:lastSync:)` would purge.
    package func autoPurgeDue(now: Timestamp, lastSync: Int64?) throws -> Int {
        guard try library.settingDays(.autoPurgeDays) != nil else { return 0 }
        return try library.autoPurgeDue(now: now, lastSync: try since(lastSync), sentOnly: true).count
    }

    // MARK: - Identity

    /// Gives this library a new device id, for a library that found itself to be a copy
    /// of another device (or an older copy of itself). Fields this library wrote under
    /// its old id keep that id as their writer, so ties between equal times are still
    /// decided the same way on every device. Returns the old and the new id.
    package func adoptNewDeviceID() throws -> (old: String, new: String) {
        try write {
            let old = library.deviceID
            let new = library.randomDeviceID().rawValue
            try database.run("UPDATE sync_devices SET id = ? WHERE num = 0", [.text(new)])
            try database.run("INSERT INTO sync_devices (id) VALUES (?)", [.text(old)])
            let number = try database.integer("SELECT num FROM sync_devices WHERE id = ?", [.text(old)]) ?? 0
            let columns = ["term_by", "meaning_by", "reading_by", "examples_by", "notes_by", "tags_by", "deleted_by"]
            let assignments = columns.map { "\($0) = CASE \($0) WHEN 0 THEN ?1 ELSE \($0) END" }.joined(separator: ", ")
            try database.run("UPDATE words SET \(assignments) WHERE 0 IN (\(columns.joined(separator: ", ")))", [.integer(number)])
            try library.setInfo("device.id", new)
            numberByDevice = [:]
            deviceByNumber = [:]
            return (old, new)
        }
    }

    // MARK: - Writer numbers

    private func loadDeviceNumbers() throws {
        numberByDevice = [:]
        deviceByNumber = [:]
        for (number, id) in try database.cached("SELECT num, id FROM sync_devices").rows([], { ($0.int64(0), $0.text(1)) }) {
            numberByDevice[id] = number
            deviceByNumber[number] = id
        }
    }

    /// The local number of a writer device, registering it on first sight.
    private func number(_ device: String) throws -> Int64 {
        if numberByDevice.isEmpty { try loadDeviceNumbers() }
        if let number = numberByDevice[device] { return number }
        try database.run("INSERT INTO sync_devices (id) VALUES (?)", [.text(device)])
        let number = try database.integer("SELECT num FROM sync_devices WHERE id = ?", [.text(device)]) ?? 0
        numberByDevice[device] = number
        deviceByNumber[number] = device
        return number
    }

    private func localRecord(_ stored: StoredWord) throws -> LocalRecord {
        if deviceByNumber.isEmpty { try loadDeviceNumbers() }
        var writers: [String] = []
        writers.reserveCapacity(stored.writers.count)
        for number in stored.writers {
            if let device = deviceByNumber[number] {
                writers.append(device)
            } else {
                // A number registered by another connection since this one loaded them.
                try loadDeviceNumbers()
                guard let device = deviceByNumber[number] else {
                    throw LibraryError.damaged("word \(stored.word.id) names writer \(number), which the library does not know")
                }
                writers.append(device)
            }
        }
        return LocalRecord(
            record: SyncRecord(word: stored.word, times: stored.times, writers: writers, tagClock: stored.tagClock),
            pending: stored.pending, localChange: stored.localChange, stored: stored)
    }
}
