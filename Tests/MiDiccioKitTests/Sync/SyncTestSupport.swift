import Foundation
@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync
import MiDiccioTesting

// Support for the sync tests only: several simulated devices, each a library file with
// its own manual clock, syncing through one in-memory cloud. Names carry a `Sync`
// prefix so they never collide with helpers elsewhere in this test target.

/// One cloud shared by several devices, and a temporary folder for their library files
/// that `withSyncFixture` removes afterwards.
final class SyncFixture {
    /// Where every device's clock starts unless told otherwise: an odd millisecond, so a
    /// rounded or lost millisecond shows.
    static let start = Timestamp(milliseconds: 1_764_000_000_123)
    /// One day, in milliseconds.
    static let day: Int64 = 86_400_000

    /// The folder holding this test's library files (and any backup it writes).
    let directory: URL
    /// The cloud every device of this fixture syncs with.
    let storage = MemoryStorage()
    /// Every device made so far, in order.
    private(set) var devices: [SyncDevice] = []

    fileprivate init(directory: URL) {
        self.directory = directory
    }

    /// A path for a file named `name` in the fixture's folder.
    func file(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// A new device with an empty library, its clock at `start` plus `clockOffset` ms.
    func device(_ name: String, clockOffset: Int64 = 0) throws -> SyncDevice {
        let clock = ManualClock(start: Timestamp(milliseconds: Self.start.milliseconds + clockOffset))
        let library = try WordLibrary(path: file("\(name).sqlite"), clock: clock, environment: [:])
        try library.setDeviceName(name)
        let device = SyncDevice(name: name, clock: clock, library: library, storage: storage)
        devices.append(device)
        return device
    }

    /// Moves every device's clock forward by `milliseconds`.
    func advanceClocks(by milliseconds: Int64) {
        for device in devices { device.clock.advance(by: milliseconds) }
    }

    /// Syncs `devices` one after another, `rounds` times, moving every clock a second
    /// between syncs. Two rounds let every device see every other device's changes.
    func syncRounds(_ devices: [SyncDevice], _ rounds: Int = 2, allowMassDelete: Bool = false) throws {
        for _ in 0..<rounds {
            for device in devices {
                advanceClocks(by: 1_000)
                try device.sync(allowMassDelete: allowMassDelete)
            }
        }
    }

    /// The numbers of `device`'s files of `kind` in the cloud, in order (a number twice
    /// when two files carry it).
    func seqs(_ kind: CloudLayout.Kind, of device: SyncDevice) -> [Int64] {
        let folder = CloudLayout.folder(kind, of: device.id) + "/"
        return storage.files.keys.filter { $0.hasPrefix(folder) }
            .compactMap { CloudLayout.entry(fromName: String($0.dropFirst(folder.count)), kind: kind)?.seq }.sorted()
    }

    /// The path of `device`'s file of `kind` numbered `seq` (the first, should there be
    /// two), or nil.
    func path(_ kind: CloudLayout.Kind, of device: SyncDevice, seq: Int64) -> String? {
        let folder = CloudLayout.folder(kind, of: device.id) + "/"
        return storage.files.keys.filter { $0.hasPrefix(folder) }.sorted().first {
            CloudLayout.entry(fromName: String($0.dropFirst(folder.count)), kind: kind)?.seq == seq
        }
    }

    /// The number in a change file's or snapshot's path, or nil.
    static func seq(of path: String) -> Int64? {
        let name = String(path.split(separator: "/").last ?? "")
        return CloudLayout.entry(fromName: name, kind: .changes)?.seq ?? CloudLayout.entry(fromName: name, kind: .snapshot)?.seq
    }

    /// The number of requests of `kind` ("list", "read", "write", "delete") the cloud
    /// has served, from every device.
    func requests(_ kind: String) -> Int {
        storage.requestCounts[kind] ?? 0
    }
}

/// Runs `body` with a fresh fixture in its own temporary folder, removed afterwards
/// (also when `body` throws). Nothing is shared between tests.
func withSyncFixture<T>(_ body: (SyncFixture) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("midiccio-sync-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(SyncFixture(directory: directory))
}

/// A simulated device: its library, its clock, and a sync engine on the shared cloud,
/// reached through a `SyncRecordingCloud` that notes every request this device makes.
final class SyncDevice {
    /// A name for people (also the library file's name).
    let name: String
    /// This device's clock; only moves when a test moves it.
    let clock: ManualClock
    /// This device's library.
    let library: WordLibrary
    /// This device's view of the shared cloud, recording its requests.
    let cloud: SyncRecordingCloud
    /// The engine syncing `library` with `cloud`.
    let engine: SyncEngine

    fileprivate init(name: String, clock: ManualClock, library: WordLibrary, storage: MemoryStorage) {
        self.name = name
        self.clock = clock
        self.library = library
        cloud = SyncRecordingCloud(storage)
        engine = SyncEngine(library: library, storage: cloud, appVersion: "midiccio-tests")
    }

    /// This device's id (the library's).
    var id: String { library.deviceID }

    /// Runs one sync.
    @discardableResult
    func sync(allowMassDelete: Bool = false) throws -> SyncReport {
        try engine.sync(allowMassDelete: allowMassDelete)
    }

    /// Adds a word and returns its id.
    @discardableResult
    func add(_ term: String, meaning: String = "", notes: String = "", tags: [String] = []) throws -> WordID {
        try library.add(WordContent(term: term, meaning: meaning, notes: notes, tags: tags)).word.id
    }

    /// The word `id`, which must exist here (in the Trash or not).
    func word(_ id: WordID) throws -> Word {
        try stored(id).word
    }

    /// The stored form of the word `id` (times, writers, pending), which must exist here.
    func stored(_ id: WordID) throws -> StoredWord {
        guard let stored = try library.guarded({ try library.stored(id) }) else {
            throw SyncTestFailure("\(name) has no word \(id)")
        }
        return stored
    }

    /// True when this device holds the word `id` at all.
    func has(_ id: WordID) throws -> Bool {
        try library.word(id) != nil
    }

    /// Every stored word, Trash included, ordered by id.
    func everyStoredWord() throws -> [StoredWord] {
        try library.guarded {
            try library.database.prepare("SELECT \(WordLibrary.columns) FROM words ORDER BY id").rows([], WordLibrary.storedWord)
        }
    }

    /// Every word, Trash included, ordered by id: what two devices in sync hold alike.
    func everyWord() throws -> [Word] {
        try everyStoredWord().map(\.word)
    }

    /// Words changed here and not uploaded yet.
    func pendingCount() throws -> Int {
        try everyStoredWord().filter(\.pending).count
    }

    /// A second connection to this device's library file, as another window or process
    /// of the app would open it. Shares this device's clock.
    func secondConnection() throws -> WordLibrary {
        try WordLibrary(path: library.path, clock: clock, environment: [:])
    }

    /// This device's own cloud paths must start with one of these.
    var ownPathPrefixes: [String] {
        [CloudLayout.devicePath(id), CloudLayout.changesFolder(id) + "/", CloudLayout.snapshotsFolder(id) + "/"]
    }

    /// True when `path` is one of this device's own cloud files.
    func owns(_ path: String) -> Bool {
        ownPathPrefixes.contains { path == $0 || ($0.hasSuffix("/") && path.hasPrefix($0)) }
    }
}

/// A test expectation that could not even be set up (a missing word, say).
struct SyncTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One device's way into the shared cloud: forwards every call to the shared
/// `MemoryStorage` and records it, so a test can see which paths a device read,
/// wrote and removed. Can also "crash" right after a write succeeds.
final class SyncRecordingCloud: CloudStorage {
    /// One request this device made.
    struct Request: Hashable {
        /// "list", "read", "write" or "delete".
        var kind: String
        /// The folder or file.
        var path: String
    }

    /// The shared cloud.
    let storage: MemoryStorage
    /// Every request, in order.
    private(set) var requests: [Request] = []
    /// When this returns true for a path, a write to it succeeds and then throws, as if
    /// the device died between the upload and its local commit.
    var crashAfterWriting: ((String) -> Bool)?

    init(_ storage: MemoryStorage) {
        self.storage = storage
    }

    var displayName: String { storage.displayName }

    /// Forgets the requests recorded so far.
    func resetRequests() { requests = [] }

    /// The requests of `kind`, optionally only those whose path starts with `prefix`.
    func requests(_ kind: String, under prefix: String = "") -> [Request] {
        requests.filter { $0.kind == kind && $0.path.hasPrefix(prefix) }
    }

    func list(_ folder: String) throws -> [CloudEntry] {
        requests.append(Request(kind: "list", path: folder))
        return try storage.list(folder)
    }

    func read(_ path: String) throws -> Data? {
        requests.append(Request(kind: "read", path: path))
        return try storage.read(path)
    }

    func write(_ path: String, _ data: Data) throws {
        requests.append(Request(kind: "write", path: path))
        try storage.write(path, data)
        if crashAfterWriting?(path) == true {
            throw CloudError.unavailable("the device stopped right after writing \(path)")
        }
    }

    func create(_ path: String, _ data: Data) throws {
        requests.append(Request(kind: "write", path: path))
        try storage.create(path, data)
        if crashAfterWriting?(path) == true {
            throw CloudError.unavailable("the device stopped right after writing \(path)")
        }
    }

    @discardableResult
    func delete(_ path: String) throws -> Bool {
        requests.append(Request(kind: "delete", path: path))
        return try storage.delete(path)
    }
}

/// A mutable flag a `beforeWrite` hook can flip (closures there cannot capture `inout`).
final class SyncFlag {
    var value: Bool
    init(_ value: Bool = false) { self.value = value }
}

extension SyncError {
    /// The counts of a mass-deletion stop, else nil.
    var massDeletionCounts: (count: Int, of: Int)? {
        if case .massDeletion(let count, let total) = self { return (count, total) }
        return nil
    }

    /// True for `cloudTooNew`.
    var isCloudTooNew: Bool {
        if case .cloudTooNew = self { return true }
        return false
    }
}

/// A small deterministic generator (xorshift64*), so a randomised test replays exactly.
struct SyncTestRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
