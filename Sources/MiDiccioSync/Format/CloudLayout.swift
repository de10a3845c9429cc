import Foundation
import MiDiccioModel

/// Where each file lives in the MiDiccio cloud folder.
///
/// ```
/// midiccio-sync.json                         manifest: format name and versions
/// devices/<device>.json                      one record per device, written only by it
/// changes/<device>/<seq>-<random>.chg        its change files, immutable, numbered from 1
/// snapshots/<device>/<seq>-<random>.snap     its latest full state, covering its entries <= seq
/// ```
/// Each device writes only its own files, so file-sync clients never make conflicted
/// copies of them; names that do not match these patterns are ignored.
///
/// Every change file and snapshot name carries a random part, new for each write (format
/// 3). Two copies of one library file, which share a device id and a sequence, can
/// therefore never write over each other's files, even through a file-sync client that
/// gives each its own folder; readers take every file of a number. Names written before
/// format 3 (`<seq>.chg`, `<seq>.snap`) are still read.
public enum CloudLayout {
    /// The manifest's path.
    public static let manifestPath = "midiccio-sync.json"
    /// The folder of device records.
    public static let devicesFolder = "devices"

    /// What a file in a device's folders is.
    public enum Kind: String, Sendable, Codable {
        /// A change file (`.chg`).
        case changes
        /// A snapshot (`.snap`).
        case snapshot

        /// The file name's ending.
        public var suffix: String { self == .changes ? ".chg" : ".snap" }
    }

    /// A change file or snapshot name, taken apart.
    public struct Entry: Hashable, Sendable, Comparable {
        /// Its number in the device's stream.
        public var seq: Int64
        /// The random part (nil for a name written before format 3).
        public var nonce: String?
        /// Change file or snapshot.
        public var kind: Kind

        /// Makes an entry.
        public init(seq: Int64, nonce: String?, kind: Kind) {
            self.seq = seq
            self.nonce = nonce
            self.kind = kind
        }

        /// The file name: `000000000007-1f2e3d4c5b6a7988.chg`.
        public var name: String {
            CloudLayout.padded(seq) + (nonce.map { "-" + $0 } ?? "") + kind.suffix
        }

        public static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.seq, lhs.nonce ?? "") < (rhs.seq, rhs.nonce ?? "")
        }
    }

    /// The record of `device`.
    public static func devicePath(_ device: String) -> String { "devices/\(device).json" }
    /// The folder of `device`'s change files.
    public static func changesFolder(_ device: String) -> String { "changes/\(device)" }
    /// The folder of `device`'s snapshots.
    public static func snapshotsFolder(_ device: String) -> String { "snapshots/\(device)" }
    /// The folder that holds every device's folder of files of `kind`.
    public static func folder(_ kind: Kind) -> String { kind == .changes ? "changes" : "snapshots" }
    /// The folder of `device`'s files of `kind`.
    public static func folder(_ kind: Kind, of device: String) -> String {
        kind == .changes ? changesFolder(device) : snapshotsFolder(device)
    }
    /// The device id a device's folder is named by, or nil for any other name.
    public static func device(fromFolderName name: String) -> String? {
        WordID(name)?.rawValue == name ? name : nil
    }
    /// The path of `device`'s file `entry`.
    public static func path(_ entry: Entry, of device: String) -> String {
        folder(entry.kind, of: device) + "/" + entry.name
    }

    /// A fresh random part for a file name: 16 hex digits.
    public static func newNonce<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        UInt64.random(in: 0...UInt64.max, using: &generator).sixteenHexDigits
    }

    /// The device id in a device record's file name, or nil for any other name
    /// ("abc (conflicted copy).json", ".abc.json.tmp", "desktop.ini").
    public static func device(fromRecordName name: String) -> String? {
        guard name.hasSuffix(".json") else { return nil }
        return device(fromFolderName: String(name.dropLast(5)))
    }

    /// The entry a change file or snapshot name stands for, or nil for any other name
    /// (a conflicted copy, a temporary file, another app's file).
    public static func entry(fromName name: String, kind: Kind) -> Entry? {
        guard name.hasSuffix(kind.suffix) else { return nil }
        let stem = name.dropLast(kind.suffix.count)
        let digits = stem.prefix(12)
        guard digits.count == 12, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let seq = Int64(digits) else { return nil }
        let rest = stem.dropFirst(12)
        if rest.isEmpty { return Entry(seq: seq, nonce: nil, kind: kind) }
        let nonce = rest.dropFirst()
        guard rest.first == "-", nonce.count == 16, nonce.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else { return nil }
        return Entry(seq: seq, nonce: String(nonce), kind: kind)
    }

    /// The entry the last part of `path` stands for, a change file or a snapshot, or nil.
    public static func entry(fromPath path: String) -> Entry? {
        let name = String(path.split(separator: "/").last ?? "")
        return entry(fromName: name, kind: .changes) ?? entry(fromName: name, kind: .snapshot)
    }

    fileprivate static func padded(_ seq: Int64) -> String {
        let digits = String(seq)
        return String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }
}

/// The manifest at the root of a MiDiccio cloud folder: which format the folder holds
/// and the oldest format a device must understand to read it and to write to it.
public struct CloudManifest: Hashable, Sendable {
    /// The format name every MiDiccio cloud folder carries.
    public static let formatName = "midiccio-sync"
    /// The newest format version this MiDiccio reads and writes.
    ///
    /// 1: change files, snapshots, device records. 2: purge markers and synced settings.
    /// 3: file names with a random part, device records that name their files and say
    /// which copy of a library wrote them; older devices would not find the files, so
    /// they must neither read nor write. 4: review events in change files and snapshots
    /// (issue 15); an older device would drop them from its snapshots, so it must neither
    /// read nor write. 5: each record's tag clock (`TagClock`); an older device would
    /// write lists that replace tags added elsewhere, and drop the clocks from its
    /// snapshots, so it must neither read nor write. 6: purge markers say whether the
    /// Trash's clean-up left them (`PurgeMarker.cleanUp`); an older device would drop that
    /// from its snapshots, and take from every device a word edited after its deletion, so
    /// it must neither read nor write.
    public static let currentVersion = 6

    /// The folder's format version.
    public var version: Int
    /// A device must understand at least this version to read.
    public var minimumReadVersion: Int
    /// A device must understand at least this version to write.
    public var minimumWriteVersion: Int
    /// A random id, new each time a device starts the cloud, kept when the manifest is
    /// written again (since 2026-12-04; a folder started before has none). A device that
    /// finds another id than the one it saw last knows the cloud was started again
    /// (`SyncSession.resyncIfCloudStartedAgain`). Older devices ignore it.
    public var cloud: String?

    /// The first format, which every MiDiccio reads.
    public static let base = CloudManifest(version: 1, minimumReadVersion: 1, minimumWriteVersion: 1)
    /// The manifest of a format-2 folder (purge markers or settings).
    public static let withPurgeMarkers = CloudManifest(version: 2, minimumReadVersion: 2, minimumWriteVersion: 2)
    /// The manifest of a format-3 folder (file names with a random part).
    public static let withRandomNames = CloudManifest(version: 3, minimumReadVersion: 3, minimumWriteVersion: 3)
    /// The manifest of a format-4 folder (review events).
    public static let withReviewEvents = CloudManifest(version: 4, minimumReadVersion: 4, minimumWriteVersion: 4)
    /// The manifest of a format-5 folder (tag clocks).
    public static let withTagClocks = CloudManifest(version: 5, minimumReadVersion: 5, minimumWriteVersion: 5)
    /// The manifest this MiDiccio writes: format 6, which only devices of format 6 and
    /// newer may read or write.
    public static let current = CloudManifest(version: 6, minimumReadVersion: 6, minimumWriteVersion: 6)

    /// Makes a manifest.
    public init(version: Int, minimumReadVersion: Int, minimumWriteVersion: Int, cloud: String? = nil) {
        self.version = version
        self.minimumReadVersion = minimumReadVersion
        self.minimumWriteVersion = minimumWriteVersion
        self.cloud = cloud
    }

    /// The manifest without its cloud id: what a device must understand.
    public var versions: CloudManifest {
        CloudManifest(version: version, minimumReadVersion: minimumReadVersion, minimumWriteVersion: minimumWriteVersion)
    }

    /// A fresh cloud id: 32 hex digits.
    public static func newCloudID() -> String {
        var generator = SystemRandomNumberGenerator()
        return CloudLayout.newNonce(using: &generator) + CloudLayout.newNonce(using: &generator)
    }

    /// The manifest as JSON.
    public func encoded() -> Data {
        Data(
            """
            {"format": "\(Self.formatName)", "version": \(version), "minimumReadVersion": \(minimumReadVersion), \
            "minimumWriteVersion": \(minimumWriteVersion)\(cloud.map { ", \"cloud\": \(JSONText.quote($0))" } ?? "")}

            """.utf8)
    }

    /// Reads a manifest; nil when the bytes are not one.
    public static func decode(_ data: Data) -> CloudManifest? {
        guard let object = JSONText.parse(data) as? [String: Any],
            object["format"] as? String == formatName,
            let version = object["version"] as? Int,
            let read = object["minimumReadVersion"] as? Int,
            let write = object["minimumWriteVersion"] as? Int
        else { return nil }
        let cloud = (object["cloud"] as? String).flatMap(acceptedCloudID)
        return CloudManifest(version: version, minimumReadVersion: read, minimumWriteVersion: write, cloud: cloud)
    }

    /// `text` as a cloud id, or nil when it is not one (empty, or too long to be ours),
    /// which counts as none.
    static func acceptedCloudID(_ text: String) -> String? {
        (1...64).contains(text.utf8.count) ? text : nil
    }
}
