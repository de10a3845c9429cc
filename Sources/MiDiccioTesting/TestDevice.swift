import Foundation
import MiDiccioKit
import MiDiccioStore

/// One device in a test or simulation: a library file with its own manual clock, and a
/// sync engine on a cloud shared with other devices, reached through a `RecordingCloud`.
/// It can be restarted (a fresh connection, as after the app was killed), and its
/// library file can be copied or put back, as people copy and restore files.
package final class TestDevice {
    /// A name for people (also the library file's name).
    package let name: String
    /// This device's clock; only moves when a test moves it.
    package let clock: ManualClock
    /// This device's view of the shared cloud, recording its requests.
    package let cloud: RecordingCloud
    /// The library file.
    package let path: String
    /// How far this device's clock moves by itself before each sync and each add (0: it
    /// moves only when a test moves it), like a real clock between a person's actions.
    package var tick: (beforeSync: Int64, beforeAdd: Int64) = (0, 0)
    /// Adjusts every engine this device makes (snapshot interval and the like).
    package var tune: (SyncEngine) -> Void {
        didSet { tune(engine) }
    }
    /// This device's library (replaced by `restart()`).
    package private(set) var library: WordLibrary
    /// The engine syncing `library` with `cloud` (replaced by `restart()`).
    package private(set) var engine: SyncEngine
    private let makeID: () -> WordID
    private let makeDeviceID: () -> WordID

    /// A device whose library is `path` (created when missing), on `storage`.
    package init(
        name: String, path: String, storage: any CloudStorage, clock: ManualClock,
        makeID: @escaping () -> WordID = { WordID.random() }, makeDeviceID: @escaping () -> WordID = { WordID.random() },
        tune: @escaping (SyncEngine) -> Void = { _ in }
    ) throws {
        self.name = name
        self.path = path
        self.clock = clock
        self.makeID = makeID
        self.makeDeviceID = makeDeviceID
        self.tune = tune
        cloud = RecordingCloud(storage)
        library = try WordLibrary(path: path, clock: clock, environment: [:], makeID: makeID, makeDeviceID: makeDeviceID)
        try library.setDeviceName(name)
        engine = SyncEngine(library: library, storage: cloud, appVersion: "midiccio-tests")
        tune(engine)
    }

    /// This device's id (the library's; it changes when the library finds it is a copy).
    package var id: String { library.deviceID }

    /// Runs one sync.
    @discardableResult
    package func sync(allowMassDelete: Bool = false) throws -> SyncReport {
        clock.advance(by: tick.beforeSync)
        return try engine.sync(allowMassDelete: allowMassDelete)
    }

    /// Simulates the app being killed and started again: a fresh connection to the file.
    package func restart() throws {
        library = try WordLibrary(path: path, clock: clock, environment: [:], makeID: makeID, makeDeviceID: makeDeviceID)
        engine = SyncEngine(library: library, storage: cloud, appVersion: "midiccio-tests")
        tune(engine)
    }

    /// Adds a word and returns its id.
    @discardableResult
    package func add(_ term: String, meaning: String = "", notes: String = "", tags: [String] = []) throws -> WordID {
        clock.advance(by: tick.beforeAdd)
        return try library.add(WordContent(term: term, meaning: meaning, notes: notes, tags: tags)).word.id
    }

    /// The word `id`, which must exist here (in the Trash or not).
    package func word(_ id: WordID) throws -> Word {
        try stored(id).word
    }

    /// The stored form of the word `id` (times, writers, pending), which must exist here.
    package func stored(_ id: WordID) throws -> StoredWord {
        guard let stored = try library.guarded({ try library.stored(id) }) else {
            throw TestDeviceError("\(name) has no word \(id)")
        }
        return stored
    }

    /// True when this device holds the word `id` at all.
    package func has(_ id: WordID) throws -> Bool {
        try library.word(id) != nil
    }

    /// Every stored word, Trash included, ordered by id.
    package func everyStoredWord() throws -> [StoredWord] {
        try library.guarded {
            try library.database.prepare("SELECT \(WordLibrary.columns) FROM words ORDER BY id").rows([], WordLibrary.storedWord)
        }
    }

    /// Every word, Trash included, ordered by id: what two devices in sync hold alike.
    package func everyWord() throws -> [Word] {
        try everyStoredWord().map(\.word)
    }

    /// Every word with its sync state, by id.
    package func state() throws -> [WordID: StoredWord] {
        Dictionary(uniqueKeysWithValues: try everyStoredWord().map { ($0.word.id, $0) })
    }

    /// Words changed here and not uploaded yet.
    package func pendingCount() throws -> Int {
        try everyStoredWord().filter(\.pending).count
    }

    /// A second connection to this device's library file, as another window or process
    /// of the app would open it. Shares this device's clock.
    package func secondConnection() throws -> WordLibrary {
        try WordLibrary(path: library.path, clock: clock, environment: [:])
    }

    /// A copy of this device's library file at `path`, made as a person copies a file:
    /// the library and its write-ahead log together, bytes as they are on disk.
    package func copyLibraryFile(to path: String) throws {
        try library.guarded { try library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
        let manager = FileManager.default
        for suffix in ["", "-wal"] where manager.fileExists(atPath: self.path + suffix) {
            if manager.fileExists(atPath: path + suffix) { try manager.removeItem(atPath: path + suffix) }
            try manager.copyItem(atPath: self.path + suffix, toPath: path + suffix)
        }
    }

    /// Puts back an earlier copy of this device's library file (made with
    /// `copyLibraryFile(to:)`), as a restore from a backup does, and restarts.
    package func restoreLibraryFile(from copy: String) throws {
        let manager = FileManager.default
        // Let go of the file first, as the app is closed while a backup is put back.
        let placeholder = NSTemporaryDirectory() + "midiccio-placeholder-\(UUID().uuidString).sqlite"
        library = try WordLibrary(path: placeholder, clock: clock, environment: [:])
        engine = SyncEngine(library: library, storage: cloud, appVersion: "midiccio-tests")
        defer { for suffix in ["", "-wal", "-shm"] { try? manager.removeItem(atPath: placeholder + suffix) } }
        for suffix in ["-wal", "-shm"] where manager.fileExists(atPath: path + suffix) {
            try manager.removeItem(atPath: path + suffix)
        }
        try manager.removeItem(atPath: path)
        try manager.copyItem(atPath: copy, toPath: path)
        if manager.fileExists(atPath: copy + "-wal") { try manager.copyItem(atPath: copy + "-wal", toPath: path + "-wal") }
        try restart()
    }

    /// This device's own cloud paths start with one of these.
    package var ownPathPrefixes: [String] {
        [CloudLayout.devicePath(id), CloudLayout.changesFolder(id) + "/", CloudLayout.snapshotsFolder(id) + "/"]
    }

    /// True when `path` is one of this device's own cloud files.
    package func owns(_ path: String) -> Bool {
        ownPathPrefixes.contains { path == $0 || ($0.hasSuffix("/") && path.hasPrefix($0)) }
    }
}

/// A test expectation that could not even be set up (a missing word, say).
package struct TestDeviceError: Error, CustomStringConvertible {
    /// What was missing.
    package var description: String
    /// Makes the error.
    package init(_ description: String) { self.description = description }
}
