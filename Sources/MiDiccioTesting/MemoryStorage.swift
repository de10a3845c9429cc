import Foundation
import MiDiccioKit
import MiDiccioModel
import Synchronization

/// Cloud storage held in memory, with injectable faults, for tests, the simulation and
/// benchmarks. Shared by several simulated devices like one real cloud folder.
package final class MemoryStorage: CloudStorage, @unchecked Sendable {
    /// Faults to inject; change them between calls.
    package struct Faults: Sendable {
        /// Fail every write after this many more succeed (nil: never).
        package var failWritesAfter: Int?
        /// Fail every read (the cloud is unreachable) while true.
        package var unreachable = false
        /// Paths whose reads return these bytes instead (corrupt or truncated files).
        package var corruptReads: [String: Data] = [:]
        /// Report file sizes rounded to the kilobyte in listings, as some services do.
        package var roundListedSizes = false
        /// Make every listing take this long, like a slow server.
        package var slowListing: Duration?
        /// Bytes the cloud can still take (nil: no limit); a write past them fails as on
        /// a full disk, and writes nothing.
        package var spaceLeft: Int?
        /// Writes to paths starting with this fail, and write nothing (a folder made
        /// read-only, say); others go through.
        package var failWritesUnder: String?
        /// Reads of these paths answer "no such file" this many more times while the file
        /// is there: a server's passing 404, a cache in front of it, a store that lags.
        package var missingReads: [String: Int] = [:]
        /// Listings leave these paths out this many more times while the files are there:
        /// a listing served a moment out of date.
        package var missingFromListings: [String: Int] = [:]

        package init() {}

        /// Lets a write of `data` to `path` through, or fails it as the faults say.
        package mutating func admitWrite(_ path: String, _ data: Data) throws {
            if let prefix = failWritesUnder, path.hasPrefix(prefix) {
                throw CloudError.failed(path: path, reason: "cannot be written (Read-only file system)")
            }
            if let remaining = failWritesAfter {
                guard remaining > 0 else { throw CloudError.failed(path: path, reason: "injected write failure") }
                failWritesAfter = remaining - 1
            }
            if let space = spaceLeft {
                guard data.count <= space else { throw CloudError.failed(path: path, reason: "No space left on device") }
                spaceLeft = space - data.count
            }
        }
    }

    private let state = Mutex<(files: [String: Data], faults: Faults, counts: [String: Int])>(([:], Faults(), [:]))

    /// Called before each write with its path, outside any lock: tests use it to edit a
    /// word while its upload is in flight, or to crash a device half way.
    package var beforeWrite: ((String) throws -> Void)?

    package init() {}

    package var displayName: String { "memory" }

    /// A clock this cloud tells as its own (`cloudNow`), as an HTTP server's `Date` does;
    /// nil: none, as a folder.
    package var clock: (any Clock)? {
        get { ownClock.withLock { $0 } }
        set { ownClock.withLock { $0 = newValue } }
    }
    private let ownClock = Mutex<(any Clock)?>(nil)

    package var cloudNow: Timestamp? { clock?.now() }

    /// The faults in force.
    package var faults: Faults {
        get { state.withLock { $0.faults } }
        set { state.withLock { $0.faults = newValue } }
    }

    /// Every file, for assertions.
    package var files: [String: Data] { state.withLock { $0.files } }

    /// How many calls of each kind ("list", "read", "write", "delete") were made.
    package var requestCounts: [String: Int] { state.withLock { $0.counts } }

    /// Sets all request counts back to zero.
    package func resetCounts() { state.withLock { $0.counts = [:] } }

    /// Replaces a file's bytes directly, bypassing faults (to plant a corrupt file).
    package func plant(_ path: String, _ data: Data) { state.withLock { $0.files[path] = data } }

    package func list(_ folder: String) throws -> [CloudEntry] {
        if let delay = faults.slowListing {
            Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
        }
        return try state.withLock { state in
            state.counts["list", default: 0] += 1
            if state.faults.unreachable { throw CloudError.unavailable("memory storage is offline") }
            let prefix = folder.isEmpty ? "" : folder + "/"
            var left = Set<String>()
            for (path, count) in state.faults.missingFromListings where count > 0 && path.hasPrefix(prefix) {
                left.insert(path)
                state.faults.missingFromListings[path] = count - 1
            }
            return state.files.compactMap { path, data in
                guard path.hasPrefix(prefix), !left.contains(path) else { return nil }
                let name = String(path.dropFirst(prefix.count))
                guard !name.contains("/") else { return nil }
                let size = state.faults.roundListedSizes ? (data.count + 1023) / 1024 * 1024 : data.count
                return CloudEntry(name: name, size: size)
            }
        }
    }

    package func folders(in folder: String) throws -> [String] {
        try state.withLock { state in
            state.counts["list", default: 0] += 1
            if state.faults.unreachable { throw CloudError.unavailable("memory storage is offline") }
            return CloudPaths.folders(in: folder, holding: state.files.keys)
        }
    }

    package func read(_ path: String) throws -> Data? {
        try state.withLock { state in
            state.counts["read", default: 0] += 1
            if state.faults.unreachable { throw CloudError.unavailable("memory storage is offline") }
            if let corrupt = state.faults.corruptReads[path] { return corrupt }
            if let missing = state.faults.missingReads[path], missing > 0 {
                state.faults.missingReads[path] = missing - 1
                return nil
            }
            return state.files[path]
        }
    }

    package func write(_ path: String, _ data: Data) throws {
        try beforeWrite?(path)
        try state.withLock { state in
            state.counts["write", default: 0] += 1
            if state.faults.unreachable { throw CloudError.unavailable("memory storage is offline") }
            try state.faults.admitWrite(path, data)
            state.files[path] = data
        }
    }

    package func create(_ path: String, _ data: Data) throws {
        try beforeWrite?(path)
        try state.withLock { state in
            state.counts["write", default: 0] += 1
            if state.faults.unreachable { throw CloudError.unavailable("memory storage is offline") }
            if state.files[path] != nil { throw CloudError.exists(path: path) }
            try state.faults.admitWrite(path, data)
            state.files[path] = data
        }
    }

    @discardableResult
    package func delete(_ path: String) throws -> Bool {
        try state.withLock { state in
            state.counts["delete", default: 0] += 1
            if state.faults.unreachable { throw CloudError.unavailable("memory storage is offline") }
            return state.files.removeValue(forKey: path) != nil
        }
    }
}
