import Foundation
import MiDiccioFiles
import MiDiccioModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Cloud storage in a local folder that another program syncs (Dropbox, Google Drive
/// for desktop, iCloud Drive, OneDrive, Nextcloud's client, Syncthing) or a shared disk.
///
/// Writes go to a hidden temporary file in the same folder, flushed to disk, and are
/// renamed into place, so neither a reader nor the sync client ever sees half a file;
/// `create` publishes with a hard link, which fails when the name is taken.
///
/// The folder is shared with other programs and other people's devices, so reading
/// trusts nothing in it: a file that cannot be read, a folder, a pipe or device where a
/// file should be, or a link that leads out of the folder or loops is reported as
/// unreadable (sync skips it like a damaged file), never followed out of the folder and
/// never waited on.
public final class FolderStorage: CloudStorage {
    /// The folder that holds the MiDiccio files.
    public let root: String
    /// The largest file `read` accepts, in bytes.
    public var maxFileBytes = 1 << 30
    /// From this size on, `readBytes` hands a file over held open instead of read whole
    /// (`CloudBytes.fileFrom`; tests lower it).
    public var heldOpenFrom = CloudBytes.fileFrom

    /// Uses `root` (created on the first write when missing).
    public init(root: String) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
    }

    public var displayName: String { "folder \(root)" }

    /// None: a folder's file times come from this computer's clock, or from the clock of
    /// the device that wrote each file, which a sync program keeps.
    public var cloudNow: Timestamp? { nil }

    /// True when a folder is at `root` (a drive not mounted, or a folder moved away, has none).
    public var rootIsThere: Bool {
        var status = stat()
        return stat(root, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// Why a folder cannot be set as the one to sync through; `description` says it to a
    /// person, with the path.
    public struct SetupError: Error, CustomStringConvertible {
        /// What is wrong, with the path.
        public let description: String
    }

    /// Makes the MiDiccio folder `path` inside a folder that exists (~/Dropbox/MiDiccio),
    /// when it is not there yet. Refuses a file in its place, and a path whose parent is
    /// missing: most likely a typo, or a drive that is not plugged in, where a sync would
    /// later report the cloud unreachable. What the command line and the web app check
    /// before they set a folder remote.
    public static func prepare(_ path: String) throws(SetupError) {
        // stat(2) rather than FileManager's ObjCBool, which is the older Foundation's.
        func isFolder(_ status: stat) -> Bool { status.st_mode & S_IFMT == S_IFDIR }
        if let status = FileSystem.status(path) {
            guard isFolder(status) else { throw SetupError(description: "\(path) is a file, not a folder") }
            try checkWritable(path)
            return
        }
        let parent = FileSystem.parent(of: path)
        guard let status = FileSystem.status(parent), isFolder(status) else {
            throw SetupError(description: "the folder \(parent) does not exist; check the path (or plug in the drive) and try again")
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        } catch {
            throw SetupError(description: "cannot create \(path): \(FileSystem.describe(error))")
        }
    }

    /// Refuses a folder no file can be made in (no permission, a read-only disk, a system
    /// folder such as /proc), which was set without a word and failed at every sync
    /// (found by the exploratory helper, round 8): a file is made there and removed.
    private static func checkWritable(_ path: String) throws(SetupError) {
        let probe = path + "/.midiccio-write-check-\(getpid())"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw SetupError(description: "cannot write in \(path) (\(reason)); choose a folder you can write in")
        }
        close(descriptor)
        unlink(probe)
    }

    private func full(_ path: String) -> String { path.isEmpty ? root : root + "/" + path }

    private func checkRoot() throws {
        let parent = FileSystem.parent(of: root)
        guard FileManager.default.fileExists(atPath: root) || FileManager.default.fileExists(atPath: parent) else {
            throw CloudError.unavailable("\(root) does not exist (is the drive or sync folder mounted?)")
        }
    }

    /// Every entry directly in `folder` except sub-folders that do not look like files,
    /// with its size (0 for anything that is not a regular file). Entries that are not
    /// regular files are listed so that a reader tries them and reports them.
    public func list(_ folder: String) throws -> [CloudEntry] {
        try checkRoot()
        let path = full(folder)
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw CloudError.failed(path: folder, reason: "cannot be listed: \(FileSystem.describe(error))")
        }
        return names.compactMap { name in
            var status = stat()
            guard lstat(path + "/" + name, &status) == 0 else { return nil }
            let type = status.st_mode & S_IFMT
            // A folder named like a MiDiccio file is listed so that it gets reported;
            // other folders are simply not files.
            if type == S_IFDIR && !name.utf8.contains(UInt8(ascii: ".")) { return nil }
            return CloudEntry(name: name, size: type == S_IFREG ? Int(status.st_size) : 0)
        }
    }

    /// The real folders directly in `folder` (a link to one is not followed).
    public func folders(in folder: String) throws -> [String] {
        try checkRoot()
        let path = full(folder)
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path).filter { name in
                var status = stat()
                return lstat(path + "/" + name, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
            }.sorted()
        } catch {
            throw CloudError.failed(path: folder, reason: "cannot be listed: \(FileSystem.describe(error))")
        }
    }

    public func read(_ path: String) throws -> Data? {
        try opened(path).map { try read($0, path) }
    }

    /// The whole of `file`, opened from `path`. A file that shrank while it was read is
    /// taken as read so far: its checksum or parse decides whether it is whole.
    private func read(_ file: OpenedFile, _ path: String) throws -> Data {
        try unreadable(path) { try file.bytes(at: 0, count: file.size) }
    }

    /// A file of `heldOpenFrom` bytes or more held open, to be read a piece at a time (a
    /// snapshot); a smaller one read whole, so that a sync reading many small change
    /// files never holds as many descriptors.
    public func readBytes(_ path: String) throws -> CloudBytes? {
        guard let file = try opened(path) else { return nil }
        guard file.size >= heldOpenFrom else { return .memory(try read(file, path)) }
        return .file(file)
    }

    /// The file at `path` opened for reading, after the checks every read makes; nil when
    /// there is none.
    private func opened(_ path: String) throws -> OpenedFile? {
        try checkRoot()
        let file = full(path)
        var status = stat()
        guard lstat(file, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw CloudError.unreadable(path: path, reason: FileSystem.errorText(errno))
        }
        var target = file
        if (status.st_mode & S_IFMT) == S_IFLNK {
            target = try resolveLinkInside(path, file)
        }
        // O_NONBLOCK: a pipe put where a file should be must not hang the sync.
        let descriptor = open(target, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw CloudError.unreadable(path: path, reason: FileSystem.errorText(errno))
        }
        var handedOver = false
        defer { if !handedOver { close(descriptor) } }
        guard fstat(descriptor, &status) == 0 else {
            throw CloudError.unreadable(path: path, reason: FileSystem.errorText(errno))
        }
        switch status.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw CloudError.unreadable(path: path, reason: "a folder is where a file should be")
        default: throw CloudError.unreadable(path: path, reason: "it is not a regular file")
        }
        guard status.st_size <= maxFileBytes else {
            throw CloudError.unreadable(path: path, reason: "it is larger than \(maxFileBytes / 1_048_576) MB")
        }
        handedOver = true
        return OpenedFile(descriptor: descriptor, path: path, size: Int(status.st_size))
    }

    /// Runs `body`, reporting a failed read as this file's being unreadable.
    private func unreadable<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FileError {
            throw CloudError.unreadable(path: path, reason: error.reason)
        }
    }

    /// The real path a symbolic link leads to, when it stays inside the cloud folder.
    private func resolveLinkInside(_ path: String, _ file: String) throws -> String {
        guard let target = FileSystem.realPath(file) else {
            let reason = errno == ELOOP ? "it is a link that loops" : "it is a link to nothing (\(FileSystem.errorText(errno)))"
            throw CloudError.unreadable(path: path, reason: reason)
        }
        guard let base = FileSystem.realPath(root) else {
            throw CloudError.unavailable("\(root) cannot be resolved (\(FileSystem.errorText(errno)))")
        }
        guard target.hasPrefix(base == "/" ? "/" : base + "/") else {
            throw CloudError.unreadable(path: path, reason: "it is a link to somewhere outside the cloud folder, which is never followed")
        }
        return target
    }

    public func write(_ path: String, _ data: Data) throws {
        try checkRoot()
        do {
            try FileSystem.writeAtomically(data, to: full(path))
        } catch let error as FileError {
            throw CloudError.failed(path: path, reason: error.reason)
        }
    }

    public func create(_ path: String, _ data: Data) throws {
        try create(path, bytes: .memory(data))
    }

    /// Copies the bytes a megabyte at a time: a snapshot kept in a temporary file is
    /// never read whole.
    public func create(_ path: String, bytes: CloudBytes) throws {
        try checkRoot()
        do {
            try FileSystem.writeAtomically(to: full(path), exclusive: true) { write in try bytes.forEachPiece(write) }
        } catch let error as FileError {
            if error.isExists { throw CloudError.exists(path: path) }
            throw CloudError.failed(path: path, reason: error.reason)
        }
    }

    @discardableResult
    public func delete(_ path: String) throws -> Bool {
        let file = full(path)
        var status = stat()
        guard lstat(file, &status) == 0 else { return false }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            // Never a folder: only files MiDiccio wrote are removed.
            throw CloudError.failed(path: path, reason: "cannot be removed: it is a folder")
        }
        guard unlink(file) == 0 else {
            if errno == ENOENT { return false }
            throw CloudError.failed(path: path, reason: "cannot be removed (\(FileSystem.errorText(errno)))")
        }
        return true
    }
}
