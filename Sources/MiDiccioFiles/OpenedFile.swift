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

    /// A path that opens this same file again, from its start, for an API that reads a
    /// file by name (URLSession's body stream): `/proc/self/fd/N`, which works for a file
    /// without a name too. Nil where there is no such path.
    package var reopeningPath: String? {
        #if os(Linux)
        let path = "/proc/self/fd/\(descriptor)"
        // Without /proc (a container that mounts none) there is no such path.
        return access(path, R_OK) == 0 ? path : nil
        #else
        return nil
        #endif
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
