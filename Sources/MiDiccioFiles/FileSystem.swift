import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file operation that failed: the file and what went wrong, for people.
public struct FileError: Error, Sendable, CustomStringConvertible {
    /// The file or folder involved.
    public var path: String
    /// What went wrong ("cannot be read (check its permissions)").
    public var reason: String

    /// Makes an error naming `path`.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }

    /// Something is already at `path` (an exclusive write found its name taken).
    public static func exists(_ path: String) -> FileError {
        FileError(path: path, reason: "already exists")
    }

    /// True when this is the error `exists(_:)` makes.
    public var isExists: Bool { reason == "already exists" }
}

/// The few file operations MiDiccio needs, with errors that name the file.
package enum FileSystem {
    /// The whole file.
    package static func read(_ path: String) throws -> Data {
        guard FileManager.default.fileExists(atPath: path) else {
            throw FileError(path: path, reason: "no such file")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FileError(path: path, reason: "cannot be read: \(describe(error))")
        }
    }

    /// The first `count` bytes of the file at `path` (fewer when it is shorter).
    package static func readPrefix(_ path: String, count: Int) throws -> Data {
        Data(try ChunkReader(path, size: max(1, count)).next() ?? [])
    }

    /// The 16 bytes every SQLite database file begins with.
    package static let sqliteSignature = Array("SQLite format 3\u{0}".utf8)

    /// Whether the file at `path` begins with `sqliteSignature`. Never ask it of a library
    /// this process has open in SQLite: closing the descriptor it reads through drops
    /// SQLite's locks on that file.
    package static func beginsAsSQLite(_ path: String) -> Bool {
        (try? readPrefix(path, count: sqliteSignature.count)).map { Array($0) == sqliteSignature } ?? false
    }

    /// The file at `path` as text, or nil when it is not valid UTF-8. It is read a
    /// megabyte at a time into one string, so a large file is held once, never both as
    /// bytes and as text.
    package static func readUTF8Text(_ path: String) throws -> String? {
        let reader = try ChunkReader(path)
        var text = ""
        if let size = status(path)?.st_size { text.reserveCapacity(Int(size)) }
        // A character cut by the end of a chunk waits for the next one.
        var pending: [UInt8] = []
        while let chunk = try reader.next() {
            pending += chunk
            let cut = completeUTF8Prefix(pending)
            guard let part = String(validating: pending[..<cut], as: UTF8.self) else { return nil }
            text += part
            pending.removeFirst(cut)
        }
        return pending.isEmpty ? text : nil
    }

    /// What one pass over a text found (`scanUTF8Text`, or `add` over text in memory).
    package struct TextScan: Sendable, Equatable {
        /// Line feeds in the text.
        package var lineFeeds = 0
        /// Its last byte; nil for an empty text.
        package var lastByte: UInt8?
        /// Whether a NUL byte is anywhere in it (a binary file).
        package var hasNUL = false

        /// A scan of nothing yet.
        package init() {}

        /// Counts the next bytes of the text.
        package mutating func add(_ bytes: some BidirectionalCollection<UInt8>) {
            for byte in bytes {
                if byte == 0x0A { lineFeeds += 1 } else if byte == 0 { hasNUL = true }
            }
            lastByte = bytes.last ?? lastByte
        }

        /// Its lines: the line feeds, and one more for a last line without one.
        package var lines: Int { lineFeeds + (lastByte == nil || lastByte == 0x0A ? 0 : 1) }
    }

    /// Reads the file at `path` a megabyte at a time, checking that it is UTF-8 and
    /// counting its line feeds; nil when it is not UTF-8. Holds a megabyte at a time,
    /// whatever the file's size.
    package static func scanUTF8Text(_ path: String) throws -> TextScan? {
        let reader = try ChunkReader(path)
        var scan = TextScan()
        var pending: [UInt8] = []
        while let chunk = try reader.next() {
            scan.add(chunk)
            pending += chunk
            let cut = completeUTF8Prefix(pending)
            guard String(validating: pending[..<cut], as: UTF8.self) != nil else { return nil }
            pending.removeFirst(cut)
        }
        return pending.isEmpty ? scan : nil
    }

    /// Reads a file a piece at a time: `next()` gives its next bytes, nil at its end.
    /// A descriptor of its own and read(2), not `FileHandle`, which lives in the part of
    /// Foundation the everyday binary leaves out (README, "Start-up").
    package final class ChunkReader {
        private let descriptor: Int32
        private let path: String
        private let size: Int

        /// Opens the file at `path` for reading `size` bytes at a time, from byte `offset`.
        package init(_ path: String, size: Int = 1 << 20, from offset: Int = 0) throws {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                let code = errno
                throw FileError(
                    path: path,
                    reason: code == ENOENT
                        ? "no such file"
                        : code == EACCES ? "cannot be read (check its permissions)" : "cannot be read: \(errorText(code))")
            }
            if offset > 0 && lseek(descriptor, off_t(offset), SEEK_SET) < 0 {
                let code = errno
                close(descriptor)
                throw FileError(path: path, reason: "cannot be read: \(errorText(code))")
            }
            self.descriptor = descriptor
            self.path = path
            self.size = size
        }

        deinit { close(descriptor) }

        /// The next bytes of the file (at most `size`, fewer only at its end), or nil at
        /// its end.
        package func next() throws -> [UInt8]? {
            var chunk = [UInt8](repeating: 0, count: size)
            var filled = 0
            while filled < size {
                let count = chunk.withUnsafeMutableBytes { raw in
                    FileSystem.readSome(descriptor, into: raw.baseAddress! + filled, count: size - filled)
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw FileError(path: path, reason: "cannot be read: \(errorText(errno))")
                }
                if count == 0 { break }
                filled += count
            }
            guard filled > 0 else { return nil }
            chunk.removeLast(size - filled)
            return chunk
        }
    }

    /// How many of `bytes` come before a character the end of `bytes` cuts short.
    package static func completeUTF8Prefix(_ bytes: [UInt8]) -> Int {
        var start = bytes.count
        // Step back over at most three continuation bytes (10xxxxxx) to the lead byte.
        while start > 0 && bytes.count - start < 4 && bytes[start - 1] & 0xC0 == 0x80 { start -= 1 }
        guard start > 0 else { return bytes.count }
        let lead = bytes[start - 1]
        let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        // Complete, or not a character at all (validation says so): keep everything.
        return bytes.count - (start - 1) < length ? start - 1 : bytes.count
    }

    /// Writes `data` to a hidden temporary file beside `path` (flushed to disk), then
    /// renames it over `path`, so nobody ever sees half a file. With `exclusive`, the
    /// file is published only if nothing is at `path` yet (a hard link, which fails when
    /// the name is taken), and `FileError.exists` says when something was. With
    /// `ownerOnly`, the file is readable and writable by its owner only (mode 0600, set
    /// before any byte is written, whatever the umask).
    /// The bytes of the file at `path`, or nil when there is none; a file that cannot be
    /// read is an error that says to check its permissions (and nothing of its content).
    package static func contentsIfPresent(_ path: String) throws -> Data? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError(path: path, reason: "cannot be read (check its permissions)")
        }
        return data
    }

    /// The bytes of a file that holds a secret (a password, a token), or nil when it is
    /// missing. A file that others may read (copied without its mode, say) is made
    /// owner-only (0600) first: it was used as it was (found by the exploratory helper,
    /// round 7). A symbolic link is read, never changed.
    package static func secretContentsIfPresent(_ path: String) throws -> Data? {
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_mode & 0o077 != 0 { _ = chmod(path, 0o600) }
        return try contentsIfPresent(path)
    }

    /// Removes the file at `path`; no file is not an error.
    package static func removeIfPresent(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw FileError(path: path, reason: "cannot be removed: \(describe(error))")
        }
    }

    /// Writes `data` to `path` so that readers see the old file or the new one, never a
    /// part: a temporary file beside it, flushed to disk, then renamed over it. With
    /// `exclusive`, an existing file is not replaced (`FileError.exists`); with `ownerOnly`,
    /// the file is readable by its owner only.
    package static func writeAtomically(_ data: Data, to path: String, exclusive: Bool = false, ownerOnly: Bool = false) throws {
        try writeAtomically(to: path, exclusive: exclusive, ownerOnly: ownerOnly) { write in try write(data) }
    }

    /// Like `writeAtomically(_:to:)`, for a file written in pieces: `body` hands each piece
    /// to the function it is given, in order, as small as it likes (they are gathered and
    /// written a megabyte at a time). The file appears whole at `path`, or not at all when
    /// `body` or a write throws.
    package static func writeAtomically(
        to path: String, exclusive: Bool = false, ownerOnly: Bool = false, _ body: (_ write: (Data) throws -> Void) throws -> Void
    ) throws {
        let directory = parent(of: path)
        try createDirectory(directory)
        let temporary = directory + "/" + temporaryName(for: URL(fileURLWithPath: path).lastPathComponent)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, ownerOnly ? 0o600 : 0o666)
        guard descriptor >= 0 else {
            throw FileError(path: path, reason: "cannot be written (\(errorText(errno)))")
        }
        var failure: String?
        // open(2)'s mode is narrowed by the umask; fchmod makes it exactly owner-only.
        if ownerOnly, fchmod(descriptor, 0o600) != 0 { failure = "cannot be made private: \(errorText(errno))" }
        if failure == nil {
            var gathered = Data()
            func flush() throws {
                if let problem = writeAll(gathered, to: descriptor) {
                    throw FileError(path: path, reason: "cannot be written (\(problem))")
                }
                gathered.removeAll(keepingCapacity: true)
            }
            do {
                try body { data in
                    gathered.append(data)
                    if gathered.count >= 1 << 20 { try flush() }
                }
                try flush()
            } catch {
                close(descriptor)
                unlink(temporary)
                throw error
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = errorText(errno) }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw FileError(path: path, reason: "cannot be written (\(failure))")
        }
        defer { unlink(temporary) }
        if exclusive {
            if link(temporary, path) == 0 { return }
            let code = errno
            if code == EEXIST { throw FileError.exists(path) }
            // File systems without hard links (some network and cloud mounts): check,
            // then rename. The names written this way carry a random part, so the
            // check is a second line of defence, not the only one.
            guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP || code == EXDEV || code == EMLINK else {
                throw FileError(path: path, reason: "cannot be written (\(errorText(code)))")
            }
            var status = stat()
            if lstat(path, &status) == 0 { throw FileError.exists(path) }
        }
        // rename(2) replaces the target atomically on POSIX systems.
        guard rename(temporary, path) == 0 else {
            throw FileError(path: path, reason: "cannot be replaced (\(errorText(errno)))")
        }
    }

    /// Writes all of `data` to `descriptor`, again after a short write or an interrupt;
    /// the system's words for a failure, or nil.
    package static func writeAll(_ data: Data, to descriptor: Int32) -> String? {
        data.withUnsafeBytes { raw -> String? in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errorText(errno)
                }
                offset += written
            }
            return nil
        }
    }

    /// Writes all of `bytes` to `descriptor` at `offset` (pwrite(2), the file position
    /// unmoved); the system's words for a failure, or nil.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, at offset: Int) -> String? {
        var done = 0
        while done < bytes.count {
            let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if written < 0 {
                if errno == EINTR { continue }
                return errorText(errno)
            }
            done += written
        }
        return nil
    }

    /// A new file without a name in the temporary folder ($TMPDIR, else /tmp), open for
    /// reading and writing and owner-only: it is gone once its descriptor is closed, even
    /// after a crash. A large download is kept in one instead of in memory.
    package static func anonymousFile() throws -> Int32 {
        let (descriptor, path) = try temporaryFile(in: temporaryFolder, prefix: ".midiccio-")
        unlink(path)
        return descriptor
    }

    /// The temporary folder: $TMPDIR, else /tmp.
    package static var temporaryFolder: String {
        ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// A new, empty, owner-only file in `folder` named `prefix` and six random characters:
    /// its descriptor (open for reading and writing) and its path.
    package static func temporaryFile(in folder: String, prefix: String) throws -> (descriptor: Int32, path: String) {
        var template = Array("\(folder)/\(prefix)XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw FileError(path: folder, reason: errorText(errno)) }
        return (descriptor, String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// read(2), under a name no `read` method of a caller's type shadows.
    package static func readSome(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #else
        Darwin.read(descriptor, buffer, count)
        #endif
    }

    /// Removes what processes that ended without cleaning up (killed, or the computer
    /// switched off) left in the temporary folder `folder`: files and folders named
    /// `prefix`, a process id, a dash, then anything, whose process no longer runs. One
    /// whose process still runs, or whose name holds no process id, is left alone; one of
    /// another user cannot be removed. Each can hold a copy of someone's words.
    package static func removeLeftoversOfEndedProcesses(in folder: String, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) && processEnded(naming: name.dropFirst(prefix.count)) == true {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    /// For a name part that begins with a process id and a dash (as this process's
    /// temporary files are named): true when that process no longer runs, false when it
    /// does (this one, or another user's); nil when the part names no process.
    private static func processEnded(naming part: Substring) -> Bool? {
        guard let dash = part.firstIndex(of: "-"), let pid = pid_t(part[..<dash]), pid > 0 else { return nil }
        // ESRCH: no such process. EPERM means one runs, of another user.
        return pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
    }

    /// The hidden temporary name `writeAtomically` uses for `name`: a dot, the name, this
    /// process's id and a random part, and `.tmp`, which no reader takes for a MiDiccio file.
    package static func temporaryName(for name: String) -> String {
        ".\(name).\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16)).tmp"
    }

    /// Removes the temporary files `writeAtomically` left beside `path` in processes that
    /// ended before they were done (killed, or the power lost), and those an earlier
    /// MiDiccio named without its process id, a day old or more. A killed export left a
    /// hidden copy of the words beside the backup for good, one more each time (found by
    /// the exploratory helper, round 16C). Only for files no other computer writes (an
    /// export): a process id means nothing across computers sharing a synced folder.
    package static func removeLeftoverTemporaries(of path: String) {
        let folder = parent(of: path), prefix = "." + URL(fileURLWithPath: path).lastPathComponent + "."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let dayAgo = Int64(time(nil)) - 86_400
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let middle = name.dropFirst(prefix.count).dropLast(".tmp".count)
            let full = folder + "/" + name
            if let ended = processEnded(naming: middle) {
                guard ended else { continue }
            } else {
                guard !middle.contains(Character("-")), let stamp = stamp(full), stamp.modifiedSeconds < dayAgo else { continue }
            }
            try? FileManager.default.removeItem(atPath: full)
        }
    }

    /// True when `name` is one `temporaryName(for:)` made.
    package static func isTemporaryName(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp")
    }

    /// The folder SQLite writes its temporary files in, looked for as SQLite does on Unix:
    /// `SQLITE_TMPDIR`, else `TMPDIR`, else the first of /var/tmp, /usr/tmp and /tmp that is
    /// there (MiDiccio's own temporary files go to `temporaryFolder`).
    package static var sqliteTemporaryFolder: String {
        let environment = ProcessInfo.processInfo.environment
        for name in ["SQLITE_TMPDIR", "TMPDIR"] {
            if let folder = environment[name], !folder.isEmpty, status(folder) != nil { return folder }
        }
        return ["/var/tmp", "/usr/tmp", "/tmp"].first { status($0) != nil } ?? "/tmp"
    }

    /// Bytes free to this user on the disk holding `path`, or nil when it cannot be told.
    package static func freeBytes(_ path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The system's words for an `errno` value ("No space left on device").
    package static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    /// Creates an empty file readable and writable by its owner only (mode 0600), unless
    /// a file is already there.
    ///
    /// open(2) with O_EXCL, never FileManager.createFile: that one writes by renaming a
    /// temporary file over the path, which would swap the file under another process
    /// that is creating the same library at the same moment.
    package static func createOwnerOnlyFile(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        guard errno == EEXIST else {
            throw FileError(path: path, reason: "cannot be created (error \(errno); check the folder's permissions)")
        }
    }

    /// Words for `error` without a closing period: they are quoted inside a sentence that
    /// goes on ("…already exists; nothing was changed"). A failed file operation says what
    /// the system said ("No such file or directory"): FileManager's errors carry the
    /// system's error code, and `localizedDescription` lives in the part of Foundation the
    /// everyday binary leaves out (README, "Start-up").
    package static func describe(_ error: any Error) -> String {
        var text: String
        if let described = (error as? any LocalizedError)?.errorDescription {
            text = described
        } else if let posix = error as? POSIXError {
            text = errorText(posix.code.rawValue)
        } else if let cocoa = error as? CocoaError {
            if let posix = cocoa.underlying as? POSIXError {
                text = errorText(posix.code.rawValue)
            } else {
                text = "file error \(cocoa.code.rawValue)"
            }
        } else {
            text = String(describing: error)
        }
        while text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// The path with every symbolic link and `.`/`..` resolved (C's realpath), or nil
    /// when it cannot be (errno then says why: a missing file, a loop).
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The path a library's side files (its sync lock, credentials, sign-ins, the web
    /// app's token) are named after: where `path` leads when it is a symbolic link, so a
    /// library reached through a link and by its own path shares them (two syncs at once
    /// each took the library for a copy, and a password set one way was missing the other,
    /// found by the exploratory helper, round 12B); else `path` as given.
    package static func sideFileBase(_ path: String) -> String {
        guard linkTarget(path) != nil, let resolved = realPath(path) else { return path }
        return resolved
    }

    /// Where the symbolic link at `path` leads, as it is written in the link (perhaps
    /// relative to the link's folder), or nil when `path` is not a link.
    package static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The file's status (stat(2), symbolic links followed), or nil when nothing is at
    /// `path` or it cannot be reached.
    package static func status(_ path: String) -> stat? {
        var status = stat()
        return stat(path, &status) == 0 ? status : nil
    }

    /// Gives the log and index files SQLite keeps beside the database at `path` (`-wal`,
    /// `-shm`) the database file's permissions again when the database can be written and
    /// one of them, owned by this user, cannot: SQLite makes them with the database's mode,
    /// so a library made read-only for a moment left a read-only log behind, and once the
    /// person made the library writable as told, the next write failed all the same, with
    /// the same words (found by the exploratory helper, round 16C). Nothing else changes.
    package static func matchSideFileModes(of path: String) {
        guard let main = status(path), main.st_mode & S_IWUSR != 0, access(path, W_OK) == 0 else { return }
        for suffix in ["-wal", "-shm"] {
            let side = path + suffix
            guard let status = status(side), status.st_uid == getuid(), status.st_mode & S_IWUSR == 0 else { continue }
            _ = chmod(side, main.st_mode & 0o666)
        }
    }

    /// What is at `path`, a symbolic link followed: nil for a regular file (or nothing
    /// there, which reading it will say), else words for it ("a folder", "not a regular
    /// file (a device, a pipe or a socket)").
    package static func notARegularFile(_ path: String) -> String? {
        guard let status = status(path) else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        default: return "not a regular file (a device, a pipe or a socket)"
        }
    }

    /// Creates `path` and its parents when missing.
    package static func createDirectory(_ path: String) throws {
        guard !path.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw FileError(path: path, reason: "cannot create folder: \(describe(error))")
        }
    }

    /// The device and inode of the file at `path` (symbolic links followed), or nil when
    /// nothing is there: two paths name one file exactly when these are equal.
    package static func identity(_ path: String) -> (device: UInt64, inode: UInt64)? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    /// What says, cheaply, that the file at `path` is no longer as it was: its device,
    /// inode, size and modification time (symbolic links followed), or nil when nothing is
    /// there. Another file moved into its place changes the inode; one copied over it, the
    /// size or the time.
    package static func stamp(_ path: String) -> FileStamp? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Glibc)
        let modified = status.st_mtim
        #else
        let modified = status.st_mtimespec
        #endif
        return FileStamp(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
            modifiedSeconds: Int64(modified.tv_sec), modifiedNanoseconds: Int64(modified.tv_nsec),
            permissions: UInt32(status.st_mode & 0o7777))
    }

    /// `text` as one word for a POSIX shell, to paste into a command: in single quotes,
    /// each of its own as '\'' (Dropbox names a conflict copy "… (Ana's conflicted copy …)").
    package static func shellQuoted(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: #"'\''"#) + "'"
    }

    /// The folder that holds `path` ("." for a bare file name).
    package static func parent(of path: String) -> String {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return parent.isEmpty ? "." : parent
    }
}

/// A file's identity and last change as `FileSystem.stamp` reads them: equal stamps taken
/// at two moments say nothing was written to the file, nor put in its place, between them.
package struct FileStamp: Equatable, Sendable {
    /// The device and inode: another file moved into the path changes them.
    package let device: UInt64
    package let inode: UInt64
    /// The size in bytes.
    package let size: Int64
    /// The modification time, in seconds and nanoseconds since 1970.
    package let modifiedSeconds: Int64
    package let modifiedNanoseconds: Int64
    /// Its permissions: a library made writable again changes them, and connections the web
    /// app opened while it was read-only (SQLite opened them read-only) close and open again.
    /// They failed every write until the app was restarted (found by the exploratory helper,
    /// round 17B).
    package let permissions: UInt32

    /// True when both stamps are of one file (device and inode), whatever was written to it
    /// between them.
    package func isSameFile(as other: FileStamp) -> Bool {
        device == other.device && inode == other.inode
    }
}
