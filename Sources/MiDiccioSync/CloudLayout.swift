import MiDiccioLibrary
import MiDiccioCloud
import MiDiccioModel
import Foundation

/// Where each file lives in the MiDiccio cloud folder, and the small JSON files.
///
/// ```
/// midiccio-sync.json                 manifest: format name and versions
/// devices/<device>.json              one record per device, written only by it
/// changes/<device>/<seq>.chg         its change files, immutable, numbered from 1
/// snapshots/<device>/<seq>.snap      its latest full state, covering its entries <= seq
/// ```
/// Each device writes only its own files, so file-sync clients never make conflicted
/// copies of them; names that do not match these patterns are ignored.
public enum CloudLayout {
    /// The manifest's path.
    public static let manifestPath = "midiccio-sync.json"
    /// The folder of device records.
    public static let devicesFolder = "devices"

    /// The record of `device`.
    public static func devicePath(_ device: String) -> String { "devices/\(device).json" }
    /// The folder of `device`'s change files.
    public static func changesFolder(_ device: String) -> String { "changes/\(device)" }
    /// Change file `seq` of `device`.
    public static func changePath(_ device: String, _ seq: Int64) -> String { "changes/\(device)/\(padded(seq)).chg" }
    /// The folder of `device`'s snapshots.
    public static func snapshotsFolder(_ device: String) -> String { "snapshots/\(device)" }
    /// Snapshot `seq` of `device`.
    public static func snapshotPath(_ device: String, _ seq: Int64) -> String { "snapshots/\(device)/\(padded(seq)).snap" }

    /// The device id in a device record's file name, or nil for any other name
    /// ("abc (conflicted copy).json", ".abc.json.tmp", "desktop.ini").
    public static func device(fromRecordName name: String) -> String? {
        guard name.hasSuffix(".json") else { return nil }
        let id = String(name.dropLast(5))
        return WordID(id)?.rawValue == id ? id : nil
    }

    /// The sequence number in a change or snapshot file name, or nil for any other name.
    public static func seq(fromName name: String, suffix: String) -> Int64? {
        guard name.hasSuffix(suffix) else { return nil }
        let digits = name.dropLast(suffix.count)
        guard digits.count == 12, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        return Int64(digits)
    }

    private static func padded(_ seq: Int64) -> String {
        let digits = String(seq)
        return String(repeating: "0", count: max(0, 12 - digits.count)) + digits
    }
}

/// The manifest at the root of a MiDiccio cloud folder: which format the folder holds
/// and the oldest format a device must understand to read it and to write to it.
public struct CloudManifest: Hashable, Sendable {
    /// The format name every MiDiccio cloud folder carries.
    public static let formatName = "midiccio-sync"
    /// The newest format version this MiDiccio reads and writes. Version 2 added purge
    /// markers and synced settings; a folder moves to it only when a device first writes
    /// one of those (so format-1 devices keep syncing until then).
    public static let currentVersion = 2

    /// The folder's format version.
    public var version: Int
    /// A device must understand at least this version to read.
    public var minimumReadVersion: Int
    /// A device must understand at least this version to write.
    public var minimumWriteVersion: Int

    /// The manifest this MiDiccio writes for a new cloud folder: the base format, which
    /// every MiDiccio reads.
    public static let base = CloudManifest(version: 1, minimumReadVersion: 1, minimumWriteVersion: 1)
    /// The manifest of a folder holding purge markers or settings: older devices must
    /// neither read (they would skip the files and drift) nor write (they would bring
    /// purged words back).
    public static let withPurgeMarkers = CloudManifest(version: 2, minimumReadVersion: 2, minimumWriteVersion: 2)

    /// Makes a manifest.
    public init(version: Int, minimumReadVersion: Int, minimumWriteVersion: Int) {
        self.version = version
        self.minimumReadVersion = minimumReadVersion
        self.minimumWriteVersion = minimumWriteVersion
    }

    /// The manifest as JSON.
    public func encoded() -> Data {
        Data("""
            {"format": "\(Self.formatName)", "version": \(version), "minimumReadVersion": \(minimumReadVersion), "minimumWriteVersion": \(minimumWriteVersion)}

            """.utf8)
    }

    /// Reads a manifest; nil when the bytes are not one.
    public static func decode(_ data: Data) -> CloudManifest? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              object["format"] as? String == formatName,
              let version = object["version"] as? Int,
              let read = object["minimumReadVersion"] as? Int,
              let write = object["minimumWriteVersion"] as? Int else { return nil }
        return CloudManifest(version: version, minimumReadVersion: read, minimumWriteVersion: write)
    }
}

/// A device's public record: what others need to read its changes and to show it.
public struct DeviceRecord: Hashable, Sendable {
    /// The device's id.
    public var device: String
    /// Its name ("Ana's laptop").
    public var name: String
    /// The MiDiccio version it runs.
    public var app: String
    /// When it last wrote this record.
    public var lastSync: Timestamp
    /// The newest entry (change file or full-upload snapshot) in its stream.
    public var lastSeq: Int64
    /// Its latest snapshot covers its entries up to this number (0: none).
    public var snapshotSeq: Int64
    /// How far it has read each other device.
    public var read: [String: Int64]
    /// Its library digest (see `WordLibrary.libraryDigest()`).
    public var digest: String
    /// Words in its library (Trash included).
    public var wordCount: Int
    /// Its cloud files hold no content of words purged at or before this time.
    public var purgeCleanThrough: Timestamp = Timestamp(milliseconds: 0)

    /// Makes a record.
    public init(device: String, name: String, app: String, lastSync: Timestamp, lastSeq: Int64, snapshotSeq: Int64,
                read: [String: Int64], digest: String, wordCount: Int, purgeCleanThrough: Timestamp = Timestamp(milliseconds: 0)) {
        self.purgeCleanThrough = purgeCleanThrough
        self.device = device
        self.name = name
        self.app = app
        self.lastSync = lastSync
        self.lastSeq = lastSeq
        self.snapshotSeq = snapshotSeq
        self.read = read
        self.digest = digest
        self.wordCount = wordCount
    }

    /// The record as JSON.
    public func encoded() -> Data {
        let cursors = read.sorted { $0.key < $1.key }.map { "\(JSONText.quote($0.key)): \($0.value)" }.joined(separator: ", ")
        return Data("""
            {"format": "midiccio-device", "device": \(JSONText.quote(device)), "name": \(JSONText.quote(name)), \
            "app": \(JSONText.quote(app)), "lastSync": \(JSONText.quote(lastSync.iso8601)), "lastSeq": \(lastSeq), \
            "snapshotSeq": \(snapshotSeq), "read": {\(cursors)}, "digest": \(JSONText.quote(digest)), "wordCount": \(wordCount), \
            "purgeCleanThrough": \(purgeCleanThrough.milliseconds)}

            """.utf8)
    }

    /// Reads a record; nil when the bytes are not one.
    public static func decode(_ data: Data) -> DeviceRecord? {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              object["format"] as? String == "midiccio-device",
              let device = object["device"] as? String,
              let lastSyncText = object["lastSync"] as? String, let lastSync = Timestamp(iso8601: lastSyncText),
              let lastSeq = (object["lastSeq"] as? NSNumber)?.int64Value,
              let snapshotSeq = (object["snapshotSeq"] as? NSNumber)?.int64Value,
              let read = object["read"] as? [String: Any] else { return nil }
        var cursors: [String: Int64] = [:]
        for (key, value) in read {
            guard let number = (value as? NSNumber)?.int64Value else { return nil }
            cursors[key] = number
        }
        return DeviceRecord(device: device, name: object["name"] as? String ?? "", app: object["app"] as? String ?? "",
                            lastSync: lastSync, lastSeq: lastSeq, snapshotSeq: snapshotSeq, read: cursors,
                            digest: object["digest"] as? String ?? "", wordCount: object["wordCount"] as? Int ?? 0,
                            purgeCleanThrough: Timestamp(milliseconds: (object["purgeCleanThrough"] as? NSNumber)?.int64Value ?? 0))
    }
}
