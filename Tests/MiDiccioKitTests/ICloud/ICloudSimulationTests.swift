import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// The seeded simulation (several devices, skewed clocks, edits, deletes, restores,
/// copies of library files, crashes and faults) through the fake CloudKit, each device
/// with its own connection and its own index of the zone, reading changes in pages of
/// three. Runs `MIDICCIO_ICLOUD_SIM_SEEDS` seeds (default 5); `MIDICCIO_ICLOUD_SIM_SEED=N`
/// replays one.
@Suite("Seeded simulation of several devices through iCloud", .enabled(if: ICloudTests.shouldRun, ICloudTests.skipReason))
struct ICloudSimulationTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["MIDICCIO_ICLOUD_SIM_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["MIDICCIO_ICLOUD_SIM_SEEDS"].flatMap(UInt64.init) ?? 5
        return Array(1...max(1, count))
    }

    @Test(
        "after fault-free syncs through iCloud every device holds the same words, each field its last write, nothing pending, nothing lost",
        arguments: seeds)
    func devicesConverge(seed: UInt64) throws {
        let tenant = try ICloudTests.tenant("sim-\(seed)")
        let credentials = try ICloudTests.credentials(tenant)
        var options = ICloudTests.quickOptions()
        options.resultsLimit = 3
        let everyFile = { (try? ICloudTests.files(tenant)) ?? [:] }
        let view = FaultInjectingCloud(ICloudTests.storage(tenant, credentials: credentials, options: options), everyFile: everyFile)
        var simulation = try Simulation(
            seed: seed, storage: view,
            eachDevice: {
                FaultInjectingCloud(ICloudTests.storage(tenant, credentials: credentials, options: options), everyFile: everyFile)
            })
        defer { simulation.cleanUp() }
        try simulation.run(steps: 60)
        try simulation.finish()
        try simulation.check()
        #expect(try tenant.stats().values.reduce(0, +) > 0)
    }
}
