import MiDiccioLibrary
import MiDiccioCloud
import MiDiccioModel
/// What one sync did.
public struct SyncReport: Hashable, Sendable {
    /// Words changed here by other devices' edits.
    public var pulled = 0
    /// Words uploaded.
    public var pushed = 0
    /// Words edited both here (not yet uploaded) and elsewhere, merged field by field.
    public var merged = 0
    /// Cloud files that could not be read, with why; the rest of the sync went on.
    public var skippedFiles: [SkippedFile] = []
    /// True when this sync uploaded every word once (after an update that needed it).
    public var fullUpload = false
    /// True when this sync wrote a snapshot of the whole library.
    public var snapshotWritten = false
    /// Files written to the cloud, and their total size in bytes.
    public var filesWritten = 0
    /// Total bytes written to the cloud.
    public var bytesWritten = 0
    /// Old change files and snapshots this device removed (compaction).
    public var filesRemoved = 0
    /// Words removed here because another device purged them (edits made here to them
    /// are discarded: a purge beats every version of a word).
    public var purgedElsewhere = 0
    /// True when this sync purged words whose time in the Trash ran out (trash.autoPurgeDays).
    public var autoPurged = false
    /// True when this device had been silent past the retention period and read
    /// everything again before uploading.
    public var fullResync = false

    /// Makes an empty report.
    public init() {}
}

/// A cloud file a sync could not use.
public struct SkippedFile: Hashable, Sendable {
    /// Its path in the cloud folder.
    public var path: String
    /// Why it was skipped.
    public var reason: String
}

/// Why a sync stopped. Each step of a sync commits with its data, so a sync that stops
/// leaves the library whole: words already pulled stay, nothing is half-applied, pending
/// words stay pending, and the next sync resumes.
public enum SyncError: Error, Sendable, CustomStringConvertible {
    /// Another sync of this library is running.
    case busy
    /// No remote is set for this library.
    case noRemote
    /// The cloud folder was written by a newer MiDiccio format.
    case cloudTooNew(version: Int)
    /// The cloud folder has a manifest this MiDiccio cannot read.
    case badManifest(String)
    /// The sync would move too many words to the Trash at once.
    case massDeletion(count: Int, of: Int)
    /// The cloud failed.
    case cloud(CloudError)

    public var description: String {
        switch self {
        case .busy:
            "another sync of this library is running; try again in a moment"
        case .noRemote:
            "no remote is set; set one with: midiccio remote set folder PATH"
        case .cloudTooNew(let version):
            "this cloud copy was written by a newer MiDiccio; update to keep syncing (the cloud uses format \(version)). Your words on this device are kept."
        case .badManifest(let reason):
            "the cloud folder's \(CloudLayout.manifestPath) cannot be read (\(reason)); nothing was changed"
        case .massDeletion(let count, let total):
            "this sync would move \(count) of your \(total) words to the Trash; nothing was changed. If that is what you want, run: midiccio sync --allow-mass-delete"
        case .cloud(let error):
            "\(error); nothing was changed here, the next sync will try again"
        }
    }
}

/// The sync state of this library and of every device seen in the cloud.
public struct SyncStatus: Sendable {
    /// One device as seen in the cloud.
    public struct Device: Hashable, Sendable {
        /// Its id.
        public var id: String
        /// Its name.
        public var name: String
        /// Its MiDiccio version.
        public var app: String
        /// When it last wrote its record.
        public var lastSync: Timestamp?
        /// True when its library digest equals this device's.
        public var agrees: Bool
        /// True for this device.
        public var isThisDevice: Bool
        /// True when it has been silent past the retention period.
        public var inactive: Bool = false
    }

    /// This device's id.
    public var deviceID: String
    /// This device's name.
    public var deviceName: String
    /// The remote, for people (no credentials).
    public var remote: String?
    /// When this device last synced.
    public var lastSync: Timestamp?
    /// Words changed here and not uploaded yet.
    public var pending: Int
    /// True when the next sync uploads every word once.
    public var fullUploadPending: Bool
    /// Every device in the cloud (this one included), from a fresh look when the cloud
    /// could be reached, else from the last sync.
    public var devices: [Device]
    /// Why the cloud could not be read, if it could not.
    public var cloudProblem: String?
    /// Words removed here because another device purged them.
    public var purgedElsewhere: Int = 0
    /// Purge markers this library holds.
    public var purgeMarkers: Int = 0
    /// Why content of purged words may still be in the cloud; empty when it cannot be.
    public var purgedContentRemains: [String] = []
}
