import Foundation
import MiDiccioKit

/// One device's way into a shared cloud in tests: forwards every call to the cloud
/// underneath (in memory, a folder, a WebDAV server) and records it, so a test can see
/// which paths a device read, wrote and removed. Can also "crash" right after a write
/// succeeds, as a device that dies between an upload and its local commit.
package final class RecordingCloud: CloudStorage {
    /// One request a device made.
    package struct Request: Hashable, Sendable {
        /// "list", "read", "write" or "delete".
        package var kind: String
        /// The folder or file.
        package var path: String
    }

    /// The cloud underneath.
    package let storage: any CloudStorage
    /// Every request, in order.
    package private(set) var requests: [Request] = []
    /// When this returns true for a path, a write to it succeeds and then throws.
    package var crashAfterWriting: ((String) -> Bool)?
    /// When this returns true for a path, a removal of it succeeds and then throws: the
    /// device stopped (its process ended) right after.
    package var crashAfterDeleting: ((String) -> Bool)?
    /// Called before each write with its path (a test runs another device's sync there,
    /// as if both synced at the same moment).
    package var beforeWrite: ((String) throws -> Void)?

    /// Records the calls made to `storage`.
    package init(_ storage: any CloudStorage) {
        self.storage = storage
    }

    package var displayName: String { storage.displayName }
    package var cloudNow: Timestamp? { storage.cloudNow }

    /// Forgets the requests recorded so far.
    package func resetRequests() { requests = [] }

    /// The requests of `kind`, optionally only those whose path starts with `prefix`.
    package func requests(_ kind: String, under prefix: String = "") -> [Request] {
        requests.filter { $0.kind == kind && $0.path.hasPrefix(prefix) }
    }

    package func beginPass(cache: (any CloudCache)?) throws {
        try storage.beginPass(cache: cache)
    }

    package var cloudWasReplaced: Bool { storage.cloudWasReplaced }

    package func whereaboutsOfMissingFolder() -> String? { storage.whereaboutsOfMissingFolder() }

    package func list(_ folder: String) throws -> [CloudEntry] {
        requests.append(Request(kind: "list", path: folder))
        return try storage.list(folder)
    }

    package func folders(in folder: String) throws -> [String] {
        requests.append(Request(kind: "list", path: folder))
        return try storage.folders(in: folder)
    }

    package func read(_ path: String) throws -> Data? {
        requests.append(Request(kind: "read", path: path))
        return try storage.read(path)
    }

    package func readBytes(_ path: String) throws -> CloudBytes? {
        requests.append(Request(kind: "read", path: path))
        return try storage.readBytes(path)
    }

    package func write(_ path: String, _ data: Data) throws {
        try beforeWrite?(path)
        requests.append(Request(kind: "write", path: path))
        try storage.write(path, data)
        try crashIfAsked(path)
    }

    package func create(_ path: String, _ data: Data) throws {
        try create(path, bytes: .memory(data))
    }

    package func create(_ path: String, bytes: CloudBytes) throws {
        try beforeWrite?(path)
        requests.append(Request(kind: "write", path: path))
        try storage.create(path, bytes: bytes)
        try crashIfAsked(path)
    }

    @discardableResult
    package func delete(_ path: String) throws -> Bool {
        requests.append(Request(kind: "delete", path: path))
        let removed = try storage.delete(path)
        if crashAfterDeleting?(path) == true { throw CloudError.unavailable("the device stopped right after removing \(path)") }
        return removed
    }

    private func crashIfAsked(_ path: String) throws {
        if crashAfterWriting?(path) == true {
            throw CloudError.unavailable("the device stopped right after writing \(path)")
        }
    }
}
