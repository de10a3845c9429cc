import Foundation
import MiDiccioLibrary
import MiDiccioModel

/// Everything sync remembers between syncs, as one value, loaded and saved in one place
/// (`load(from:)`, `save(to:)`), inside the library's transactions so it always agrees
/// with the words it describes.
struct SyncState: Codable, Equatable {
    /// A file this device wrote (or is writing) in its own cloud folders.
    struct OwnFile: Codable, Hashable {
        /// Its path in the cloud folder.
        var path: String
        /// Its number in this device's stream.
        var seq: Int64
        /// Change file or snapshot.
        var kind: CloudLayout.Kind

        /// Its file name, without the folders.
        var name: String { path.split(separator: "/").last.map(String.init) ?? path }
    }

    /// What this device last wrote into its cloud record.
    struct Published: Codable, Equatable {
        /// Everything the record says that matters for rewriting it.
        var signature: String
        /// When it was written (this device's clock, ms).
        var at: Int64
    }

    /// An earlier device id this library took over when it found itself to be a copy.
    struct Absorbed: Codable, Equatable {
        /// The earlier id.
        var device: String
        /// Its record's `instance` when this library took it over (nil: no record).
        var instance: String?
        /// How far this library has read the earlier id's stream.
        var through: Int64 = 0
        /// True once its files and record have been removed from the cloud.
        var cleanedUp = false
        /// The files of its folders this library has read (only those are removed).
        var readPaths: [String]?
    }

    /// Counts the commits of this state: a library put back from an older copy shows
    /// an older count than a process saw before.
    var generation: Int64 = 0
    /// The newest entry of this device's stream that is in the cloud.
    var lastSeq: Int64 = 0
    /// This device's latest snapshot in the cloud.
    var snapshot: OwnFile?
    /// Names of this device's snapshots that a later one under the same number replaced
    /// (`DeviceRecord.snapshotReplaces`), oldest first, the last `rememberedReplacedSnapshots`;
    /// only those of `snapshot`'s number count (`replacedSnapshots`).
    var snapshotReplaces: [String]?

    /// The `snapshotReplaces` of the latest snapshot's number: those its record names.
    var replacedSnapshots: [String] {
        guard let snapshot else { return [] }
        return (snapshotReplaces ?? []).filter { CloudLayout.entry(fromName: $0, kind: .snapshot)?.seq == snapshot.seq }
    }
    /// Change files up to this number have been removed (compaction).
    var compactedThrough: Int64 = 0
    /// This device's files in the cloud that it has not removed, oldest first.
    var files: [OwnFile] = []
    /// A file being written: set before the write, cleared at the commit after it. A
    /// sync that finds it set checks whether the write happened.
    var inflight: OwnFile?
    /// How far this device has read each other device's stream.
    var cursors: [String: Int64] = [:]
    /// True when the next sync uploads every word (after pulling).
    var fullUpload = false
    /// When this device last finished a sync (its clock, ms).
    var lastSync: Int64?
    /// The record this device last published.
    var published: Published?
    /// The `instance` values of this device's recent records, newest last: a record in
    /// the cloud with any other value was written by a copy of this library.
    var instances: [String] = []
    /// The `instance` of a record being written (see `inflight`).
    var instanceInFlight: String?
    /// The marker position (`SyncStore.markerPosition()`) the latest snapshot honours.
    var snapshotMarkers: Int64 = 0
    /// The marker position every file of this device in the cloud honours.
    var cleanMarkers: Int64 = 0
    /// Words removed here because another device purged them, over all syncs.
    var purgedElsewhere = 0
    /// Earlier device ids this library took over.
    var absorbed: [Absorbed] = []
    /// The want of each other device (`DeviceRecord.wanted`, the number it is held at in
    /// this device's stream) that a snapshot has answered: each is answered once.
    var answeredWants: [String: Int64]?
    /// Why this device believes it is a copy of another library, found while tidying
    /// its folders; the next sync acts on it.
    var copySuspected: String?
    /// When this device last listed silent devices' folders for files their records do
    /// not name (`SyncSession.findStrayFiles`; its clock, ms).
    var straysLookedFor: Int64?
    /// The name of the snapshot last read of each other device: another copy's snapshot of
    /// the same number, named by a record that came later, is a stray file here.
    var snapshotsRead: [String: String]?
    /// A new device id this library took that no finished sync has told of yet (the sync
    /// that took it may have stopped, at the mass-delete guard for one).
    var untoldIdentity: NewIdentity?
    /// The stray files (`SyncSession.findStrayFiles`) read so far and still in the cloud:
    /// each is read once.
    var strayFilesRead: [String]?
    /// This device's own files it removed (compacted), by path, with when (its clock,
    /// ms), for `SyncEngine.retention`: one that a sync program or a folder put back
    /// brings back is this device's own, and is removed again, not taken for a copy's
    /// (found by the exploratory helper: "a copy of another library file").
    var removedFiles: [String: Int64]?
    /// The cloud id (`CloudManifest.cloud`) this device last found in the manifest; ""
    /// when it found none; nil when not known (a fresh state, or one an older MiDiccio
    /// saved).
    var cloudEpoch: String?
    /// The highest number this id gave a file in this cloud before it started afresh
    /// there (`SyncSession.startOver`, or set back to it without its record): its next
    /// files are numbered after it. Numbered from 1 again, they went unread by a device
    /// whose place in this id's files was past them (found by the exploratory helper).
    var numberedThrough: Int64?
    /// Set when this library and its files in the cloud were put back from an older copy
    /// (a computer restored with its synced folder): its entries after this number, which
    /// other devices had read, are gone. Its record says so (`DeviceRecord.forgot`), and the
    /// devices that read them upload their content again.
    var forgot: Int64?
    /// With `forgot`: how far other devices had read (`DeviceRecord.forgotThrough`).
    var forgotThrough: Int64?
    /// With `forgot`: when this device found its entries gone (ms, its own clock).
    var forgotAt: Int64?
    /// For each other device whose record said it lost entries this device had read: which
    /// loss this device answered ("after:through"), with an upload of every word.
    var refilled: [String: String]?
    /// For each other device, the name of its change file this device read last (at its
    /// place in that device's files), when its record named it: a file of that number
    /// named otherwise later was written by that device put back (`checkPutBack`).
    var readNames: [String: String]?
    /// For each other device, the highest number of its files this device has read, past a
    /// gap its place stays at (a file not delivered yet) included.
    var readThrough: [String: Int64]?
    /// For each other device, the newest record of it this device has read
    /// (`SyncSession.rememberRecordsHeard`).
    var heard: [String: Heard]?
    /// What the pulls of syncs that stopped before their end (killed, or failed later)
    /// saved here and did not tell: the next sync that finishes tells it. A sync killed
    /// after its pull removed a word another device purged, edits made here and all, and no
    /// later sync said so (found by the exploratory helper, round 15C).
    var untold: Untold?

    /// The notes of a pull (`SyncReport`'s purged and overridden words). Purged words are
    /// counted, not named: their text leaves the library (`WordLibrary.purge`).
    struct Untold: Codable, Equatable {
        var purged = 0
        var purgedEdited = 0
        var overridden = 0
        var overriddenTerms: [String] = []
        /// Words edited here that another device's change moved to the Trash (nil in a
        /// state saved before they were counted).
        var trashedEdited: Int?
        var trashedEditedTerms: [String]?
        /// Their ids, every one (nil as above).
        var trashedEditedIDs: [String]?
        /// Words moved to the Trash here that another device had edited (nil as above).
        var editedTrashedHere: Int?
        var editedTrashedHereTerms: [String]?
        /// Their ids, every one (nil as above).
        var editedTrashedHereIDs: [String]?
        /// Words another device's Trash clean-up purged, kept here with a change made since
        /// (nil as above).
        var keptFromCleanUp: Int?
        var keptFromCleanUpTerms: [String]?
        /// Of `purged`, words the clean-up purged that held answers given here (nil as above).
        var purgedStudied: Int?
    }

    /// What a device's newest record read said, and when this device first read it.
    struct Heard: Codable, Equatable {
        /// The number of its last file (`DeviceRecord.lastSeq`).
        var seq: Int64
        /// When it wrote that record, by its own clock (`DeviceRecord.lastSync`, ms).
        var written: Int64
        /// When this device first read it, by this device's clock (ms).
        var at: Int64
        /// The device's name in that record (nil: none, or noted before names were kept),
        /// for a note about it once this library syncs elsewhere (`devicesElsewhere`).
        var name: String?
    }

    /// This state, to keep aside for a cloud folder that the cloud holding `records` is a
    /// copy of: each other device's record there counts as the one read, so that device
    /// counts as come to the copy only once it writes a newer record in it
    /// (`SyncStore.devicesElsewhere`), and as heard when it wrote that record (never after
    /// `now`). A device that synced in the old folder after this library last read it was
    /// counted as come, as its record copied was newer than the one read (round 17A G8).
    func countingAsRead(_ records: [DeviceRecord], except device: String, now: Int64) -> SyncState {
        var kept = self
        var heard = kept.heard ?? [:]
        for record in records where record.device != device {
            let written = record.lastSync.milliseconds
            let known = heard[record.device]
            heard[record.device] = Heard(
                seq: max(record.lastSeq, known?.seq ?? 0), written: max(written, known?.written ?? .min),
                at: max(min(written, now), known?.at ?? .min), name: record.name.isEmpty ? known?.name : record.name)
        }
        kept.heard = heard
        return kept
    }

    /// How many recent record instances count as this device's own (a file-sync client
    /// may bring back an older record of ours; that is not a copy).
    static let rememberedInstances = 16

    /// How many replaced snapshot names `snapshotReplaces` keeps.
    static let rememberedReplacedSnapshots = 16

    init() {}

    // MARK: - Loading and saving

    /// The state saved in `store`'s library, or a fresh one.
    static func load(from store: SyncStore) throws -> SyncState {
        guard let text = try store.loadState() else { return SyncState() }
        return try decode(text)
    }

    /// The state saved as `text` (by `save`).
    static func decode(_ text: String) throws -> SyncState {
        do {
            let container = try JSONDecoder().decode(Stored.self, from: Data(text.utf8))
            if let state = container.state { return state }
            return SyncState(legacy: container.legacy ?? [:], cursors: container.legacyCursors ?? [:])
        } catch {
            throw SyncError.damagedState("\(error)")
        }
    }

    /// Saves the state into `store`'s library; call inside `store.write`.
    func save(to store: SyncStore) throws {
        try store.saveState(try encoded())
    }

    /// The state as `save` writes it, which `decode` reads.
    func encoded() throws -> String {
        String(decoding: try JSONEncoder().encode(Stored(state: self)), as: UTF8.self)
    }

    /// The saved form: the state, or what the library kept before this type existed
    /// (string keys and a cursor table, handed over once by the library's migration).
    private struct Stored: Codable {
        var state: SyncState?
        var legacy: [String: String]?
        var legacyCursors: [String: Int64]?

        init(state: SyncState) { self.state = state }
    }

    /// The state of a library that synced with a MiDiccio of cloud format 2: its
    /// string keys, read here and nowhere else.
    private init(legacy: [String: String], cursors: [String: Int64]) {
        func number(_ key: String) -> Int64? { legacy[key].flatMap { Int64($0) } }
        self.init()
        self.cursors = cursors
        lastSeq = number("sync.lastSeq") ?? 0
        compactedThrough = number("sync.compactedThrough") ?? 0
        lastSync = number("sync.lastSync")
        purgedElsewhere = Int(number("sync.purgedElsewhere") ?? 0)
        if let signature = legacy["sync.publishedRecord"] {
            published = Published(signature: signature, at: number("sync.publishedAt") ?? 0)
        }
        // Names of that format carry no random part; they are made once the device id
        // is at hand (`adoptLegacyFiles(device:)`).
        legacyFilesPending = LegacyFiles(snapshotSeq: number("sync.snapshotSeq") ?? 0, inflight: number("sync.inflightSeq"))
    }

    /// Files of the format-2 naming this state still has to name once the device id is
    /// known (`adoptLegacyFiles(device:)`).
    struct LegacyFiles: Codable, Equatable {
        var snapshotSeq: Int64
        var inflight: Int64?
    }

    /// Set for a state read from format-2 keys until `adoptLegacyFiles` runs.
    var legacyFilesPending: LegacyFiles?

    /// Names the files a format-2 state describes, now that the device id is known:
    /// its change files after compaction, its snapshot, and an upload that was in flight.
    mutating func adoptLegacyFiles(device: String) {
        guard let legacy = legacyFilesPending else { return }
        legacyFilesPending = nil
        if legacy.snapshotSeq > 0 {
            let entry = CloudLayout.Entry(seq: legacy.snapshotSeq, nonce: nil, kind: .snapshot)
            snapshot = OwnFile(path: CloudLayout.path(entry, of: device), seq: legacy.snapshotSeq, kind: .snapshot)
            files.append(snapshot!)
        }
        if lastSeq > compactedThrough {
            for seq in (compactedThrough + 1)...lastSeq where seq != legacy.snapshotSeq {
                let entry = CloudLayout.Entry(seq: seq, nonce: nil, kind: .changes)
                files.append(OwnFile(path: CloudLayout.path(entry, of: device), seq: seq, kind: .changes))
            }
        }
        if let seq = legacy.inflight, seq > lastSeq {
            let entry = CloudLayout.Entry(seq: seq, nonce: nil, kind: .changes)
            inflight = OwnFile(path: CloudLayout.path(entry, of: device), seq: seq, kind: .changes)
        }
        files.sort { ($0.seq, $0.path) < ($1.seq, $1.path) }
    }

    /// The highest number this id has given a file in this cloud, in this state or before
    /// it started afresh there.
    var highestNumber: Int64 {
        ([lastSeq, numberedThrough ?? 0, inflight?.seq ?? 0] + files.map(\.seq)).max() ?? 0
    }

    /// Carries into this state, which starts afresh in the cloud under the same id, what
    /// the id wrote there in `old`: those files are remembered as removed at `now` (one a
    /// sync program or a copy of the old folder brings back is this device's own, not a
    /// copy's), and the next files are numbered after them (another device may have read
    /// past their numbers). Both were found by the exploratory helper.
    mutating func rememberWritten(by old: SyncState, at now: Int64) {
        var written = (old.removedFiles ?? [:]).merging(removedFiles ?? [:]) { max($0, $1) }
        for path in old.files.map(\.path) + [old.snapshot?.path].compactMap({ $0 }) { written[path] = now }
        removedFiles = written.isEmpty ? nil : written
        let numbered = max(old.highestNumber, highestNumber)
        numberedThrough = numbered > 0 ? numbered : nil
    }

    /// Takes the earlier id `device` over (its record's `instance`, if any): its files are
    /// read from the start and removed once this device's snapshot holds their words
    /// (`SyncSession.cleanUpAbsorbedIdentities`), and every word is uploaded once.
    mutating func takeOver(_ device: String, instance: String?) {
        absorbed.append(Absorbed(device: device, instance: instance, through: 0))
        cursors[device] = 0
        fullUpload = true
    }

    /// Forgets where this device had got to in the other devices' files, to read them all
    /// again, and uploads every word once: the cloud was emptied or started again.
    mutating func readEverythingAgain() {
        cursors = [:]
        snapshotsRead = nil
        strayFilesRead = nil
        fullUpload = true
    }

    // MARK: - Derived

    /// The number of this device's latest snapshot (0: none).
    var snapshotSeq: Int64 { snapshot?.seq ?? 0 }

    /// True when this library has published a record in this cloud before.
    var hasPublished: Bool { !instances.isEmpty || published != nil || lastSeq > 0 }

    /// True for a state that has read and written nothing in its cloud yet (just set
    /// to it, or started over there).
    var isFresh: Bool { lastSeq == 0 && files.isEmpty && cursors.isEmpty && !hasPublished }

    /// Notes that a record with `instance` was written.
    mutating func rememberInstance(_ instance: String) {
        instances.removeAll { $0 == instance }
        instances.append(instance)
        if instances.count > Self.rememberedInstances { instances.removeFirst(instances.count - Self.rememberedInstances) }
        instanceInFlight = nil
    }
}
