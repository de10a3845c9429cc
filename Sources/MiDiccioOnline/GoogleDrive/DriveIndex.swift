import Foundation
import MiDiccioCloud

/// What this device knows of the MiDiccio files in Google Drive: each file's id, name,
/// folder and version, the change token the next sync asks from, and the content of
/// the small files every sync reads (the manifest and device records).
///
/// Drive names files by id, and a name may appear twice in one folder; sync names files
/// by path. The index turns one into the other without asking Drive, and the Changes
/// API keeps it up to date, so a sync with nothing to do costs one request. It is kept
/// in the library between syncs (`CloudCache`) and is only a cache: a file it does not
/// know is looked up by name, a file it knows but Drive no longer has (404) is looked
/// up again, and an unusable change token means a full listing.
struct DriveIndex: Codable, Sendable {
    /// One file or folder.
    struct Item: Codable, Sendable, Hashable {
        var name: String
        /// The folder it is in (Drive allows several; MiDiccio makes one).
        var parent: String?
        var folder: Bool
        /// Drive's `createdTime` (RFC 3339, so text order is time order).
        var created: String
        var modified: String
        var size: Int
        /// Drive's `version`: it changes whenever the file does.
        var version: String
    }

    /// The content of a small file at one version.
    struct Content: Codable, Sendable {
        var version: String
        var data: Data
    }

    /// The layout of this value; another one is thrown away.
    static let currentFormat = 1

    var format = DriveIndex.currentFormat
    /// Which Drive space and folder this index describes ("appdata", "folder:Words").
    var space: String
    /// The Changes API token to ask from next; nil before the first listing.
    var pageToken: String?
    /// True after a full listing, until the next sync lists everything once more: Drive
    /// may leave a file made just before a listing out of it for a moment, and a file made
    /// before the change token never shows up in the changes either.
    var listingToConfirm: Bool?
    /// Files a change showed in a folder the index does not know, which the listing made
    /// then left out too (it can lag as the first did): everything is listed again at each
    /// sync until their folders show (nil: none). After one more look only, a new device
    /// got another device's words two days late, or when that device next wrote (found by
    /// the exploratory helper, round 19A).
    var foldersAwaited: [String]?
    /// The app data folder's own id, once Drive has named it (as the parent of a file
    /// made with its alias); nil for a visible folder, and until then.
    var rootID: String?
    /// Every file and folder by id.
    var items: [String: Item] = [:]
    /// Small files' content by id.
    var contents: [String: Content] = [:]

    init(space: String) { self.space = space }

    /// The index saved in `data`, if it is one of `space`.
    static func decode(_ data: Data, space: String) -> DriveIndex? {
        guard let index = try? JSONDecoder().decode(DriveIndex.self, from: data), index.format == currentFormat, index.space == space
        else { return nil }
        return index
    }

    /// The index as saved.
    func encoded() -> Data { (try? JSONEncoder().encode(self)) ?? Data() }

    // MARK: - Paths

    /// The ids of the MiDiccio folder itself: for the app data folder, its id when known,
    /// else the folders its files are in that are not themselves known (Drive's hidden
    /// root, and any folder a listing left out: never written into, see `ensureFolder`,
    /// and never holding a name that sync looks for at the top); for a visible
    /// folder, every folder of that name outside any known folder (two devices that made
    /// it at the same moment made two).
    func roots(folderName: String?) -> [String] {
        if folderName == nil, let rootID { return [rootID] }
        var roots = Set<String>()
        for (id, item) in items {
            let outside = item.parent.map { items[$0] == nil } ?? true
            guard outside else { continue }
            if let folderName {
                if item.folder && item.name == folderName { roots.insert(id) }
            } else if let parent = item.parent {
                roots.insert(parent)
            }
        }
        return ordered(Array(roots))
    }

    /// Ids sorted oldest first (by creation, then id): the order that picks which of
    /// same-named folders is written into.
    func ordered(_ ids: [String]) -> [String] {
        ids.sorted { a, b in
            let (x, y) = (items[a]?.created ?? "", items[b]?.created ?? "")
            return x != y ? x < y : a < b
        }
    }

    /// The children of `parents` named `name` (folders or files), oldest first.
    func children(of parents: [String], named name: String, folders: Bool) -> [String] {
        let parentSet = Set(parents)
        return ordered(
            items.compactMap { id, item in
                item.folder == folders && item.name == name && item.parent.map(parentSet.contains) == true ? id : nil
            })
    }

    /// Every file (not folder) directly in `parents`.
    func files(in parents: [String]) -> [(id: String, item: Item)] {
        let parentSet = Set(parents)
        return items.compactMap { id, item in
            !item.folder && item.parent.map(parentSet.contains) == true ? (id, item) : nil
        }
    }

    /// The ids of every folder at `components` below the roots: all same-named folders
    /// count as one.
    func folders(at components: [String], roots: [String]) -> [String] {
        var current = roots
        for component in components {
            guard !current.isEmpty else { return [] }
            current = children(of: current, named: component, folders: true)
        }
        return current
    }

    /// Files or folders of `changed` in a folder the index does not
    /// know, below the app data folder: Drive's listings left that folder out (and what
    /// else was in it), both the first and the one that confirms it, and only a change
    /// made in it since shows it. Without a look at everything again, a new device whose
    /// two listings met such a moment never read another device's words (found by the
    /// exploratory helper). A visible folder's changes come from the whole of My Drive,
    /// whose folders the index need not know: there, only a file named as MiDiccio names
    /// its files counts (found by the exploratory helper, round 10: a phone made a second
    /// MiDiccio folder and never read the laptop's words), and it misses a folder when the
    /// folders the index knows above it end below a folder it does not know, one that is
    /// not the top of My Drive (where the MiDiccio folder is): two new devices that made
    /// their own at the same moment, while Drive's listings lagged, each knew the other's
    /// folders inside the other's, but not that one, and one of them never read the
    /// other's words (found by the exploratory helper, round 26A #1). Another program's
    /// folder at the top of My Drive, holding files named alike, is not missed.
    ///
    /// Returns those of `changed` that miss their folder. The top of My Drive is worked out
    /// once, and only when a file needs it: a sync with nothing changed reads no item.
    func filesMissingFolders(among changed: Set<String>, folderName: String?) -> Set<String> {
        var top: Set<String>?
        return changed.filter { id in
            guard let item = items[id], let parent = item.parent else { return false }
            if let rootID { return items[parent] == nil && parent != rootID }
            guard !item.folder && Self.isMiDiccioFileName(item.name) else { return false }
            // The app data folder before its own id is known: the file's own folder.
            guard folderName != nil else { return items[parent] == nil }
            guard let unknown = firstUnknownFolder(above: item) else { return false }
            if top == nil { top = Set(roots(folderName: folderName).compactMap { items[$0]?.parent }) }
            return top?.contains(unknown) == false
        }
    }

    /// The first folder above `item` that the index does not know, walking up through the
    /// folders it knows; nil when the walk ends without one.
    private func firstUnknownFolder(above item: Item) -> String? {
        var current = item
        // Drive's folders form a tree; the bound keeps a damaged index from looping.
        for _ in 0..<64 {
            guard let parent = current.parent else { return nil }
            guard let next = items[parent] else { return parent }
            current = next
        }
        return nil
    }

    /// True for the names sync gives its files: the manifest, device records, change files
    /// and snapshots.
    static func isMiDiccioFileName(_ name: String) -> Bool {
        name == "midiccio-sync.json" || name.hasSuffix(".chg") || name.hasSuffix(".snap")
            || (name.hasSuffix(".json") && UUID(uuidString: String(name.dropLast(5))) != nil)
    }

    /// Removes `id` and everything below it.
    mutating func remove(_ id: String) {
        items[id] = nil
        contents[id] = nil
        let below = items.compactMap { $0.value.parent == id ? $0.key : nil }
        for child in below { remove(child) }
    }

    /// Adds or updates a file from Drive's resource; a changed version drops its content.
    mutating func update(id: String, with item: Item) {
        if let content = contents[id], content.version != item.version { contents[id] = nil }
        items[id] = item
    }
}

extension DriveIndex.Item {
    /// The fields the index needs, for `fields=` parameters.
    static let fields = "id,name,mimeType,parents,createdTime,modifiedTime,size,version,trashed"

    /// The item of a Drive file resource, or nil when it lacks what the index needs.
    init?(resource: [String: Any]) {
        guard let name = resource["name"] as? String, let mimeType = resource["mimeType"] as? String else { return nil }
        self.name = name
        parent = (resource["parents"] as? [String])?.first
        folder = mimeType == GoogleDriveStorage.folderType
        created = resource["createdTime"] as? String ?? ""
        modified = resource["modifiedTime"] as? String ?? created
        size = Int(resource["size"] as? String ?? "") ?? (resource["size"] as? NSNumber)?.intValue ?? 0
        version = (resource["version"] as? String) ?? (resource["version"] as? NSNumber)?.stringValue ?? ""
    }
}
