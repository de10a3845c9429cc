import Foundation
import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel
import Synchronization

/// What a sync is doing, for a caller that shows progress or decides how long to wait.
public enum SyncActivity: Sendable, Equatable {
    /// Asking the cloud for its manifest and device records.
    case reachingCloud
    /// Reading other devices' files.
    case downloading
    /// Merging `words` words into the library, `done` of them so far: announced with
    /// `done` 0 as the merge starts, then every `WordLibrary.progressInterval` words.
    case merging(words: Int, done: Int = 0)
    /// Uploading `words` words. Announced with `done` 0 as the upload starts; a change
    /// file of more than `SyncEngine.largeUploadThreshold` words is encoded as its words
    /// are read, and announces `done` of them every `WordLibrary.progressInterval` words,
    /// then `done == words` while the file is compressed and written.
    case uploading(words: Int, done: Int = 0)
    /// Writing every word, the Trash included, into one file (a snapshot): `done` of
    /// `words` read so far, announced with 0 as it starts, every
    /// `WordLibrary.progressInterval` words, then with `done == words` while the file is
    /// compressed and written. `fullUpload` when the snapshot is this device's upload of
    /// every word once.
    case writingSnapshot(words: Int, done: Int, fullUpload: Bool)
    /// Snapshots, compaction and this device's record.
    case tidying
}

/// Syncs one library with one cloud folder.
///
/// A sync runs in steps, each in its own file under `Phases/`:
/// 1. the manifest (`ManifestCheck`), 2. the device records and whether this library
/// is a copy of another (`DeviceIdentity`), 3. pull and merge (`Pull`, `Merge`),
/// 4. upload with in-flight recovery (`Upload`), 5. snapshots, compaction and tidying
/// (`Snapshots`), 6. this device's record (`DevicePublishing`). `Status` reads the same
/// state without changing it.
///
/// Each step commits its local effects in one transaction with sync's state, so a sync
/// that fails anywhere leaves the library whole, says exactly what it kept, and the next
/// one resumes.
public final class SyncEngine {
    /// The library being synced.
    public let library: WordLibrary
    /// The cloud.
    public let storage: any CloudStorage
    /// The app version written into this device's record.
    public let appVersion: String
    /// Write a snapshot once this many change files follow the last one.
    public var snapshotInterval: Int64 = 32
    /// Above this many pending words, the change file is encoded as the words are read,
    /// never held whole in memory (`writeLargeChangeFile`).
    public var largeUploadThreshold = 2_000
    /// A device silent for longer than this no longer holds back compaction, and must
    /// read everything again (from snapshots) before it uploads.
    public var retention: Int64 = 180 * 86_400_000
    /// How long a device must have been silent before this device lists its folders for
    /// files its record does not name (`findStrayFiles`), and how often it does so. Two
    /// days: a device that syncs writes its record at least daily.
    public var strayFileAge: Int64 = 2 * 86_400_000
    /// True for the sync before an action that decides against other devices' changes (a
    /// permanent deletion, a replace restore, an undo): it lists every device's folders,
    /// not only those of devices silent for `strayFileAge`, and reads the files its record
    /// does not name: past it, or another copy's of a number it names (two copies of one
    /// library file that synced at one moment, round 21A #1). A device whose record could not be written after its upload (a
    /// 503, a lock another WebDAV client held on the record) had a word it took out of the
    /// Trash and edited purged by another device's Empty Trash, which had synced first and
    /// not seen it (found by the exploratory helper, round 20B #11). Two listings a device.
    public var findUnnamedFiles = false
    /// How long a sync waits for another sync of the same library before giving up.
    public var lockTimeout: TimeInterval = 10
    /// Told what the sync is doing as it goes (called on the syncing thread).
    public var onActivity: (@Sendable (SyncActivity) -> Void)?
    /// The newest cloud format this engine understands (tests play older devices).
    package var formatVersion = CloudManifest.currentVersion
    /// Random numbers for file names and record instances; tests pass a seeded source
    /// so a simulation replays exactly.
    package var random: @Sendable () -> UInt64 = { UInt64.random(in: 0...UInt64.max) }

    /// The remote `storage` was made for, when the caller read it from the library before
    /// the sync's lock was taken: a sync that finds the library's remote changed once it
    /// holds the lock stops (`SyncError.remoteChanged`). A sync that waited for another
    /// while `remote set` moved the library to another cloud synced with the cloud just
    /// left, on the state the move had reset for the new one: the new cloud was then said
    /// "deleted or replaced", or every sync stopped for a cloud "this device synced with
    /// before" (found by the exploratory helper, round 22B #4).
    public var expectedRemote: RemoteConfig?

    /// Makes an engine for `library` and `storage`.
    public init(library: WordLibrary, storage: any CloudStorage, appVersion: String = "midiccio") {
        self.library = library
        self.storage = storage
        self.appVersion = appVersion
    }

    /// Runs one sync. Throws `SyncError`; the library stays whole when it does, and the
    /// error says what was kept.
    @discardableResult
    public func sync(allowMassDelete: Bool = false) throws -> SyncReport {
        let lock = try SyncLock(libraryPath: library.path, timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        if let expectedRemote {
            guard let now = try library.remote() else { throw SyncError.noRemote }
            guard now == expectedRemote else { throw SyncError.remoteChanged(now: now.displayName) }
        }
        let session = try SyncSession(engine: self)
        do {
            try storage.beginPass(cache: LibraryCloudCache(store: session.store, remote: storage.displayName))
            try session.startOverIfCloudReplaced()
            try session.takeUpPreviousState()
            session.recallUntold()
            try session.takeUploadAllRequest()
            try session.checkManifest()
            try session.readDeviceRecords()
            try session.startOverIfEmptied()
            session.checkClocks()
            try session.checkIdentity()
            try session.resyncIfOwnFilesGone()
            try session.resyncIfCloudStartedAgain()
            try session.checkPutBack()
            try session.readAbsorbedIdentities()
            // An id that took others over is announced before anything is written under it
            // (in the sync that takes it, or any later one while its record is missing):
            // should a later record fail, the files under it are still found (a library put
            // back from a copy older than the takeover reads the folders of the id that took
            // it over).
            // So is a device's first upload, for the same reason: a device that uploaded and
            // then could not write its record has files that its record, at least, is there
            // to have looked for (`findStrayFiles`).
            if try session.takeoverUnannounced || session.firstUploadUnannounced() {
                try session.publishRecordIfNeeded(force: true)
            }
            try session.resyncIfSilentTooLong()
            try session.findStrayFiles()
            try session.pull(allowMassDelete: allowMassDelete)
            try session.rememberRecordsHeard()
            session.noteUnreadChanges()
            try session.autoPurge()
            try session.scrubPurgedText()
            // A record that could not be written after this device's last upload goes out
            // before anything more is: the words of that upload stayed pending, and each sync
            // would send them again in a new file while the record kept failing.
            if session.recordBehind { try session.publishRecordIfNeeded(force: true) }
            let uploaded = try session.upload()
            // The record naming what was just uploaded goes out before a snapshot is
            // written: a snapshot the cloud refused (a server's upload limit, 413, a full
            // quota) stopped every sync before its record, and the device said its words
            // were uploaded while no other device could find them, for days, or for good
            // once another device purged (round 20B #3, #11).
            if uploaded, try session.snapshotDue() { try session.publishRecordIfNeeded(force: true) }
            let snapshot = try session.writeSnapshotIfDue()
            // Older files go only once the record naming the new snapshot is out: removed
            // first, a record that then failed to be written still named them, and a new
            // device read none of them (found by the exploratory helper, round 12B). What
            // the compaction changes in the record (the purge markers its files honour)
            // goes out after it.
            try session.publishRecordIfNeeded(force: uploaded || snapshot)
            try session.compact()
            try session.removeLeftoverRecordFiles()
            try session.publishRecordIfNeeded(force: false)
            // Only once the record naming this library's snapshot is out: before, the old
            // id's files were the only ones any record named.
            try session.cleanUpAbsorbedIdentities()
            try session.finish()
        } catch {
            let failure = session.failure(error)
            session.store.noteSyncFailed(at: session.now, remote: storage.displayName, message: "\(failure)")
            throw failure
        }
        return session.report
    }

    /// This device's sync state, and every device in the cloud when it can be reached.
    /// Changes nothing, here or in the cloud.
    public func status() throws -> SyncStatus {
        let session = try SyncSession(engine: self)
        try? storage.beginPass(cache: LibraryCloudCache(store: session.store, remote: storage.displayName))
        return try session.status()
    }
}

/// The library's `cloud_cache` row, for the back end of one remote.
///
/// Unchecked: its library connection is not thread-safe, and it is used only by the
/// sync that made it, on the syncing thread, while that sync holds the library's lock.
final class LibraryCloudCache: CloudCache, @unchecked Sendable {
    private let store: SyncStore
    private let remote: String

    init(store: SyncStore, remote: String) {
        self.store = store
        self.remote = remote
    }

    func load() -> Data? { try? store.loadCloudCache(remote: remote) }

    func save(_ data: Data) throws { try store.saveCloudCache(data, remote: remote) }
}

/// One sync (or status) in progress: the engine's settings, the library's sync side,
/// the state being advanced, and what has been found out so far. Each phase is an
/// extension in `Phases/`.
final class SyncSession {
    let engine: SyncEngine
    let store: SyncStore
    var storage: any CloudStorage { engine.storage }
    /// Sync's state as last committed.
    private(set) var state: SyncState
    /// What this sync has done so far.
    var report = SyncReport()
    /// What has been saved here so far (for the message of a sync that stops).
    var kept = SyncKept()
    /// The cloud's manifest.
    var manifest = CloudManifest.current
    /// True once this sync has made sure the manifest allows what it writes.
    var manifestReady = false
    /// Other devices' records, by id order.
    var others: [DeviceRecord] = []
    /// True once this sync has read the device records (`readDeviceRecords`).
    var recordsRead = false
    /// The numbers of other devices' files this sync could not read, by device (see
    /// `DeviceRecord.wanted`); published in this device's record.
    var wants: [String: Int64] = [:]
    /// This device's own record as found in the cloud.
    var ownRecord: DeviceRecord?
    /// True when this device's record is listed but could not be read.
    var ownRecordUnreadable = false
    /// Other devices whose record is listed but could not be read (half delivered,
    /// damaged): their changes may not all have arrived (`noteUnreadChanges`).
    var unreadableRecords: [String] = []
    /// Each other device's newest record read this sync (`rememberRecordsHeard`), saved
    /// with the sync's end.
    var heardNow: [String: SyncState.Heard]?
    /// The devices of clouds this library left that its Trash's clean-up waits for, found
    /// by `autoPurge` and published in this device's record (`DeviceRecord.trashHold`).
    var trashHold: [SyncStore.DeviceElsewhere] = []
    /// Names in the devices folder (for tidying this device's leftovers).
    var deviceFolderNames: [String] = []
    /// True when this device's folders should be listed and tidied this sync.
    var tidyWanted = false
    /// True when this sync listed silent devices' folders (`findStrayFiles`).
    var lookedForStrays = false
    /// Stray files found this sync that were not read before.
    var strayFiles: [StrayFile] = []
    /// Every stray file found this sync.
    var strayFilesListed: [String] = []
    /// The stray files read this sync (saved with the merge's outcome at the end).
    var strayFilesRead: [String] = []
    /// Files this device wrote and did not remove that its folders no longer hold
    /// (`resyncIfOwnFilesGone`).
    var ownFilesGone: [String] = []
    /// True when this library was set to this cloud again (it kept a state for it aside:
    /// `takeUpPreviousState`): one that finds no manifest starts the cloud again.
    var setBack = false
    /// True when this library was signed in again since its last sync went through
    /// (`WordLibrary.setRemote(_:signedIn:)`): a cloud that holds nothing of this device
    /// is another account's, and the device starts over there, or starts the cloud.
    let signedInAgain: Bool
    /// What this sync uploaded, waiting for the record that names its file (`upload`).
    var awaitingRecord: SentAwaitingRecord?
    /// The snapshot read of each device this sync, by name (`SyncState.snapshotsRead`).
    var snapshotNamesRead: [String: String] = [:]
    /// Libraries that took over this library's old id, read in full this sync.
    var descendants = Set<String>()
    /// Earlier ids this library took over, as their folders show them.
    var absorbedFolders: [String: AbsorbedFolder] = [:]
    /// The files of those folders read this sync.
    var absorbedPathsRead = Set<String>()
    /// The state generation this process last saw of each library (path and device id):
    /// a library whose state is not the one this process left behind (opened for the
    /// first time here, changed by another process, or put back from an older copy)
    /// gets its own folder listed.
    static let seenGenerations = Mutex<[String: Int64]>([:])
    /// True when this library's state, as this sync found it, is not the one this process
    /// last left (`seenGenerations`). Taken before this sync's own first commit, which an
    /// update's request for a full upload makes before the identity check: a library put
    /// back from an older copy and updated went unnoticed (found by the simulation).
    let unfamiliar: Bool

    init(engine: SyncEngine) throws {
        self.engine = engine
        store = SyncStore(engine.library)
        state = try SyncState.load(from: store)
        state.adoptLegacyFiles(device: store.deviceID)
        let key = store.path + "|" + store.deviceID
        unfamiliar = SyncSession.seenGenerations.withLock { $0[key] } != state.generation
        signedInAgain = try store.signedInAgain()
    }

    /// This device's id (it changes when a copy takes a new one).
    var deviceID: String { store.deviceID }

    /// This device's clock, in milliseconds.
    var now: Int64 { store.clock.now().milliseconds }

    /// Tells the engine's observer what the sync is doing.
    func announce(_ activity: SyncActivity) {
        engine.onActivity?(activity)
    }

    /// A fresh random part for a file name or a record instance.
    func nonce() -> String {
        var generator = EngineRandom(source: engine.random)
        return CloudLayout.newNonce(using: &generator)
    }

    /// Changes the state and runs `body` in one library transaction: both commit, or
    /// neither does (and the state in memory stays as it was). `bulkWords` is for a merge
    /// that may insert that many words (`WordLibrary.writingInBulk`).
    func commit(bulkWords: Int? = nil, _ body: (inout SyncState) throws -> Void) throws {
        var next = state
        let change = {
            try body(&next)
            next.generation += 1
            try next.save(to: self.store)
        }
        if let bulkWords { try store.writeInBulk(expectedWords: bulkWords, change) } else { try store.write(change) }
        state = next
        SyncSession.seenGenerations.withLock { $0[store.path + "|" + deviceID] = next.generation }
    }

    /// Drops from this sync's notes that say to restore a word from the Trash the words no
    /// longer there: purged since (here, or by a device this sync pulled from) or restored.
    /// A note kept from a sync that failed after its pull said "restore it from the Trash to
    /// keep it" of a word the next sync purged, beside the note of that purge (found by the
    /// exploratory helper, round 21A #2). Counts kept before ids were (an older state)
    /// stay as they are.
    func dropNotesOfWordsOutOfTheTrash() throws {
        func stillInTrash(_ ids: [String], count: Int) throws -> (count: Int, terms: [String])? {
            guard !ids.isEmpty, ids.count == count else { return nil }
            let words = try ids.compactMap { id in try WordID(id).flatMap { try store.library.word($0) } }.filter(\.isDeleted)
            guard words.count < ids.count else { return nil }
            return (words.count, words.prefix(SyncReport.purgedNamed).map(\.content.term))
        }
        if let kept = try stillInTrash(report.trashedEditedIDs, count: report.trashedEditedHere) {
            (report.trashedEditedHere, report.trashedEditedTerms) = kept
        }
        if let kept = try stillInTrash(report.editedTrashedHereIDs, count: report.editedTrashedHere) {
            (report.editedTrashedHere, report.editedTrashedHereTerms) = kept
        }
    }

    /// Puts what earlier syncs saved and did not tell (`SyncState.untold`) into this
    /// sync's report, which tells it when this sync finishes.
    func recallUntold() {
        guard let untold = state.untold else { return }
        report.purgedElsewhere += untold.purged
        report.purgedEditedHere += untold.purgedEdited
        report.purgedStudiedHere += untold.purgedStudied ?? 0
        report.overriddenHere += untold.overridden
        report.overriddenTerms = untold.overriddenTerms
        report.trashedEditedHere += untold.trashedEdited ?? 0
        report.trashedEditedTerms = untold.trashedEditedTerms ?? []
        report.trashedEditedIDs = untold.trashedEditedIDs ?? []
        report.editedTrashedHere += untold.editedTrashedHere ?? 0
        report.editedTrashedHereTerms = untold.editedTrashedHereTerms ?? []
        report.editedTrashedHereIDs = untold.editedTrashedHereIDs ?? []
        report.keptFromCleanUp += untold.keptFromCleanUp ?? 0
        report.keptFromCleanUpTerms = untold.keptFromCleanUpTerms ?? []
    }

    /// The error a failed sync throws: as it came when nothing was saved here, else
    /// wrapped with exactly what was kept.
    func failure(_ error: Error) -> Error {
        kept.pending = (try? store.pendingCount()) ?? kept.pending
        if kept.isEmpty {
            if let cloud = error as? CloudError { return SyncError.cloud(cloud) }
            return error
        }
        if case SyncError.massDeletion = error { return error }
        return SyncError.stopped(cause: error, kept: kept)
    }

    /// Takes over an update's request to upload every word once into sync's state.
    func takeUploadAllRequest() throws {
        if try store.uploadAllRequested() {
            try commit { next in
                next.fullUpload = true
                try store.clearUploadAllRequest()
            }
        }
        // And an update's request to read every file again once (`Migrations.readAgainKey`).
        if try store.readAgainRequested() {
            try commit { next in
                next.readEverythingAgain()
                try store.clearReadAgainRequest()
            }
        }
    }

    /// Starts this device over in a cloud its back end found deleted or replaced: its
    /// own files there may be gone, and other devices' streams may have started again
    /// from 1. It forgets what it read and wrote (as when moving to another cloud),
    /// reads everything again and uploads every word once. Nothing here changes: an
    /// emptied cloud never makes a word look deleted.
    func startOverIfCloudReplaced() throws {
        guard storage.cloudWasReplaced, state.hasPublished || !state.cursors.isEmpty || !state.files.isEmpty else { return }
        // A change token iCloud no longer accepts (it expires) says nothing of the zone
        // itself: the record this device last wrote, still there, says it was not replaced.
        // Starting over anyway made the device take its own record for a copy's, go on
        // under a new id and leave a ghost of itself on every device (found by the
        // exploratory helper, round 9).
        if let data = try? storage.read(CloudLayout.devicePath(deviceID)), let record = DeviceRecord.decode(data),
            let instance = record.instance, state.instances.contains(instance)
        {
            return
        }
        try startOver()
    }

    /// Starts over in a folder that was emptied and started again by another device (its
    /// manifest is there): this device published here before, and neither its record nor
    /// any file of its is there, nor does another device say it took over its id. Where
    /// this device had got to counts for nothing there: another device that started the
    /// folder again numbers its files from 1 under its old id, and this device's place in
    /// them, kept, skipped its new words for good (found by hand, after a folder was
    /// emptied and set again as the remote).
    func startOverIfEmptied() throws {
        guard state.hasPublished, ownRecord == nil, !ownRecordUnreadable, !report.startedCloud else { return }
        guard !others.contains(where: { $0.absorbed.keys.contains(deviceID) }), try listedFiles(of: deviceID).isEmpty else { return }
        // A listing a moment behind (a cache in front of the server, a store whose
        // listings lag) can leave the record out: it is read by name before the folder is
        // taken for emptied. One such listing had the device upload every word, saying the
        // data had been deleted or replaced (found by the exploratory helper, round 13C).
        if let data = try storage.read(CloudLayout.devicePath(deviceID)), let record = DeviceRecord.decode(data), record.device == deviceID
        {
            ownRecord = record
            return
        }
        try startOver()
    }

    /// Forgets everything this device knew of the cloud, to read everything again and
    /// upload every word once.
    ///
    /// The files this id wrote there are remembered as removed (`SyncState.removedFiles`):
    /// one that a sync program or a copy of the old folder brings back is this device's
    /// own, removed again, and not taken for a copy's (found by the exploratory helper).
    func startOver() throws {
        let words = try store.read { try store.wordCount() }
        let now = now
        let signedIn = signedInAgain
        try commit { next in
            let old = next
            // Signed in to another account: where it had got to in the old one is kept, for
            // a sign-in back to it (`takeUpPreviousState`).
            if signedIn && old.hasPublished { try store.keepStateAside(device: deviceID, state: try old.encoded()) }
            next = SyncState()
            next.generation = old.generation
            next.fullUpload = words > 0
            next.rememberWritten(by: old, at: now)
        }
        report.startedOver = true
        report.startedOverAfterSignIn = signedInAgain
    }

    /// Ends a sync that went through: notes when it happened.
    func finish() throws {
        try dropNotesOfWordsOutOfTheTrash()
        let looked = lookedForStrays
        let listed = strayFilesListed
        let readNow = strayFilesRead
        let absorbedRead = absorbedPathsRead
        let folders = absorbedFolders
        let snapshots = snapshotNamesRead
        // A new id taken by a sync that stopped is told by the next that finishes (found
        // by the exploratory helper: the stop said "nothing was changed", and no sync told).
        if report.newIdentity == nil { report.newIdentity = state.untoldIdentity }
        let signedIn = signedInAgain
        let heard = heardNow
        try commit { next in
            next.lastSync = now
            next.untold = nil
            if let heard { next.heard = heard }
            try store.noteSyncFinished(at: now)
            next.untoldIdentity = nil
            if signedIn { try store.forgetSignIn() }
            if !snapshots.isEmpty { next.snapshotsRead = (next.snapshotsRead ?? [:]).merging(snapshots) { $1 } }
            for index in next.absorbed.indices {
                guard !next.absorbed[index].cleanedUp, let folder = folders[next.absorbed[index].device] else {
                    next.absorbed[index].readPaths = nil
                    continue
                }
                let read = Set(next.absorbed[index].readPaths ?? []).union(absorbedRead)
                let kept = folder.paths.filter(read.contains).sorted()
                next.absorbed[index].readPaths = kept.isEmpty ? nil : kept
            }
            if looked {
                next.straysLookedFor = now
                let read = Set(next.strayFilesRead ?? []).union(readNow)
                let kept = listed.filter(read.contains).sorted()
                next.strayFilesRead = kept.isEmpty ? nil : kept
            }
        }
    }
}

/// The engine's random source as a generator.
private struct EngineRandom: RandomNumberGenerator {
    let source: @Sendable () -> UInt64
    mutating func next() -> UInt64 { source() }
}
