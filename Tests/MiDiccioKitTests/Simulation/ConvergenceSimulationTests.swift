import Foundation
import Testing
@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync
import MiDiccioTesting

/// A seeded simulation of several devices editing one word list and syncing in random
/// order through one cloud, with faults. `MIDICCIO_SIM_SEED=N` replays one seed;
/// `MIDICCIO_SIM_SEEDS=N` runs seeds 1...N (default 200).
@Suite("Seeded simulation of several devices with faults")
struct ConvergenceSimulationTests {
    static var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["MIDICCIO_SIM_SEED"].flatMap(UInt64.init) { return [seed] }
        let count = environment["MIDICCIO_SIM_SEEDS"].flatMap(UInt64.init) ?? 200
        return Array(1...max(1, count))
    }

    @Test("after fault-free syncs every device holds the same words, each field its last write, nothing pending, nothing lost, nothing purged",
          arguments: seeds)
    func devicesConverge(seed: UInt64) throws {
        var simulation = try Simulation(seed: seed)
        defer { simulation.cleanUp() }
        try simulation.run(steps: 60)
        try simulation.finish()
        try simulation.check()
    }
}

private let words = ["palabra", "casa", "café", "niño", "árbol", "agua", "luz", "mañana", "ciudad", "sueño",
                     "猫", "Straße", "😀 feliz", "  espacio  ", "quote\"d", "tab\there"]
private let texts = ["", "word", "house", "coffee", "línea uno\nlínea dos", "a, b; c", "<b>bold</b>", "😀", "long " + String(repeating: "x", count: 300)]
private let tags = ["spanish", "Basics", "food", "verbs", "nouns", "travel", "A1", "B2"]

/// The simulation, on an in-memory cloud unless given another (the WebDAV tests run it
/// through a real server).
struct Simulation {
    let seed: UInt64
    var random: SeededGenerator
    let folder: String
    let storage: any SimulationCloud
    var devices: [SimulatedDevice] = []
    var trueTime: Int64 = 1_764_000_000_000
    var writes: [WordID: [WordField: [ObservedWrite]]] = [:]
    var created = Set<WordID>()
    var purged = Set<WordID>()
    var backups: [String] = []
    var joined = false

    init(seed: UInt64, storage: any SimulationCloud = MemoryStorage()) throws {
        self.seed = seed
        self.storage = storage
        random = SeededGenerator(seed: seed)
        folder = NSTemporaryDirectory() + "midiccio-sim-\(seed)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<3 { try addDevice(index) }
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: folder) }

    mutating func addDevice(_ index: Int) throws {
        // Clocks skewed by up to a day either way.
        let skew = Int64.random(in: -86_400_000...86_400_000, using: &random)
        var ids = SeededGenerator(seed: seed &* 31 &+ UInt64(index))
        let box = GeneratorBox(ids)
        _ = ids.next()
        devices.append(try SimulatedDevice(name: "device\(index)", folder: folder, storage: storage, skew: skew,
                                           trueTime: trueTime, makeID: { box.nextID() }))
    }

    // MARK: - Steps

    mutating func run(steps: Int) throws {
        for _ in 0..<steps {
            trueTime += Int64.random(in: 1...5_000, using: &random)
            devices.forEach { $0.setTime(trueTime) }
            let device = devices.randomElement(using: &random)!
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<20: try local(device) { simulation, device in try simulation.add(on: device) }
            case 20..<42: try local(device) { simulation, device in try simulation.edit(on: device) }
            case 42..<50: try local(device) { simulation, device in try simulation.delete(on: device) }
            case 50..<55: try local(device) { simulation, device in try simulation.restoreFromTrash(on: device) }
            case 55..<58: try exportBackup(device)
            case 58..<62: try local(device) { simulation, device in try simulation.restoreBackup(on: device) }
            case 62..<64: try local(device) { _, device in _ = try? device.library.undoRestore() }
            case 64..<67: try local(device) { simulation, device in try simulation.purge(on: device) }
            case 67: try local(device) { _, device in try device.library.emptyTrash() }
            case 68..<82: device.sync()
            case 82..<94: try faultySync(device)
            case 94..<97: try device.restart()
            default:
                if !joined {
                    joined = true
                    try addDevice(devices.count)
                } else {
                    device.sync()
                }
            }
        }
    }

    /// Runs a local operation and records every field write it committed.
    mutating func local(_ device: SimulatedDevice, _ operation: (inout Simulation, SimulatedDevice) throws -> Void) throws {
        let before = try device.state()
        try operation(&self, device)
        let after = try device.state()
        purged.formUnion(Set(before.keys).subtracting(after.keys))
        for (id, stored) in after {
            created.insert(id)
            for field in WordField.allCases where before[id]?.times[field] != stored.times[field] {
                writes[id, default: [:]][field, default: []].append(
                    ObservedWrite(value: fieldText(stored.word, field), time: stored.times[field], writer: device.library.deviceID))
            }
        }
    }

    mutating func add(on device: SimulatedDevice) throws {
        let content = WordContent(term: words.randomElement(using: &random)!, meaning: texts.randomElement(using: &random)!,
                                  tags: Array(tags.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random))))
        try device.library.add(content)
    }

    mutating func edit(on device: SimulatedDevice) throws {
        guard let word = try device.library.list().randomElement(using: &random) else { return }
        var edit = WordEdit()
        switch Int.random(in: 0..<6, using: &random) {
        case 0: edit.term = words.randomElement(using: &random)
        case 1: edit.meaning = texts.randomElement(using: &random)
        case 2: edit.reading = texts.randomElement(using: &random)
        case 3: edit.examples = Array(["Una frase.", "Otra frase.", "😀 ejemplo"].prefix(Int.random(in: 0...3, using: &random)))
        case 4: edit.notes = texts.randomElement(using: &random)
        default:
            edit.addTags = [tags.randomElement(using: &random)!]
            edit.removeTags = word.tags.isEmpty ? [] : [word.tags.randomElement(using: &random)!]
        }
        try device.library.edit(word.id, edit)
    }

    mutating func delete(on device: SimulatedDevice) throws {
        guard let word = try device.library.list().randomElement(using: &random) else { return }
        try device.library.delete([word.id])
    }

    mutating func restoreFromTrash(on device: SimulatedDevice) throws {
        guard let word = try device.library.trash().randomElement(using: &random) else { return }
        try device.library.restore([word.id])
    }

    mutating func purge(on device: SimulatedDevice) throws {
        guard let word = try device.library.trash(includeHidden: true).randomElement(using: &random) else { return }
        try device.library.purge([word.id])
    }

    mutating func exportBackup(_ device: SimulatedDevice) throws {
        let path = folder + "/backup-\(backups.count).json"
        try device.library.exportBackup(to: path)
        backups.append(path)
    }

    mutating func restoreBackup(on device: SimulatedDevice) throws {
        guard let path = backups.randomElement(using: &random) else { return }
        _ = try device.library.restoreBackup(from: path, replace: Bool.random(using: &random))
    }

    /// A sync under one fault: writes failing midway, a crash between the upload and the
    /// local commit, an unreadable cloud file, or an unreachable cloud.
    mutating func faultySync(_ device: SimulatedDevice) throws {
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            storage.faults.failWritesAfter = Int.random(in: 0...2, using: &random)
            device.sync()
            storage.faults.failWritesAfter = nil
        case 1:
            storage.beforeWrite = { path in
                if path.hasPrefix("devices/") { throw CloudError.unavailable("crash before the local commit") }
            }
            device.sync()
            storage.beforeWrite = nil
            try device.restart()
        case 2:
            let candidates = storage.files.keys.filter { $0.hasPrefix("changes/") || $0.hasPrefix("snapshots/") }.sorted()
            if let path = candidates.randomElement(using: &random), let data = storage.files[path] {
                storage.faults.corruptReads[path] = data.prefix(data.count / 2)
            }
            device.sync()
            storage.faults.corruptReads = [:]
        default:
            storage.faults.unreachable = true
            device.sync()
            storage.faults.unreachable = false
        }
    }

    // MARK: - Final round and checks

    mutating func finish() throws {
        storage.faults = MemoryStorage.Faults()
        storage.beforeWrite = nil
        for round in 0..<3 {
            trueTime += 1_000
            for device in devices {
                device.setTime(trueTime)
                if case .failure(let error) = device.sync() {
                    Issue.record("seed \(seed): fault-free sync \(round) of \(device.name) failed: \(error)")
                }
            }
        }
    }

    func check() throws {
        let states = try devices.map { try $0.state() }
        for (device, state) in zip(devices, states) {
            // No device holds any field of a purged word, and every device knows it is gone.
            let reappeared = purged.intersection(state.keys)
            #expect(reappeared.isEmpty, "seed \(seed): purged word(s) \(reappeared) are back on \(device.name)")
            for id in purged {
                #expect(try device.library.isPurged(id), "seed \(seed): \(device.name) has no purge marker for \(id)")
            }
            let missing = created.subtracting(purged).subtracting(state.keys)
            #expect(missing.isEmpty, "seed \(seed): \(device.name) lost \(missing.count) word(s)")
            let pending = state.values.filter(\.pending).count
            #expect(pending == 0, "seed \(seed): \(device.name) still has \(pending) pending word(s)")
        }
        let reference = states[0]
        for id in created.subtracting(purged) {
            guard let expected = reference[id] else { continue }
            for (device, state) in zip(devices.dropFirst(), states.dropFirst()) {
                guard let other = state[id] else { continue }
                #expect(other.word == expected.word && other.times == expected.times,
                        "seed \(seed): \(device.name) disagrees with \(devices[0].name) on \(id): \(other.word) vs \(expected.word)")
            }
            for field in WordField.allCases {
                guard let last = writes[id]?[field]?.max(by: { ($0.time, $0.writer) < ($1.time, $1.writer) }) else { continue }
                #expect(fieldText(expected.word, field) == last.value && expected.times[field] == last.time,
                        "seed \(seed): \(id) field \(field) holds \(fieldText(expected.word, field).debugDescription) at \(expected.times[field]), but the last write was \(last.value.debugDescription) at \(last.time) by \(last.writer)")
            }
        }
    }
}

/// Word ids from a seeded generator, so a replayed seed makes the same ids.
private final class GeneratorBox: @unchecked Sendable {
    private var generator: SeededGenerator
    init(_ generator: SeededGenerator) { self.generator = generator }
    func nextID() -> WordID { WordID.random(using: &generator) }
}
