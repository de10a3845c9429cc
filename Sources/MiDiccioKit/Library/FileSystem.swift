import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file operations the library needs, with errors that name the file.
enum FileSystem {
    /// The first `count` bytes of the file, or nil when it does not exist.
    static func readPrefix(_ path: String, count: Int) throws -> [UInt8]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw LibraryError.fileError(path: path, reason: "cannot be read (check its permissions)")
        }
        defer { try? handle.close() }
        do {
            return Array(try handle.read(upToCount: count) ?? Data())
        } catch {
            throw LibraryError.fileError(path: path, reason: "cannot be read: \(error.localizedDescription)")
        }
    }

    /// The whole file.
    static func read(_ path: String) throws -> Data {
        guard FileManager.default.fileExists(atPath: path) else {
            throw LibraryError.fileError(path: path, reason: "no such file")
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw LibraryError.fileError(path: path, reason: "cannot be read: \(error.localizedDescription)")
        }
    }

    /// Writes `data` to a temporary file beside `path`, then renames it over `path`, so
    /// nobody ever sees half a file.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let directory = parent(of: path)
        try createDirectory(directory)
        let temporary = directory + "/.\(URL(fileURLWithPath: path).lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).tmp"
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
            // rename(2) replaces the target atomically on POSIX systems.
            guard rename(temporary, path) == 0 else {
                throw LibraryError.fileError(path: path, reason: "cannot be replaced (error \(errno))")
            }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw LibraryError.fileError(path: path, reason: "cannot be written: \(error.localizedDescription)")
        }
    }

    /// Creates an empty file readable and writable by its owner only (mode 0600), unless
    /// a file is already there.
    ///
    /// open(2) with O_EXCL, never FileManager.createFile: that one writes by renaming a
    /// temporary file over the path, which would swap the file under another process
    /// that is creating the same library at the same moment.
    static func createOwnerOnlyFile(_ path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        guard errno == EEXIST else {
            throw LibraryError.fileError(path: path, reason: "cannot be created (error \(errno); check the folder's permissions)")
        }
    }

    /// Creates `path` and its parents when missing.
    static func createDirectory(_ path: String) throws {
        guard !path.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw LibraryError.fileError(path: path, reason: "cannot create folder: \(error.localizedDescription)")
        }
    }

    /// The folder that holds `path` ("." for a bare file name).
    static func parent(of path: String) -> String {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return parent.isEmpty ? "." : parent
    }
}
