import Foundation
import MiDiccioCloud
import MiDiccioModel
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cloud storage in the user's own Google Drive, through the Drive API v3: in the hidden
/// app data folder (the default), or in a visible folder of My Drive.
///
/// Drive stores files by id, and names need not be unique, so this back end keeps an
/// index of paths to ids (`DriveIndex`) in the library, brought up to date at the start
/// of each sync by the Changes API: a sync with nothing to do costs that one request.
/// - Two devices that make `changes/` at the same moment make two folders of that name.
///   They count as one: reads and listings take all of them, and writes go into the
///   oldest (by `createdTime`, then id).
/// - Each cloud file is written by one device only; writing it again updates it by id.
/// - Uploads up to 5 MB are one `multipart` request; larger ones are `resumable` and
///   pick up where a dropped connection left them. Downloads use `alt=media`; listings
///   ask only for the fields used and follow `nextPageToken`.
/// - Tokens: see `GoogleAccessTokens` and `GoogleDriveAPI` for refreshing and retrying.
public final class GoogleDriveStorage: CloudStorage, CustomStringConvertible, Sendable {
    /// Timeouts, retries and limits.
    public struct Options: Sendable {
        /// Seconds without any byte moving before a request fails.
        public var timeout: TimeInterval = 30
        /// When to try a failed request again (rate limits, 5xx, dropped connections).
        public var retry = HTTPRetryPolicy(maxAttempts: 6, baseDelay: 0.5, maxDelay: 32)
        /// Files up to this size go up in one multipart request; larger ones resumably.
        public var multipartLimit = 5 * 1024 * 1024
        /// A resumable upload sends its bytes in pieces of this size (Drive asks that every
        /// piece but the last be a multiple of 256 KiB): one piece in memory at a time.
        public var resumablePiece = 8 * 1024 * 1024
        /// The largest file `read` accepts, in bytes.
        public var maxFileBytes = 1 << 30
        /// Items per listing page (Drive allows up to 1,000).
        public var pageSize = 1000
        /// Files up to this size whose name ends in ".json" are kept in the index.
        public var cachedContentLimit = 64 * 1024
        /// Waits between retries (seconds); tests replace it.
        public var sleep: @Sendable (TimeInterval) -> Void = { Thread.sleep(forTimeInterval: $0) }

        /// The standard options.
        public init() {}

    }

    /// Drive's folder type.
    static let folderType = "application/vnd.google-apps.folder"

    /// Where the files are.
    public let space: GoogleDriveSpace
    let api: GoogleDriveAPI
    private let state: Mutex<State>

    private struct State {
        var index: DriveIndex
        /// True once this process brought the index up to date.
        var current = false
        var cache: (any CloudCache)?
    }

    /// Uses `space` in the Drive that `tokens` signs in to.
    public init(space: GoogleDriveSpace, tokens: GoogleAccessTokens, endpoints: GoogleDriveEndpoints, options: Options = Options()) {
        self.space = space
        api = GoogleDriveAPI(endpoints: endpoints, tokens: tokens, options: options)
        state = Mutex(State(index: DriveIndex(space: Self.key(space))))
    }

    /// "google drive (app data folder)" or "google drive folder Words".
    /// Google Drive's clock, from the `Date` of its latest answer.
    public var cloudNow: Timestamp? { api.serverNow }

    public var displayName: String {
        switch space {
        case .appData: "google drive (app data folder)"
        case .folder(let name): "google drive folder \(name)"
        }
    }

    /// The same as `displayName`: safe to print.
    public var description: String { displayName }

    /// Requests sent so far by kind ("files.list", "files.media", "upload.multipart",
    /// "changes.list" ...), every retry counted.
    public var requestCounts: [String: Int] { api.requestCounts }

    /// All requests sent so far (the token service's not included).
    public var requestCount: Int { requestCounts.values.reduce(0, +) }

    /// Sets the request counts back to zero.
    public func resetCounts() { api.resetCounts() }

    private static func key(_ space: GoogleDriveSpace) -> String {
        switch space {
        case .appData: "appdata"
        case .folder(let name): "folder:" + name
        }
    }

    var folderName: String? {
        if case .folder(let name) = space { return name }
        return nil
    }

    // MARK: - The index

    /// Brings the index up to date: the changes since the last sync, or a full listing
    /// the first time (or when Drive no longer knows the change token).
    public func beginPass(cache: (any CloudCache)?) throws {
        let index = state.withLock { state -> DriveIndex in
            if let cache, state.cache == nil {
                state.cache = cache
                if !state.current, let data = cache.load(), let saved = DriveIndex.decode(data, space: Self.key(space)) {
                    state.index = saved
                }
            }
            return state.index
        }
        var next = index
        var changed: Set<String> = []
        let applied = next.pageToken == nil ? false : try applyChanges(to: &next, changed: &changed)
        if !applied {
            try fullListing(into: &next)
        } else if next.listingToConfirm == true || !next.filesMissingFolders(among: changed, folderName: folderName).isEmpty
            || next.foldersAwaited != nil
        {
            // What the first listing may have missed: files it did not know are added;
            // removals come from the changes only.
            for (id, item) in try listEverything() where next.items[id] == nil { next.items[id] = item }
            next.listingToConfirm = nil
            // Those still without their folder are looked for again at the next sync. Not
            // while the app data folder's own id is unknown (this device has written nothing
            // there yet): every file at its top would count.
            let awaited = next.filesMissingFolders(among: changed.union(next.foldersAwaited ?? []), folderName: folderName)
            next.foldersAwaited = awaited.isEmpty || (folderName == nil && next.rootID == nil) ? nil : awaited.sorted()
        }
        try commit(next, from: index)
    }

    /// Makes sure the index was brought up to date once in this process.
    func ensureCurrent() throws {
        if state.withLock({ $0.current }) { return }
        try beginPass(cache: nil)
    }

    /// Stores `next` as the index (when nothing else changed it meanwhile) and saves it.
    private func commit(_ next: DriveIndex, from previous: DriveIndex?) throws {
        let cache = state.withLock { state -> (any CloudCache)? in
            state.index = next
            state.current = true
            return state.cache
        }
        guard let cache else { return }
        if let previous, previous.pageToken == next.pageToken, previous.listingToConfirm == next.listingToConfirm,
            previous.foldersAwaited == next.foldersAwaited, previous.items == next.items,
            previous.contents.mapValues(\.version) == next.contents.mapValues(\.version)
        {
            return
        }
        // Best effort: an index that cannot be saved costs a full listing next time.
        try? cache.save(next.encoded())
    }

    /// Changes the index with `body` and saves it.
    func mutate(_ body: (inout DriveIndex) -> Void) {
        var next = state.withLock { $0.index }
        body(&next)
        try? commit(next, from: nil)
    }

    var index: DriveIndex { state.withLock { $0.index } }

    /// Applies the changes since the index's token; false when Drive no longer knows the
    /// token (a full listing is needed).
    private func applyChanges(to index: inout DriveIndex, changed: inout Set<String>) throws -> Bool {
        guard var token = index.pageToken else { return false }
        var updated = index
        while true {
            let call = GoogleDriveAPI.Call(
                method: "GET", path: "/drive/v3/changes",
                query: [
                    ("pageToken", token), ("spaces", space.spacesParameter), ("pageSize", "\(api.options.pageSize)"),
                    ("includeRemoved", "true"),
                    ("fields", "nextPageToken,newStartPageToken,changes(fileId,removed,file(\(DriveIndex.Item.fields)))"),
                ], about: "/", kind: "changes.list")
            let answer = try api.send(call)
            if [400, 404, 410].contains(answer.status) { return false }
            guard answer.status == 200 else { throw api.failure(answer, call) }
            let object = try GoogleDriveAPI.object(answer, about: "/")
            for change in object["changes"] as? [[String: Any]] ?? [] {
                guard let id = change["fileId"] as? String ?? (change["file"] as? [String: Any])?["id"] as? String else { continue }
                let file = change["file"] as? [String: Any]
                if change["removed"] as? Bool == true || file?["trashed"] as? Bool == true {
                    updated.remove(id)
                } else if let file, let item = DriveIndex.Item(resource: file) {
                    updated.update(id: id, with: item)
                    changed.insert(id)
                }
            }
            if let next = object["nextPageToken"] as? String {
                token = next
                continue
            }
            guard let newToken = object["newStartPageToken"] as? String else {
                throw CloudError.failed(path: "/", reason: "Google Drive's list of changes has no next token")
            }
            updated.pageToken = newToken
            index = updated
            return true
        }
    }

    /// Lists every file of the space anew. The change token is taken first, so a file
    /// made during the listing shows up in the next changes.
    private func fullListing(into index: inout DriveIndex) throws {
        let tokenCall = GoogleDriveAPI.Call(
            method: "GET", path: "/drive/v3/changes/startPageToken", query: [("fields", "startPageToken")], about: "/",
            kind: "changes.startPageToken")
        guard let token = try api.json(tokenCall)["startPageToken"] as? String else {
            throw CloudError.failed(path: "/", reason: "Google Drive gave no change token")
        }
        let items = try listEverything()
        var fresh = DriveIndex(space: index.space)
        fresh.pageToken = token
        fresh.items = items
        fresh.contents = index.contents.filter { items[$0.key]?.version == $0.value.version }
        fresh.listingToConfirm = true
        // Still the app data folder's id while something in it says so (after a sign-in
        // to another account, nothing does).
        if let rootID = index.rootID, items.values.contains(where: { $0.parent == rootID }) { fresh.rootID = rootID }
        index = fresh
    }

    /// Every file and folder of the space that is not in the trash, page by page.
    private func listEverything() throws -> [String: DriveIndex.Item] {
        var items: [String: DriveIndex.Item] = [:]
        var pageToken: String?
        repeat {
            var query = [
                ("spaces", space.spacesParameter), ("q", "trashed = false"), ("pageSize", "\(api.options.pageSize)"),
                ("fields", "nextPageToken,files(\(DriveIndex.Item.fields))"),
            ]
            if let pageToken { query.append(("pageToken", pageToken)) }
            let object = try api.json(
                GoogleDriveAPI.Call(method: "GET", path: "/drive/v3/files", query: query, about: "/", kind: "files.list"))
            for file in object["files"] as? [[String: Any]] ?? [] {
                if let id = file["id"] as? String, let item = DriveIndex.Item(resource: file) { items[id] = item }
            }
            pageToken = object["nextPageToken"] as? String
        } while pageToken != nil
        return items
    }

    // MARK: - Paths

    func components(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    /// The folders at `folderPath` ("" is the MiDiccio folder), all same-named ones.
    func folderIDs(_ components: [String], in index: DriveIndex) -> [String] {
        index.folders(at: components, roots: index.roots(folderName: folderName))
    }

    /// The files at `path`, newest first.
    func fileIDs(_ path: String, in index: DriveIndex) -> [String] {
        var parts = components(path)
        guard let name = parts.popLast() else { return [] }
        let parents = folderIDs(parts, in: index)
        return index.children(of: parents, named: name, folders: false).sorted { a, b in
            let (x, y) = (index.items[a]!, index.items[b]!)
            return x.modified != y.modified ? x.modified > y.modified : a > b
        }
    }

    /// Asks Drive for files named like `path` in its folders: the index may have missed
    /// one (a listing Drive answered a moment early). Adds what it finds to the index.
    /// A file at the top of the app data folder is asked for by the folder's alias
    /// (`appDataFolder`) while its id is unknown (nothing listed there yet): a new device
    /// whose first listing missed every file took the Drive for one without MiDiccio data,
    /// started a second cloud there and never read the other device's words (found by the
    /// exploratory helper, round 22B #3).
    private func lookUp(_ path: String) throws -> [String] {
        var parts = components(path)
        guard let name = parts.popLast() else { return [] }
        var parents = folderIDs(parts, in: index)
        if parents.isEmpty && parts.isEmpty && folderName == nil { parents = ["appDataFolder"] }
        guard !parents.isEmpty else { return [] }
        let inParents = parents.map { "'\(Self.quoted($0))' in parents" }.joined(separator: " or ")
        let object = try api.json(
            GoogleDriveAPI.Call(
                method: "GET", path: "/drive/v3/files",
                query: [
                    ("spaces", space.spacesParameter), ("q", "name = '\(Self.quoted(name))' and trashed = false and (\(inParents))"),
                    ("fields", "files(\(DriveIndex.Item.fields))"), ("pageSize", "100"),
                ], about: path, kind: "files.list"))
        var found: [(String, DriveIndex.Item)] = []
        for file in object["files"] as? [[String: Any]] ?? [] {
            if let id = file["id"] as? String, let item = DriveIndex.Item(resource: file), !item.folder { found.append((id, item)) }
        }
        guard !found.isEmpty else { return [] }
        mutate { index in
            for (id, item) in found { index.update(id: id, with: item) }
        }
        return fileIDs(path, in: index)
    }

    /// A text for a `q` string literal.
    static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }

    // MARK: - CloudStorage

    /// The files directly in `folder`, from the index; one entry a name (the newest of
    /// same-named files).
    public func list(_ folder: String) throws -> [CloudEntry] {
        try ensureCurrent()
        let index = index
        var newest: [String: DriveIndex.Item] = [:]
        for (_, item) in index.files(in: folderIDs(components(folder), in: index)) {
            if let known = newest[item.name], known.modified >= item.modified { continue }
            newest[item.name] = item
        }
        return newest.map { CloudEntry(name: $0.key, size: $0.value.size) }.sorted { $0.name < $1.name }
    }

    /// The folders directly in `folder`, from the index; same-named folders count as one.
    public func folders(in folder: String) throws -> [String] {
        try ensureCurrent()
        let index = index
        let parents = Set(folderIDs(components(folder), in: index))
        return Set(index.items.values.filter { $0.folder && $0.parent.map(parents.contains) == true }.map(\.name)).sorted()
    }

    /// The file's bytes: from the index when it holds this version, else downloaded.
    public func read(_ path: String) throws -> Data? {
        try download(path, spillFrom: nil)?.body
    }

    /// The file as `read` finds it, except that a download of a megabyte or more (a
    /// snapshot) is kept in a temporary file as it arrives and handed over held open.
    public func readBytes(_ path: String) throws -> CloudBytes? {
        try download(path, spillFrom: CloudBytes.fileFrom)?.bytes
    }

    /// The file's contents as an answer: from the index when it holds this version, else
    /// downloaded (into a temporary file from `spillFrom` bytes on); nil when there is none.
    private func download(_ path: String, spillFrom: Int?) throws -> HTTPAnswer? {
        try ensureCurrent()
        var ids = fileIDs(path, in: index)
        if ids.isEmpty { ids = try lookUp(path) }
        var lookedUp = false
        while let id = ids.first {
            guard let item = index.items[id] else { return nil }
            if let content = index.contents[id], content.version == item.version {
                return HTTPAnswer(status: 200, headers: [:], body: content.data)
            }
            let answer = try api.send(
                GoogleDriveAPI.Call(
                    method: "GET", path: "/drive/v3/files/\(id)", query: [("alt", "media")], maxBody: api.options.maxFileBytes,
                    spillFrom: spillFrom, about: path, kind: "files.media"))
            switch answer.status {
            case 200:
                if path.hasSuffix(".json"), answer.spooled == nil, answer.body.count <= api.options.cachedContentLimit {
                    mutate { $0.contents[id] = DriveIndex.Content(version: item.version, data: answer.body) }
                }
                return answer
            case 404:
                // Removed since the index learnt of it: look again once.
                mutate { $0.remove(id) }
                ids.removeFirst()
                if ids.isEmpty && !lookedUp {
                    lookedUp = true
                    ids = try lookUp(path)
                }
            default:
                throw api.failure(answer, GoogleDriveAPI.Call(method: "GET", path: "", about: path, kind: ""))
            }
        }
        return nil
    }

    /// Updates the file by id when it exists, else makes it (and missing folders).
    public func write(_ path: String, _ data: Data) throws {
        try ensureCurrent()
        if let id = fileIDs(path, in: index).first {
            if try upload(.memory(data), path: path, updating: id) { return }
        }
        try createFile(path, .memory(data))
    }

    /// Makes the file only when nothing of that name is in its folder.
    public func create(_ path: String, _ data: Data) throws {
        try create(path, bytes: .memory(data))
    }

    /// `create` for bytes kept in a file (a large snapshot): a resumable upload reads
    /// them a piece at a time.
    public func create(_ path: String, bytes: CloudBytes) throws {
        try ensureCurrent()
        if !fileIDs(path, in: index).isEmpty { throw CloudError.exists(path: path) }
        try createFile(path, bytes)
    }

    /// Removes every file at `path` (same-named ones included); true when one existed.
    @discardableResult
    public func delete(_ path: String) throws -> Bool {
        try ensureCurrent()
        var removed = false
        for id in fileIDs(path, in: index) {
            let call = GoogleDriveAPI.Call(method: "DELETE", path: "/drive/v3/files/\(id)", about: path, kind: "files.delete")
            let answer = try api.send(call)
            switch answer.status {
            case 200, 204: removed = true
            case 404: break
            default: throw api.failure(answer, call)
            }
            mutate { $0.remove(id) }
        }
        return removed
    }

    /// Removes the MiDiccio folder and everything in it (for a visible folder, every
    /// folder of that name; for the app data folder, every file in it). For tests that
    /// run against a real Drive and must leave nothing behind.
    package func removeEverything() throws {
        try ensureCurrent()
        let index = index
        let top: [String]
        if folderName != nil {
            top = index.roots(folderName: folderName)
        } else {
            let roots = Set(index.roots(folderName: nil))
            top = index.items.compactMap { $0.value.parent.map(roots.contains) == true ? $0.key : nil }
        }
        for id in top {
            let call = GoogleDriveAPI.Call(method: "DELETE", path: "/drive/v3/files/\(id)", about: "/", kind: "files.delete")
            let answer = try api.send(call)
            guard [200, 204, 404].contains(answer.status) else { throw api.failure(answer, call) }
            mutate { $0.remove(id) }
        }
    }
}

extension GoogleDriveStorage {
    /// For a visible folder: every folder of its name, in Drive's Trash too, and whether
    /// any is inside another folder or in the Trash, said with what to do. A person who
    /// moved the folder, or put it in the Trash, was asked whether the library was signed
    /// in to another account, and told to start over, which left the folder behind with
    /// whatever only it held (found by the exploratory helper, round 26A #2). Nil for the
    /// app data folder, when Drive cannot be asked, or when no such folder is there.
    public func whereaboutsOfMissingFolder() -> String? {
        guard let folderName else { return nil }
        let query = "name = '\(Self.quoted(folderName))' and mimeType = '\(Self.folderType)'"
        guard
            let top = try? api.json(
                GoogleDriveAPI.Call(
                    method: "GET", path: "/drive/v3/files/root", query: [("fields", "id")], about: "/", kind: "files.get"))["id"]
                as? String,
            let object = try? api.json(
                GoogleDriveAPI.Call(
                    method: "GET", path: "/drive/v3/files",
                    query: [("spaces", "drive"), ("q", query), ("fields", "files(id,parents,trashed)"), ("pageSize", "100")],
                    about: "/", kind: "files.list"))
        else { return nil }
        let found = object["files"] as? [[String: Any]] ?? []
        if found.contains(where: { $0["trashed"] as? Bool == true }) {
            return "a folder \(folderName) is in Google Drive's Trash. If it is this one, restore it there (Trash, then Restore), "
                + "then sync again; nothing was changed here"
        }
        if found.contains(where: { !((($0["parents"] as? [String]) ?? []).contains(top)) }) {
            return "a folder \(folderName) is inside another folder of Google Drive, not at the top of My Drive where MiDiccio "
                + "keeps it. If it is this one (moved?), move it back to the top of My Drive, then sync again; nothing was changed here"
        }
        return nil
    }
}
