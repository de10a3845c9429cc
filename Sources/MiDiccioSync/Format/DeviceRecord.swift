import Foundation
import MiDiccioModel

/// A device's public record, `devices/<id>.json`: what others need to read its files,
/// to show it, and to tell whether it is a copy of another library.
public struct DeviceRecord: Hashable, Sendable {
    /// The device's id.
    public var device: String
    /// Its name ("Ana's laptop").
    public var name: String
    /// The MiDiccio version it runs.
    public var app: String
    /// When it last wrote this record.
    public var lastSync: Timestamp
    /// The newest entry (change file or snapshot) in its stream.
    public var lastSeq: Int64
    /// Its latest snapshot covers its entries up to this number (0: none).
    public var snapshotSeq: Int64
    /// How far it has read each other device.
    public var read: [String: Int64]
    /// Its library digest (see `WordLibrary.libraryDigest()`).
    public var digest: String
    /// Words in its library (Trash included).
    public var wordCount: Int
    /// A random value new with every write of this record (format 3). A library that
    /// finds here a value it did not write is a copy of the library that did.
    public var instance: String?
    /// The name of its latest snapshot (format 3).
    public var snapshotName: String?
    /// The names of its change files after the snapshot (format 3), so readers need
    /// not list its folder.
    public var changeNames: [String]?
    /// Names of its earlier snapshots under the same number as `snapshotName`, which that
    /// one knowingly replaced (written again to honour a purge marker, with nothing new to
    /// number), oldest first. A device that read one of them is not looking at a device put
    /// back from an older copy (`SyncSession.checkPutBack`). Before 2026-12-05 every such
    /// rewrite read as one: the device that emptied its Trash was told another had been put
    /// back, and uploaded every word, after each purge (found by the exploratory helper,
    /// round 12A).
    public var snapshotReplaces: [String]?
    /// Earlier device ids whose files this device read to the given number and then
    /// took over, as a copy of a library does when it takes a new id (format 3).
    public var absorbed: [String: Int64] = [:]
    /// The purge markers its cloud files are known to honour: how many, and an
    /// order-independent digest of their ids (format 3). Equal to another device's own
    /// pair when they honour the same markers.
    public var purgeClean: PurgeCleanliness?

    /// Files of other devices this device could not read (missing, or damaged: a sync
    /// program lost or cut them): device id → the number it is held at. The device that
    /// wrote them answers with a new snapshot, which covers them.
    public var wanted: [String: Int64] = [:]

    /// The cloud's id (`CloudManifest.cloud`) as this device last found it: nil when it
    /// found none, or runs a MiDiccio older than ids. A device new to the cloud that
    /// finds the manifest gone writes it again with this id (`checkManifest`).
    public var cloud: String?
    /// Set by a device put back from an older copy together with its files in the cloud:
    /// its entries after this number are gone, though others had read them. A device that
    /// read past it uploads every word once, so the words those entries carried are in the
    /// cloud again (`SyncSession.checkPutBack`).
    public var forgot: Int64?
    /// With `forgot`: how far other devices had read its entries when it found them gone.
    public var forgotThrough: Int64?
    /// With `forgot`: when it found them gone (ms, its own clock), which tells one loss from
    /// another at the same numbers.
    public var forgotAt: Int64?

    /// The devices of clouds this library left (within 180 days) for which its Trash's
    /// clean-up waits (`SyncSession.devicesNotHeardHere`): every device of this cloud that
    /// reads the record waits for them too. The hold lived only in the library that moved,
    /// and a device that had only ever synced through the new cloud purged the word there;
    /// the moved library carried the marker back to the first cloud, where it took the word,
    /// live and edited, from a device that had never seen it in its Trash (round 16A F1).
    /// Nil when it holds for none; older MiDiccio versions ignore it.
    public var trashHold: [HeldFor]?

    /// A device (or a cloud's unnamed devices) a Trash's clean-up waits for.
    public struct HeldFor: Hashable, Sendable {
        /// Its id; empty for any device of the cloud `name` names that synced there after the
        /// holding library left it.
        public var device: String
        /// Its name (or the cloud's), when known.
        public var name: String?
        /// When the holding library last heard from it there, or left that cloud (ms).
        public var at: Int64
        /// When that device wrote the newest record of it read there, by its clock (ms).
        public var written: Int64?

        /// Makes an entry.
        public init(device: String, name: String?, at: Int64, written: Int64?) {
            self.device = device
            self.name = name
            self.at = at
            self.written = written
        }
    }

    /// Which purge markers a device's files honour.
    public struct PurgeCleanliness: Hashable, Sendable {
        /// How many markers.
        public var count: Int
        /// The digest of their ids.
        public var digest: String

        /// Makes the pair.
        public init(count: Int, digest: String) {
            self.count = count
            self.digest = digest
        }
    }

    /// Makes a record.
    public init(
        device: String, name: String, app: String, lastSync: Timestamp, lastSeq: Int64, snapshotSeq: Int64,
        read: [String: Int64], digest: String, wordCount: Int
    ) {
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
        func map(_ values: [String: Int64]) -> String {
            "{" + values.sorted { $0.key < $1.key }.map { "\(JSONText.quote($0.key)): \($0.value)" }.joined(separator: ", ") + "}"
        }
        var fields = [
            ("format", JSONText.quote("midiccio-device")), ("formatVersion", "3"), ("device", JSONText.quote(device)),
            ("name", JSONText.quote(name)), ("app", JSONText.quote(app)), ("lastSync", JSONText.quote(lastSync.iso8601)),
            ("lastSeq", String(lastSeq)), ("snapshotSeq", String(snapshotSeq)), ("read", map(read)),
            ("digest", JSONText.quote(digest)), ("wordCount", String(wordCount)),
        ]
        if let instance { fields.append(("instance", JSONText.quote(instance))) }
        if let snapshotName { fields.append(("snapshot", JSONText.quote(snapshotName))) }
        if let changeNames { fields.append(("changes", JSONText.array(changeNames))) }
        if let snapshotReplaces, !snapshotReplaces.isEmpty { fields.append(("snapshotReplaces", JSONText.array(snapshotReplaces))) }
        if !absorbed.isEmpty { fields.append(("absorbed", map(absorbed))) }
        if !wanted.isEmpty { fields.append(("wanted", map(wanted))) }
        if let cloud { fields.append(("cloud", JSONText.quote(cloud))) }
        if let forgot { fields.append(("forgot", String(forgot))) }
        if let forgotThrough { fields.append(("forgotThrough", String(forgotThrough))) }
        if let forgotAt { fields.append(("forgotAt", String(forgotAt))) }
        if let purgeClean {
            fields.append(
                (
                    "purgeClean",
                    JSONText.object(
                        [
                            ("count", String(purgeClean.count)),
                            ("digest", JSONText.quote(purgeClean.digest)),
                        ], spaced: true)
                ))
        }
        if let trashHold, !trashHold.isEmpty {
            let entries = trashHold.map { held in
                var pairs = [("device", JSONText.quote(held.device)), ("at", String(held.at))]
                if let name = held.name { pairs.append(("name", JSONText.quote(name))) }
                if let written = held.written { pairs.append(("written", String(written))) }
                return JSONText.object(pairs)
            }
            fields.append(("trashHold", "[" + entries.joined(separator: ", ") + "]"))
        }
        return Data((JSONText.object(fields, spaced: true) + "\n").utf8)
    }

    /// Reads a record; nil when the bytes are not one (a file caught half written, or
    /// not a MiDiccio record at all).
    public static func decode(_ data: Data) -> DeviceRecord? {
        guard let object = JSONText.parse(data) as? [String: Any],
            object["format"] as? String == "midiccio-device",
            let device = object["device"] as? String,
            let lastSyncText = object["lastSync"] as? String, let lastSync = Timestamp(iso8601: lastSyncText),
            let lastSeq = (object["lastSeq"] as? Int).map(Int64.init),
            let snapshotSeq = (object["snapshotSeq"] as? Int).map(Int64.init),
            let read = numbers(object["read"])
        else { return nil }
        var record = DeviceRecord(
            device: device, name: object["name"] as? String ?? "", app: object["app"] as? String ?? "",
            lastSync: lastSync, lastSeq: lastSeq, snapshotSeq: snapshotSeq, read: read,
            digest: object["digest"] as? String ?? "", wordCount: object["wordCount"] as? Int ?? 0)
        record.instance = object["instance"] as? String
        record.snapshotName = object["snapshot"] as? String
        record.changeNames = object["changes"] as? [String]
        record.snapshotReplaces = object["snapshotReplaces"] as? [String]
        record.absorbed = numbers(object["absorbed"]) ?? [:]
        record.wanted = numbers(object["wanted"]) ?? [:]
        record.cloud = (object["cloud"] as? String).flatMap(CloudManifest.acceptedCloudID)
        record.forgot = (object["forgot"] as? Int).map(Int64.init)
        record.forgotThrough = (object["forgotThrough"] as? Int).map(Int64.init)
        record.forgotAt = (object["forgotAt"] as? Int).map(Int64.init)
        if let clean = object["purgeClean"] as? [String: Any], let count = clean["count"] as? Int,
            let digest = clean["digest"] as? String
        {
            record.purgeClean = PurgeCleanliness(count: count, digest: digest)
        }
        // Entries that do not read as one are left out (a later version's, say).
        if let entries = object["trashHold"] as? [Any] {
            record.trashHold = entries.compactMap { entry in
                guard let held = entry as? [String: Any], let device = held["device"] as? String, device.utf8.count <= 100,
                    let at = held["at"] as? Int
                else { return nil }
                let name = (held["name"] as? String).map { String($0.prefix(200)) }
                return HeldFor(device: device, name: name, at: Int64(at), written: (held["written"] as? Int).map(Int64.init))
            }
        }
        return record
    }

    private static func numbers(_ value: Any?) -> [String: Int64]? {
        guard let object = value as? [String: Any] else { return nil }
        var result: [String: Int64] = [:]
        for (key, value) in object {
            guard let number = value as? Int else { return nil }
            result[key] = Int64(number)
        }
        return result
    }
}
