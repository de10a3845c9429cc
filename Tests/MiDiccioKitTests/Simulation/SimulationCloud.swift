import Foundation
import MiDiccioTesting

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A cloud the seeded simulation can run on: storage with the faults it injects
/// (failing writes, a crash before the local commit, unreadable files, no network) and
/// a view of every file for planting corrupt reads. `MemoryStorage` is one; the WebDAV
/// tests wrap a real server in another.
protocol SimulationCloud: CloudStorage {
    /// The faults in force; the simulation changes them between syncs.
    var faults: MemoryStorage.Faults { get set }
    /// Called before each write with its path.
    var beforeWrite: ((String) throws -> Void)? { get set }
    /// Every file by path.
    var files: [String: Data] { get }
}

extension MemoryStorage: SimulationCloud {}
