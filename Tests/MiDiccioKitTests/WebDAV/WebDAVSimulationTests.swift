import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// The seeded simulation of "Sync through your own cloud" (three or four devices, skewed
/// clocks, random edits, deletes, restores, backups, crashes and faults) through the
/// real WebDAV server instead of memory. Runs `MIDICCIO_WEBDAV_SIM_SEEDS` seeds (default
/// 5); `MIDICCIO_WEBDAV_SIM_SEED=N` replays one.
@Suite(
    "Seeded simulation of several devices through a real WebDAV server",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVSimulationTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["MIDICCIO_WEBDAV_SIM_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["MIDICCIO_WEBDAV_SIM_SEEDS"].flatMap(UInt64.init) ?? 5
        return Array(1...max(1, count))
    }

    @Test(
        "after fault-free syncs through WebDAV every device holds the same words, each field its last write, nothing pending, nothing lost",
        arguments: seeds)
    func devicesConverge(seed: UInt64) throws {
        let server = try WebDAVTestServer.require()
        let cloud = FaultInjectingCloud(server.storage(try server.freshAddress("sim-\(seed)"), options: instantRetryOptions()))
        var simulation = try Simulation(seed: seed, storage: cloud)
        defer { simulation.cleanUp() }
        try simulation.run(steps: 60)
        try simulation.finish()
        try simulation.check()
        #expect((cloud.inner as? WebDAVStorage)?.requestCount ?? 0 > 0)
    }
}

/// A real storage with the simulation's faults injected in front of it, the way
/// `MemoryStorage` injects them: an unreachable cloud, writes failing after a count, a
/// hook before each write, and reads of chosen files returning damaged bytes.
final class FaultInjectingCloud: SimulationCloud {
    /// The real storage.
    let inner: any CloudStorage
    var faults = MemoryStorage.Faults()
    var beforeWrite: ((String) throws -> Void)?
    /// Every path written and not deleted since, to list every file without walking
    /// folders (a listing reports files only).
    private var written = Set<String>()
    /// Every file in the cloud, when the server can tell (the fake Google Drive can).
    private let everyFile: (() -> [String: Data])?

    init(_ inner: any CloudStorage, everyFile: (() -> [String: Data])? = nil) {
        self.inner = inner
        self.everyFile = everyFile
    }

    var displayName: String { inner.displayName }
    var cloudNow: Timestamp? { inner.cloudNow }

    var cloudWasReplaced: Bool { inner.cloudWasReplaced }

    func beginPass(cache: (any CloudCache)?) throws {
        try checkReachable()
        try inner.beginPass(cache: cache)
    }

    var files: [String: Data] {
        if let everyFile { return everyFile() }
        var files: [String: Data] = [:]
        for path in written { files[path] = try? inner.read(path) }
        return files
    }

    private func checkReachable() throws {
        if faults.unreachable { throw CloudError.unavailable("the simulated network is down") }
    }

    func list(_ folder: String) throws -> [CloudEntry] {
        try checkReachable()
        return try inner.list(folder)
    }

    func folders(in folder: String) throws -> [String] {
        try checkReachable()
        return try inner.folders(in: folder)
    }

    func read(_ path: String) throws -> Data? {
        try checkReachable()
        if let corrupt = faults.corruptReads[path] { return corrupt }
        return try inner.read(path)
    }

    func write(_ path: String, _ data: Data) throws {
        try beforeWrite?(path)
        try checkReachable()
        if let remaining = faults.failWritesAfter {
            guard remaining > 0 else { throw CloudError.failed(path: path, reason: "injected write failure") }
            faults.failWritesAfter = remaining - 1
        }
        try inner.write(path, data)
        written.insert(path)
    }

    @discardableResult
    func delete(_ path: String) throws -> Bool {
        try checkReachable()
        written.remove(path)
        return try inner.delete(path)
    }
}
