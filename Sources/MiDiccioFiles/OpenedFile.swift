import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A regular file held open for reading, read a piece at a time at any offset: how sync
/// reads a large snapshot from a synced folder without holding it whole. Reads never
/// move a shared position (`pread`), so several readers, on several threads, may read
/// one opened file. The file stays readable while open even if it is replaced or
/// deleted meanwhile (another device compacting the folder).
public final class OpenedFile: Sendable {
    /// Its size in bytes when it was opened.
    public let size: Int
    /// Where it was opened from, for errors.
    public let path: String
    private let descriptor: Int32

    /// Takes over `descriptor`, open for reading on the file at `path` of `size` bytes;
    /// it is closed when this value is freed.
    public init(descriptor: Int32, path: String, size: Int) {
        self.descriptor = descriptor
        self.path = path
        self.size = size
    }

    deinit { close(descriptor) }

    /// A copy of the file under a name of its own in `folder` (the temporary folder), for
    /// an API that sends a file by name with its length (URLSession's upload from a file):
    /// the copy is made a megabyte at a time and removed when the returned value is freed.
    package func namedCopy(in folder: String = FileSystem.temporaryFolder) throws -> NamedTemporaryFile {
        let copy = try NamedTemporaryFile.make(in: folder)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset = 0
        while offset < size {
            let read = try buffer.withUnsafeMutableBytes { try self.read(at: offset, into: $0) }
            guard read > 0 else { throw FileError(path: path, reason: "ended after \(offset) of \(size) bytes") }
            if let failure = buffer.withUnsafeBytes({
                FileSystem.writeAll(UnsafeRawBufferPointer(rebasing: $0[..<read]), to: copy.descriptor, at: offset)
            }) {
                throw FileError(path: copy.path, reason: failure)
            }
            offset += read
        }
        return copy
    }

    /// The `count` bytes from `offset` on, or fewer where the file ends (one that shrank
    /// since it was opened), read in as many calls as it takes.
    public func bytes(at offset: Int, count: Int) throws -> Data {
        var data = Data(count: max(0, count))
        var total = 0
        while total < data.count {
            let read = try data.withUnsafeMutableBytes { raw in
                try self.read(at: offset + total, into: UnsafeMutableRawBufferPointer(rebasing: raw[total...]))
            }
            if read == 0 { break }
            total += read
        }
        return data.prefix(total)
    }

    /// Reads at most `buffer.count` bytes starting at `offset` into `buffer`; returns how
    /// many were read, 0 at the end of the file.
    public func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        while true {
            let count = pread(descriptor, base, buffer.count, off_t(offset))
            if count >= 0 { return count }
            if errno != EINTR { throw FileError(path: path, reason: FileSystem.errorText(errno)) }
        }
    }
}

/// A file with a name in the temporary folder, owner-only, open for writing: removed (name
/// and bytes) when this value is freed. Only for what must be handed over by name;
/// everything else uses `FileSystem.anonymousFile`, which leaves nothing behind even after
/// a crash. What a crash leaves of these (`.midiccio-upload-XXXXXX`) is removed by the next
/// one made in that folder once it is a day old.
package final class NamedTemporaryFile: Sendable {
    /// Where it is.
    package let path: String
    fileprivate let descriptor: Int32

    /// The names' prefix.
    static let prefix = ".midiccio-upload-"
    /// How old a leftover must be before it is removed: no upload takes that long.
    static let leftoverAge: TimeInterval = 24 * 3600

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Makes an empty one in `folder`, first removing this user's leftovers there.
    static func make(in folder: String) throws -> NamedTemporaryFile {
        removeLeftovers(in: folder)
        let (descriptor, path) = try FileSystem.temporaryFile(in: folder, prefix: prefix)
        return NamedTemporaryFile(path: path, descriptor: descriptor)
    }

    /// Removes the regular files of ours in `folder` older than `leftoverAge` (by their last
    /// change): what an upload cut short by a crash left. Best effort.
    static func removeLeftovers(in folder: String, now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) {
            let path = folder + "/" + name
            // Not following a link (lstat), so only a file of ours goes.
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid(),
                let changed = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                now.timeIntervalSince(changed) > leftoverAge
            else { continue }
            unlink(path)
        }
    }
}
