import Foundation

#if canImport(Glibc)
import Glibc

/// A small disk of its own (a tmpfs) for tests of a full disk. Only root may mount one,
/// and only where mounts are allowed: elsewhere `canMount` is false, and such tests are
/// skipped and say so.
package final class SmallDisk {
    /// Where it is mounted.
    package let folder: String

    /// True when this process can mount a tmpfs.
    package static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-mount-probe-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        guard mount("tmpfs", folder, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(folder)
        return true
    }()

    /// Mounts a tmpfs of `size` (as mount takes it: "1m", "64k") in a new folder named
    /// after `name`.
    package init(_ name: String, size: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-\(name)-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard mount("tmpfs", folder, "tmpfs", 0, "size=\(size)") == 0 else {
            try? FileManager.default.removeItem(atPath: folder)
            throw CocoaError(.fileWriteUnknown)
        }
    }

    deinit {
        umount(folder)
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Fills the disk with a file of zeros; returns its path (remove it to make room).
    @discardableResult
    package func fill() -> String {
        let filler = folder + "/filler"
        let descriptor = open(filler, O_WRONLY | O_CREAT, 0o600)
        guard descriptor >= 0 else { return filler }
        let block = [UInt8](repeating: 0, count: 4096)
        while write(descriptor, block, block.count) > 0 {}
        close(descriptor)
        return filler
    }
}
#endif
