import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// The seeded simulation (several devices, skewed clocks, edits, deletes, restores,
/// copies of library files, crashes and faults) through the fake Google Drive, each
/// device with its own connection and its own index of the Drive, while the Drive answers
/// in small pages and (odd seeds) leaves new files out of a listing for a moment. Runs
/// `MIDICCIO_GDRIVE_SIM_SEEDS` seeds (default 5); `MIDICCIO_GDRIVE_SIM_SEED=N` replays one.
@Suite(
    "Seeded simulation of several devices through Google Drive",
    .enabled(if: GoogleDriveTests.shouldRun, GoogleDriveTests.skipReason))
struct GoogleDriveSimulationTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["MIDICCIO_GDRIVE_SIM_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["MIDICCIO_GDRIVE_SIM_SEEDS"].flatMap(UInt64.init) ?? 5
        return Array(1...max(1, count))
    }

    @Test(
        "after fault-free syncs through Google Drive every device holds the same words, each field its last write, nothing pending, nothing lost",
        arguments: seeds)
    func devicesConverge(seed: UInt64) throws {
        let tenant = try GoogleDriveTests.tenant("sim-\(seed)")
        let credentials = try tenant.credentials(for: .appData)
        let everyFile = { (try? tenant.files()) ?? [:] }
        let view = FaultInjectingCloud(tenant.storage(.appData, credentials: credentials), everyFile: everyFile)
        var simulation = try Simulation(
            seed: seed, storage: view,
            eachDevice: { FaultInjectingCloud(tenant.storage(.appData, credentials: credentials), everyFile: everyFile) })
        defer { simulation.cleanUp() }
        // Drive's quirks while the devices work: pages of three files, and on odd seeds a
        // new file missing from the next listing that would show it.
        try tenant.setFaults(["pageSizeCap": 3, "listLag": seed % 2 == 1 ? 1 : 0])
        try simulation.run(steps: 60)
        try tenant.setFaults(["listLag": 0])
        try simulation.finish()
        try simulation.check()
        #expect(try tenant.stats().total > 0)
    }
}
