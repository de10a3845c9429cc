import Foundation
@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync
import MiDiccioTesting

/// One device of the simulation: a library file with its own skewed clock and a sync
/// engine on the shared cloud. It can "crash" (drop its connection and reopen the file).
final class SimulatedDevice {
    let name: String
    let path: String
    let clock: ManualClock
    /// How far this device's clock is off from the simulation's true time.
    let skew: Int64
    let storage: any CloudStorage
    private(set) var library: WordLibrary
    private var engine: SyncEngine
    private let makeID: () -> WordID

    init(name: String, folder: String, storage: any CloudStorage, skew: Int64, trueTime: Int64, makeID: @escaping () -> WordID) throws {
        self.name = name
        path = folder + "/\(name).sqlite"
        clock = ManualClock(start: Timestamp(milliseconds: trueTime + skew))
        self.skew = skew
        self.storage = storage
        self.makeID = makeID
        library = try WordLibrary(path: path, clock: clock, environment: [:], makeID: makeID)
        engine = SyncEngine(library: library, storage: storage)
        Self.tune(engine)
    }

    private static func tune(_ engine: SyncEngine) {
        // Small thresholds so that snapshots, snapshot uploads and compaction all happen
        // within a short simulation.
        engine.snapshotInterval = 4
        engine.largeUploadThreshold = 12
    }

    /// Follows the simulation's true time.
    func setTime(_ trueTime: Int64) {
        clock.set(Timestamp(milliseconds: trueTime + skew))
    }

    /// Syncs; a thrown error is a failed sync (the fault under test), not a test failure.
    @discardableResult
    func sync() -> Result<SyncReport, Error> {
        Result { try engine.sync(allowMassDelete: true) }
    }

    /// Simulates the app being killed and started again: a fresh connection to the file.
    func restart() throws {
        library = try WordLibrary(path: path, clock: clock, environment: [:], makeID: makeID)
        engine = SyncEngine(library: library, storage: storage)
        Self.tune(engine)
    }

    /// Every word with its sync state, by id.
    func state() throws -> [WordID: StoredWord] {
        let rows = try library.database.prepare("SELECT \(WordLibrary.columns) FROM words").rows([], WordLibrary.storedWord)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.word.id, $0) })
    }
}

/// One write the simulation saw a device commit: the value a field took, with its time
/// and writer. The oracle says the final value of a field is that of its newest write.
struct ObservedWrite {
    var value: String
    var time: Timestamp
    var writer: String
}

/// A field's value as comparable text.
func fieldText(_ word: Word, _ field: WordField) -> String {
    switch field {
    case .term: word.term
    case .meaning: word.meaning
    case .reading: word.reading
    case .examples: word.examples.joined(separator: "\u{1}")
    case .notes: word.notes
    case .tags: word.tags.joined(separator: "\u{1}")
    case .deleted: word.deletedAt.map { String($0.milliseconds) } ?? "-"
    }
}
