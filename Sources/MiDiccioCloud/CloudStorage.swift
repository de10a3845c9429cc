import Foundation
import MiDiccioFiles
import MiDiccioModel

/// One file in cloud storage, as a listing reports it.
public struct CloudEntry: Hashable, Sendable {
    /// The file's name inside the listed folder (no slashes).
    public var name: String
    /// Its size in bytes.
    public var size: Int

    /// Makes an entry.
    public init(name: String, size: Int) {
        self.name = name
        self.size = size
    }
}

/// Paths taken apart, for back ends that keep files by path rather than in folders.
public enum CloudPaths {
    /// The names of the folders directly inside `folder` that hold any of `paths`, sorted.
    public static func folders(in folder: String, holding paths: some Sequence<String>) -> [String] {
        let prefix = folder.isEmpty ? "" : folder + "/"
        var names = Set<String>()
        for path in paths where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            if let slash = rest.firstIndex(of: "/"), slash != rest.startIndex { names.insert(String(rest[..<slash])) }
        }
        return names.sorted()
    }
}

/// Why a cloud operation failed.
public enum CloudError: Error, Sendable, CustomStringConvertible {
    /// The storage cannot be used now (offline, unmounted, a server down or failing); try
    /// later. Said as "not available now", whatever the reason: a server that answers
    /// 500 was reached.
    case unavailable(String)
    /// The storage refused the credentials.
    case unauthorized(String)
    /// Anything else, with the path involved.
    case failed(path: String, reason: String)
    /// One file cannot be read (no permission, not a regular file, a link out of the
    /// folder): sync reports it and skips it like a damaged file; the rest goes on.
    case unreadable(path: String, reason: String)
    /// An exclusive `create` found something already at the path.
    case exists(path: String)
    /// The storage no longer accepts this device's sign-in; the text says how to sign
    /// in again.
    case signInNeeded(String)
    /// The server answered, but the place the remote names is not there and cannot be
    /// made (a WebDAV URL under a folder that does not exist); the text says which part
    /// is missing. Not a passing failure: the remote's address needs changing.
    case notThere(String)

    /// True when a write that failed so left nothing at its path: the cloud answered with
    /// a refusal (access, a missing folder, a read-only folder, a full quota, a file there).
    /// False when it may have taken the file before the answer went missing (`unavailable`:
    /// a timeout, a dropped connection, a server error).
    public var nothingWritten: Bool {
        switch self {
        case .unavailable, .unreadable: false
        case .unauthorized, .failed, .exists, .signInNeeded, .notThere: true
        }
    }

    public var description: String {
        switch self {
        case .unavailable(let reason): "the cloud is not available now: \(reason)"
        case .unauthorized(let reason): "the cloud refused access: \(reason)"
        // A failure of the whole request (a quota, a listing, a refusal of the account) names
        // no file: "cloud file /:" made it read as one (found by the exploratory helper, round 19A).
        case .failed(let path, let reason): path.isEmpty || path == "/" ? "the cloud: \(reason)" : "cloud file \(path): \(reason)"
        case .unreadable(let path, let reason): "cloud file \(path) cannot be read: \(reason)"
        case .exists(let path): "cloud file \(path) already exists"
        case .signInNeeded(let message): message
        case .notThere(let reason): "the cloud folder is not there: \(reason)"
        }
    }
}

/// A cloud file's bytes, as a back end hands them over.
public enum CloudBytes: Sendable {
    /// Read whole into memory.
    case memory(Data)
    /// Held open, to be read a piece at a time (a synced folder's file): a snapshot of a
    /// million words never sits whole in memory.
    case file(OpenedFile)

    /// From this size on, a cloud file's bytes are held in a file rather than in memory:
    /// a download a back end hands over, a snapshot being written. Smaller ones (change
    /// files, device records) stay in memory, so a sync reading hundreds of them never
    /// holds as many descriptors.
    public static let fileFrom = 1 << 20

    /// How many bytes there are.
    public var count: Int {
        switch self {
        case .memory(let data): data.count
        case .file(let file): file.size
        }
    }

    /// True when the bytes are held in a file.
    public var isFile: Bool {
        if case .file = self { return true }
        return false
    }

    /// All the bytes in memory: a file is read whole (for a back end that sends a body
    /// from memory only).
    public func wholeData() throws -> Data {
        try piece(at: 0, count: count)
    }

    /// True when `other` holds the same bytes, compared a megabyte at a time.
    public func sameBytes(as other: CloudBytes) throws -> Bool {
        guard count == other.count else { return false }
        var offset = 0
        while offset < count {
            let length = min(Self.fileFrom, count - offset)
            guard try piece(at: offset, count: length) == other.piece(at: offset, count: length) else { return false }
            offset += length
        }
        return true
    }

    /// The `count` bytes from `offset` on; throws when a file ends before them.
    public func piece(at offset: Int, count: Int) throws -> Data {
        switch self {
        case .memory(let data):
            if offset == 0 && count == data.count { return data }
            let start = data.index(data.startIndex, offsetBy: offset)
            return Data(data[start..<data.index(start, offsetBy: count)])
        case .file(let file):
            let piece = try file.bytes(at: offset, count: count)
            guard piece.count == count else {
                throw FileError(path: file.path, reason: "ended after \(offset + piece.count) of \(file.size) bytes")
            }
            return piece
        }
    }

    /// Hands the bytes to `body` in order, at most `size` at a time: a file is read a
    /// piece at a time, never whole.
    public func forEachPiece(size: Int = 1 << 20, _ body: (Data) throws -> Void) throws {
        if case .memory(let data) = self { return try body(data) }
        var offset = 0
        while offset < count {
            let piece = try piece(at: offset, count: min(size, count - offset))
            try body(piece)
            offset += piece.count
        }
    }

    /// True when `other` holds the same bytes, compared a megabyte at a time.
    public func hasSameBytes(as other: CloudBytes) throws -> Bool {
        guard count == other.count else { return false }
        var offset = 0
        while offset < count {
            let size = min(1 << 20, count - offset)
            guard try piece(at: offset, count: size) == other.piece(at: offset, count: size) else { return false }
            offset += size
        }
        return true
    }

    /// Copies up to `buffer.count` bytes from `offset` into `buffer`; returns how many.
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        switch self {
        case .memory(let data):
            let count = max(0, min(buffer.count, data.count - offset))
            guard count > 0 else { return 0 }
            let start = data.index(data.startIndex, offsetBy: offset)
            data.copyBytes(to: buffer.bindMemory(to: UInt8.self), from: start..<start + count)
            return count
        case .file(let file):
            return try file.read(at: offset, into: buffer)
        }
    }
}

/// The only way sync reaches storage: a few operations on paths relative to the
/// MiDiccio folder ("devices/abc.json"). WebDAV, Google Drive and others plug in here.
///
/// Implementations should make `write` atomic (a reader sees the old file or the whole
/// new one); readers check every file anyway (checksums, a full parse) and skip one
/// caught half written. They may not rely on conditional requests: each device writes
/// only its own files, and names carry random parts, so two writers never meet.
public protocol CloudStorage: AnyObject {
    /// The files directly inside `folder` ("" is the root); [] when the folder is missing.
    func list(_ folder: String) throws -> [CloudEntry]
    /// The names of the folders directly inside `folder`; [] when the folder is missing.
    /// Sync lists `changes` and `snapshots` with it, for the folders of a device whose
    /// record never arrived (`SyncSession.findStrayFiles`).
    func folders(in folder: String) throws -> [String]
    /// The file's bytes, or nil when it does not exist.
    func read(_ path: String) throws -> Data?
    /// The file's bytes as `read` gives them, or, from a back end that can, the file held
    /// open to be read a piece at a time: sync reads snapshots this way. Nil when the file
    /// does not exist.
    func readBytes(_ path: String) throws -> CloudBytes?
    /// Creates or replaces the file (and any missing folders), atomically.
    func write(_ path: String, _ data: Data) throws
    /// Creates the file only if nothing is at `path` (throwing `CloudError.exists`),
    /// atomically. Back ends that cannot check write it like `write`: every name sync
    /// creates this way carries a random part, so the check is a second line of defence.
    func create(_ path: String, _ data: Data) throws
    /// `create` for bytes that may be held in a file (a large snapshot): a back end that
    /// can copy or send them a piece at a time does, so they never sit whole in memory;
    /// the others read them whole and `create` them.
    func create(_ path: String, bytes: CloudBytes) throws
    /// Removes the file; removing a missing file is not an error. Returns true when the
    /// file existed.
    @discardableResult
    func delete(_ path: String) throws -> Bool
    /// Removes every file of `paths`, as `delete` does, and returns how many existed.
    /// Back ends that can remove several files in one request (iCloud) do so.
    @discardableResult
    func deleteAll(_ paths: [String]) throws -> Int
    /// A description for people, without credentials ("folder /home/ana/Dropbox/MiDiccio").
    var displayName: String { get }
    /// The time now by the cloud's own clock, as its latest answer told it (an HTTP
    /// server's `Date`), or nil when the back end has no clock of its own (a folder:
    /// its files' times come from this computer's clock or the device that wrote them).
    var cloudNow: Timestamp? { get }
    /// Called once before each sync or status: a back end that keeps a picture of the
    /// cloud between syncs (Google Drive's file ids) brings it up to date here, and keeps
    /// it in `cache`, which the library holds for it.
    func beginPass(cache: (any CloudCache)?) throws
    /// True after a `beginPass` that found the cloud this back end knew deleted or
    /// replaced: what this device read and wrote there may be gone (iCloud: the zone was
    /// deleted, or CloudKit no longer knows the sync token it gave). Sync then starts
    /// over there: every word uploaded once, everything read again.
    var cloudWasReplaced: Bool { get }
    /// Where the cloud's folder may have gone, for people, when a cloud this device synced
    /// with has no manifest now: a back end that can see it moved or in a trash says so and
    /// what to do (Google Drive's visible folder). Nil when it cannot tell.
    func whereaboutsOfMissingFolder() -> String?
}

/// A place in the library where a back end keeps what it knows of the cloud between
/// syncs (file ids, a change token). Only a cache: a back end must work, more slowly,
/// when it is empty, and must check what it finds there.
public protocol CloudCache: AnyObject, Sendable {
    /// What was saved last, or nil.
    func load() -> Data?
    /// Replaces what is saved.
    func save(_ data: Data) throws
}

extension CloudStorage {
    /// Most back ends cannot tell where a folder went.
    public func whereaboutsOfMissingFolder() -> String? { nil }

    /// Back ends that cannot hand over an open file read it whole.
    public func readBytes(_ path: String) throws -> CloudBytes? {
        try read(path).map(CloudBytes.memory)
    }

    /// Back ends that keep nothing between syncs do nothing here.
    public func beginPass(cache: (any CloudCache)?) throws {}

    /// Back ends that keep nothing between syncs cannot tell.
    public var cloudWasReplaced: Bool { false }

    /// Removes the files one at a time.
    @discardableResult
    public func deleteAll(_ paths: [String]) throws -> Int {
        var removed = 0
        for path in paths where try delete(path) { removed += 1 }
        return removed
    }

    /// Writes the file like `write`, for back ends that cannot create exclusively.
    public func create(_ path: String, _ data: Data) throws {
        try write(path, data)
    }

    /// Reads the bytes whole and `create`s the file with them.
    public func create(_ path: String, bytes: CloudBytes) throws {
        try create(path, try bytes.wholeData())
    }
}
