import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A seeded simulation of several devices editing one word list and syncing in random
/// order, with faults. `MIDICCIO_SIM_SEED=N` replays one seed; `MIDICCIO_SIM_SEEDS=N`
/// runs seeds 1...N through one shared cloud (default 200) and
/// `MIDICCIO_SIM_FILESYNC_SEEDS=N` through a file-sync client (default 100).
@Suite("Seeded simulation of several devices with faults")
struct ConvergenceSimulationTests {
    static func seeds(_ variable: String, default count: UInt64) -> [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["MIDICCIO_SIM_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment[variable].flatMap(UInt64.init) ?? count
        return Array(1...max(1, count))
    }

    @Test(
        "after fault-free syncs every device holds the same words, each field its last write, nothing pending, nothing lost, no purged text anywhere",
        arguments: seeds("MIDICCIO_SIM_SEEDS", default: 200))
    func devicesConverge(seed: UInt64) throws {
        var simulation = try Simulation(seed: seed)
        defer { simulation.cleanUp() }
        try simulation.run(steps: 60)
        try simulation.finish()
        try simulation.check()
    }

    @Test(
        "through a file-sync client that gives each device its own folder and delivers files late, out of order and half written, the devices converge",
        arguments: seeds("MIDICCIO_SIM_FILESYNC_SEEDS", default: 100))
    func devicesConvergeThroughFileSync(seed: UInt64) throws {
        var simulation = try Simulation(seed: seed, fileSync: true)
        defer { simulation.cleanUp() }
        try simulation.run(steps: 60)
        try simulation.finish()
        try simulation.check()
    }
}
