import Foundation
import MiDiccioCloud

/// What this device knows of the MiDiccio records in its iCloud zone: each cloud file's
/// record (name, change tag, size), the sync token the next sync asks changes from, and
/// the content of the small files every sync reads (the manifest and device records).
///
/// `changes/zone` keeps it up to date, so a sync with nothing to do costs that one
/// request. It is kept in the library between syncs (`CloudCache`) and is only a cache:
/// an unknown sync token means reading the zone's changes from its start.
struct CloudKitIndex: Codable, Sendable {
    /// One cloud file's record.
    struct Item: Codable, Sendable, Hashable {
        /// The cloud path ("devices/abc.json").
        var path: String
        /// CloudKit's `recordChangeTag`: it changes whenever the record does.
        var tag: String
        var size: Int
        /// Last change, milliseconds since 1970.
        var modified: Int64
        /// True when the bytes are in an asset rather than in the record.
        var asset: Bool
        /// The content, for small ".json" files only (and, in memory, for whatever the
        /// changes carried this pass); never encoded for others.
        var data: Data?
    }

    /// The layout of this value; another one is thrown away.
    static let currentFormat = 1

    var format = CloudKitIndex.currentFormat
    /// Which database and zone this index describes (`CloudKitDatabase.location`).
    var database: String
    /// The zone's sync token to ask changes from; nil before the first listing.
    var syncToken: String?
    /// True when CloudKit said the zone does not exist (never made, or deleted by the
    /// user): the next write makes it first.
    var zoneMissing = false
    /// True from finding the zone this device knew deleted or its sync token refused,
    /// until this device next writes to the zone (`CloudKitStorage.cloudWasReplaced`).
    var replaced: Bool?
    /// Every record by record name.
    var items: [String: Item] = [:]

    init(database: String) { self.database = database }

    /// The index saved in `data`, if it describes `database`.
    static func decode(_ data: Data, database: String) -> CloudKitIndex? {
        guard let index = try? JSONDecoder().decode(CloudKitIndex.self, from: data), index.format == currentFormat,
            index.database == database
        else { return nil }
        return index
    }

    /// The index as saved: contents kept only for small ".json" files.
    func encoded(cachedContentLimit: Int) throws -> Data {
        var copy = self
        for (name, item) in copy.items where item.data != nil {
            if !item.path.hasSuffix(".json") || item.data!.count > cachedContentLimit { copy.items[name]?.data = nil }
        }
        return try JSONEncoder().encode(copy)
    }

    /// The record name of the file at `path`: the path with every byte outside
    /// `[A-Za-z0-9.-]` written as `_XX` (hex), after "f-" (a record name may not start
    /// with '_'). One path, one name, on every device.
    static func recordName(_ path: String) -> String {
        var name = "f-"
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "-"):
                name.append(Character(UnicodeScalar(byte)))
            default:
                name += "_" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            }
        }
        return name
    }

    /// The files directly inside `folder` ("" is the root).
    func files(in folder: String) -> [Item] {
        let prefix = folder.isEmpty ? "" : folder + "/"
        return items.values.filter { item in
            item.path.hasPrefix(prefix) && !item.path.dropFirst(prefix.count).contains("/")
        }
    }
}
