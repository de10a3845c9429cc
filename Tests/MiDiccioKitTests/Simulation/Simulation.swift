import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

private let words = [
    "palabra", "casa", "café", "niño", "árbol", "agua", "luz", "mañana", "ciudad", "sueño",
    "猫", "Straße", "😀 feliz", "  espacio  ", "quote\"d", "tab\there",
]
private let texts = [
    "", "word", "house", "coffee", "línea uno\nlínea dos", "a, b; c", "<b>bold</b>", "😀", "long " + String(repeating: "x", count: 300),
]
private let tags = ["spanish", "Basics", "food", "verbs", "nouns", "travel", "A1", "B2"]

/// The simulation: three or four devices with clocks skewed by up to a day add, edit,
/// delete, restore, back up, restore backups, undo, purge, crash and sync in random
/// order while writes fail, the cloud's disk or the library's disk is full, uploads stop
/// before their local commit, cloud files are unreadable and the cloud is unreachable.
/// Library files are copied to new machines (clones of a device) and put back from
/// older copies of themselves. The cloud is one shared store, or a file-sync client's
/// folder per device (`FileSyncNetwork`).
///
/// The oracle records every field write a device commits; after a final round of
/// fault-free syncs every device must hold every word not purged, each field its last
/// write, nothing pending, and no purged word's text may remain in any cloud file or
/// library file (except the files of a device nobody uses any more, which status must
/// then say).
struct Simulation {
    /// One device of the simulation.
    struct Member {
        let device: TestDevice
        /// How far this device's clock is off from the simulation's true time.
        let skew: Int64
        let storage: any SimulationCloud
        /// Earlier copies of its library file (path, the step they were taken).
        var copies: [(path: String, step: Int)] = []
    }

    /// One write the simulation saw a device commit: the value a field took, with its
    /// time and writer. The oracle says the final value of a field is that of its newest
    /// write.
    struct ObservedWrite {
        var word: Word
        var time: Timestamp
        var writer: String
        var device: String
        var step: Int
        /// True when the device lost it with its newer file, put back from an older copy.
        var lost = false
        /// For a write of the tags: each tag it put on or took off, by key.
        var tagMarks: [String: TagClock.Mark] = [:]
        /// Of those, the keys whose mark went with a newer file put back from an older copy
        /// (tags merge one at a time: a write's marks live on, or not, each on its own).
        var lostTagMarks = Set<String>()
        /// True for the list an update found on the word (`updateFromOlderVersion`): it
        /// takes off, at its time, every tag it leaves out, even one put on at an older
        /// time by a write the simulation makes later (a device whose clock is behind).
        var wholeList = false
        /// For such a list, true when that taking off went with a newer file put back
        /// from an older copy (its floor is known nowhere).
        var floorLost = false
    }

    /// Where a word was created or purged, and when (for writes a restore of an older
    /// library file takes away).
    struct Origin {
        var device: String
        var step: Int
    }

    let seed: UInt64
    let random: SimulationRandomBox
    /// Draws for review answers, apart from `random` so that adding reviews left every
    /// other operation of a seed where it was.
    let reviewRandom: SimulationRandomBox
    /// Draws for updates from the MiDiccio before tags merged one at a time, apart from
    /// `random` for the same reason.
    let updateRandom: SimulationRandomBox
    /// Draws for devices lost for good, apart from `random` for the same reason.
    let lossRandom: SimulationRandomBox
    let folder: String
    let shared: (any SimulationCloud)?
    /// Makes each device's own connection to the shared cloud, if devices have their own.
    let eachDevice: (() -> any SimulationCloud)?
    let network: FileSyncNetwork?
    var members: [Member] = []
    /// Devices made so far (a lost device's number is not used again).
    var devicesMade = 0
    /// The names of devices lost for good.
    var lostDevices: [String] = []
    var trueTime: Int64 = 1_764_000_000_000
    var step = 0
    var writes: [WordID: [WordField: [ObservedWrite]]] = [:]
    var created: [WordID: Origin] = [:]
    /// Words whose only copies went with a newer file put back from an older copy.
    var lostCreations = Set<WordID>()
    var purged: [WordID: Origin] = [:]
    /// Purges undone by putting back a copy from before them (a later copy may redo them).
    var droppedPurges: [WordID: Origin] = [:]
    /// The step of each device's last restore that changed words: its undo undoes it.
    var restoreSteps: [String: Int] = [:]
    var tokens: [WordID: String] = [:]
    /// Words a backup restore brought back under a new id, by the token they came back
    /// with: the purged word's text is theirs too, and may stay in a file as long as one
    /// of them is not purged (an edit since leaves it in the history SQLite keeps).
    var reissued: [String: Set<WordID>] = [:]
    var backups: [String] = []
    var joined = false
    var tokenCount = 0
    /// Review answers given so far.
    var reviews = 0
    /// `MIDICCIO_SIM_TRACE=1` prints every step and sync, to follow a failing seed.
    let tracing = ProcessInfo.processInfo.environment["MIDICCIO_SIM_TRACE"] == "1"

    func trace(_ text: @autoclosure () -> String) {
        if tracing { FileHandle.standardError.write(Data("[sim \(seed) step \(step)] \(text())\n".utf8)) }
    }

    /// A simulation on one shared cloud (in memory unless given another: the WebDAV tests
    /// run it through a real server), or with `fileSync`, on a file-sync client's folders.
    ///
    /// With `eachDevice`, every device gets a connection of its own to the shared cloud
    /// (back ends that keep a picture of the cloud per device, as Google Drive's does),
    /// and `storage` serves only to look at every file.
    init(
        seed: UInt64, storage: any SimulationCloud = MemoryStorage(), fileSync: Bool = false,
        eachDevice: (() -> any SimulationCloud)? = nil
    ) throws {
        self.seed = seed
        self.eachDevice = eachDevice
        random = SimulationRandomBox(SeededGenerator(seed: seed))
        reviewRandom = SimulationRandomBox(SeededGenerator(seed: seed &+ 0x15_0000))
        updateRandom = SimulationRandomBox(SeededGenerator(seed: seed &+ 0x0C_0000))
        lossRandom = SimulationRandomBox(SeededGenerator(seed: seed &+ 0x1055_0000))
        shared = fileSync ? nil : storage
        network = fileSync ? FileSyncNetwork() : nil
        folder = NSTemporaryDirectory() + "midiccio-sim-\(seed)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for _ in 0..<3 { try addDevice() }
        if tracing, let network {
            let seed = seed
            network.onDeliver = { text in FileHandle.standardError.write(Data("[sim \(seed)] \(text)\n".utf8)) }
        }
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: folder) }

    private func randomInt(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random.generator) }
    private func randomBool() -> Bool { Bool.random(using: &random.generator) }
    private func pick<T>(_ items: [T]) -> T? { items.randomElement(using: &random.generator) }

    /// A new device with an empty library (or, with `copying`, a copy of that member's
    /// library file and, for a file-sync client, of its folder: a cloned machine).
    mutating func addDevice(copying source: Int? = nil) throws {
        let index = devicesMade
        devicesMade += 1
        // Clocks skewed by up to a day either way.
        let skew = Int64.random(in: -86_400_000...86_400_000, using: &random.generator)
        let path = folder + "/device\(index).sqlite"
        if let source { try members[source].device.copyLibraryFile(to: path) }
        let storage: any SimulationCloud
        if let network {
            let replica = network.addReplica(copying: source.map { (members[$0].storage as! ReplicaStorage).index })
            storage = ReplicaStorage(network: network, index: replica, random: random)
        } else {
            storage = eachDevice?() ?? shared!
        }
        let ids = IDSource(SeededGenerator(seed: seed &* 31 &+ UInt64(index)))
        let nonces = NonceSource(SeededGenerator(seed: seed &* 131 &+ UInt64(index)))
        let deviceIDs = IDSource(SeededGenerator(seed: seed &* 257 &+ UInt64(index)))
        let device = try TestDevice(
            name: "device\(index)", path: path, storage: storage,
            clock: ManualClock(start: Timestamp(milliseconds: trueTime + skew)),
            makeID: { ids.nextID() }, makeDeviceID: { deviceIDs.nextID() }, tune: Self.tune(nonces))
        // Every other device decodes each file it pulls, and parses each backup it
        // restores, on a second thread, as a large one is (with the rows of words new here
        // made there when a pull finds its library empty).
        if index % 2 == 1 {
            device.library.recordsReadAsideFrom = 1
            device.library.restoreReadAsideFrom = 1
        }
        members.append(Member(device: device, skew: skew, storage: storage))
    }

    /// Small thresholds so that snapshots, snapshot uploads and compaction all happen
    /// within a short simulation; seeded random file names.
    private static func tune(_ nonces: NonceSource) -> (SyncEngine) -> Void {
        { engine in
            engine.snapshotInterval = 4
            engine.largeUploadThreshold = 12
            // Every sync lists every other device's folders for files its record does
            // not name (two days back: clocks here are skewed by up to a day).
            engine.strayFileAge = -2 * 86_400_000
            engine.random = { nonces.next() }
        }
    }

    // MARK: - Steps

    mutating func run(steps: Int) throws {
        for _ in 0..<steps {
            step += 1
            trueTime += Int64.random(in: 1...5_000, using: &random.generator)
            setClocks()
            let index = randomInt(0..<members.count)
            let member = members[index]
            let roll = randomInt(0..<100)
            trace("roll \(roll) on \(member.device.name) (\(member.device.id.prefix(8)))")
            switch roll {
            case 0..<17: try local(index) { simulation, device in try simulation.add(on: device) }
            case 17..<35: try local(index) { simulation, device in try simulation.edit(on: device) }
            case 35..<42: try local(index) { simulation, device in try simulation.delete(on: device) }
            case 42..<46: try local(index) { simulation, device in try simulation.restoreFromTrash(on: device) }
            case 46..<49: try exportBackup(member.device)
            case 49..<52: try local(index) { simulation, device in try simulation.restoreBackup(on: device) }
            case 52..<54: try undoRestore(index)
            case 54..<57: try local(index) { simulation, device in try simulation.purge(on: device) }
            case 57: try local(index) { _, device in try device.library.emptyTrash() }
            case 58..<70: sync(member)
            case 70..<80: try faultySync(index)
            case 80..<83: try member.device.restart()
            case 83..<86: try saveCopy(of: index)
            case 86..<88: try restoreOlderCopy(of: index)
            case 88..<90: if members.count < 6 { try addDevice(copying: index) } else { sync(member) }
            case 90..<93: try withFullLibraryDisk(index)
            case 93..<96: network?.deliver(randomInt(1..<20), random: &random.generator)
            default:
                if !joined {
                    joined = true
                    try addDevice()
                } else {
                    sync(member)
                }
            }
            network?.deliver(randomInt(0..<4), random: &random.generator)
            try review()
            if Int.random(in: 0..<100, using: &updateRandom.generator) < 5 {
                try updateFromOlderVersion(Int.random(in: 0..<members.count, using: &updateRandom.generator))
            }
            // Once a fourth device (a joiner or a clone) is there, now and then one is lost.
            if members.count > 3 && Int.random(in: 0..<100, using: &lossRandom.generator) < 2 {
                try loseDevice(Int.random(in: 0..<members.count, using: &lossRandom.generator))
            }
        }
    }

    /// A device updated from the MiDiccio before tags merged one at a time: the tag clock
    /// of every word whose tags were written at once is NULL, as the update's migration
    /// leaves it (the list written whole at its time: the tags it leaves out were taken
    /// off then), and the next sync uploads every word once. The oracle sees a write of
    /// each such list at its tags' time, taking off every other tag of that word.
    ///
    /// A word whose clock holds marks keeps it: those marks were made by this version, so
    /// the version before never wrote that list (making such a list whole again would
    /// move its tags' places backwards, which no real update does: the order of a list
    /// and its marks' places no longer agreed, found with seed 720).
    mutating func updateFromOlderVersion(_ index: Int) throws {
        let device = members[index].device
        trace("\(device.name) updated from the version before tag clocks")
        let state = try device.state().filter { $0.value.tagClock.marks.isEmpty }
        for id in state.keys { try device.library.database.run("UPDATE words SET tag_clock = NULL WHERE id = ?", [.text(id.rawValue)]) }
        try device.library.database.run("INSERT OR REPLACE INTO library_info (key, value) VALUES ('sync.fullUpload', '1')")
        for (id, stored) in state {
            let time = stored.times.tags
            let earlier = writes[id]?[.tags] ?? []
            guard let writer = (earlier.filter { $0.time == time && !$0.lost }.first ?? earlier.first { $0.time == time })?.writer
            else { continue }
            var write = ObservedWrite(word: stored.word, time: time, writer: writer, device: device.name, step: step)
            write.wholeList = true
            for (position, tag) in stored.word.tags.enumerated() {
                write.tagMarks[TagSet.key(tag)] = TagClock.Mark(time: time, isPresent: true, orderTime: time, position: position, form: tag)
            }
            writes[id, default: [:]][.tags, default: []].append(write)
        }
    }

    /// Now and then, an answer to a word outside the Trash on some device (issue 15).
    private mutating func review() throws {
        guard Int.random(in: 0..<100, using: &reviewRandom.generator) < 30 else { return }
        let device = members[Int.random(in: 0..<members.count, using: &reviewRandom.generator)].device
        guard let word = try device.library.list().randomElement(using: &reviewRandom.generator) else { return }
        let grade = ReviewGrade.allCases.randomElement(using: &reviewRandom.generator)!
        do {
            try device.library.review(word.id, grade: grade, seconds: 3)
        } catch LibraryError.storage(let error) where error.code & 0xFF == 13 {
            // SQLITE_FULL (a full library disk): refused, rolled back.
        }
        reviews += 1
        trace("\(device.name) answered \(grade.name) to \(word.id)")
    }

    private func setClocks() {
        for member in members { member.device.clock.set(Timestamp(milliseconds: trueTime + member.skew)) }
    }

    /// Syncs; a thrown error is a failed sync (the fault under test), not a test failure.
    @discardableResult
    private func sync(_ member: Member) -> Result<SyncReport, Error> {
        let result = Result { try member.device.sync(allowMassDelete: true) }
        switch result {
        case .success(let report):
            trace(
                "\(member.device.name) (\(member.device.id.prefix(8))) synced: pulled \(report.pulled) pushed \(report.pushed) merged \(report.merged) snapshot \(report.snapshotWritten) removed \(report.filesRemoved) skipped \(report.skippedFiles.map { $0.path + ": " + $0.reason }) new id \(report.newIdentity.map { $0.old.prefix(8) + "→" + $0.new.prefix(8) + " " + $0.reason } ?? "-")"
            )
        case .failure(let error):
            trace("\(member.device.name) (\(member.device.id.prefix(8))) sync failed: \(error)")
        }
        return result
    }

    /// Runs a local operation and records every field write it committed. With
    /// `tolerateFullDisk`, an operation refused by a full disk is no failure (it must
    /// then have changed nothing, which the oracle sees).
    mutating func local(
        _ index: Int, tolerateFullDisk: Bool = false,
        _ operation: (inout Simulation, TestDevice) throws -> Void
    ) throws {
        let device = members[index].device
        let before = try device.state()
        do {
            try operation(&self, device)
        } catch LibraryError.storage(let error) where tolerateFullDisk && error.code & 0xFF == 13 {
            // SQLITE_FULL: refused, rolled back.
        }
        let after = try device.state()
        for id in Set(before.keys).subtracting(after.keys) where purged[id] == nil {
            purged[id] = Origin(device: device.name, step: step)
            droppedPurges[id] = nil
        }
        for (id, stored) in after {
            if created[id] == nil {
                created[id] = Origin(device: device.name, step: step)
                if tokens[id] == nil, let token = Self.token(in: stored.word.notes) { reissued[token, default: []].insert(id) }
            }
            for field in WordField.allCases where before[id]?.times[field] != stored.times[field] {
                var write = ObservedWrite(
                    word: stored.word, time: stored.times[field], writer: device.library.deviceID, device: device.name, step: step)
                if field == .tags {
                    write.tagMarks = stored.tagClock.resolved(tags: stored.word.tags, time: stored.times.tags)
                        .filter { $0.value.time == stored.times.tags }
                    // A list written whole (a replace restore): every tag it leaves out is
                    // off from its time, on every device.
                    write.wholeList = stored.tagClock.floor == stored.times.tags
                }
                writes[id, default: [:]][field, default: []].append(write)
            }
        }
    }

    mutating func add(on device: TestDevice) throws {
        // A token no other word carries, so the check can look for this word's text.
        tokenCount += 1
        let token = "qzx" + String(format: "%05d", tokenCount) + "qzx"
        let content = WordContent(
            term: pick(words)!, meaning: pick(texts)!, notes: token,
            tags: Array(tags.shuffled(using: &random.generator).prefix(randomInt(0..<3))))
        let id = try device.library.add(content).word.id
        tokens[id] = token
    }

    /// The token `add` put in a word's notes, if `text` holds one.
    static func token(in text: String) -> String? {
        guard let start = text.range(of: "qzx"), let end = text.range(of: "qzx", range: start.upperBound..<text.endIndex) else {
            return nil
        }
        return String(text[start.lowerBound..<end.upperBound])
    }

    mutating func edit(on device: TestDevice) throws {
        guard let word = pick(try device.library.list()) else { return }
        var edit = WordEdit()
        switch randomInt(0..<6) {
        case 0: edit.term = pick(words)
        case 1: edit.meaning = pick(texts)
        case 2: edit.reading = pick(texts)
        case 3: edit.examples = Array(["Una frase.", "Otra frase.", "😀 ejemplo"].prefix(randomInt(0..<4)))
        case 4: edit.notes = pick(texts)
        default:
            edit.addTags = [pick(tags)!]
            edit.removeTags = word.tags.isEmpty ? [] : [pick(word.tags)!]
        }
        try device.library.edit(word.id, edit)
    }

    mutating func delete(on device: TestDevice) throws {
        guard let word = pick(try device.library.list()) else { return }
        try device.library.delete([word.id])
    }

    mutating func restoreFromTrash(on device: TestDevice) throws {
        guard let word = pick(try device.library.trash()) else { return }
        try device.library.restore([word.id])
    }

    mutating func purge(on device: TestDevice) throws {
        guard let word = pick(try device.library.trash(includeHidden: true)) else { return }
        try device.library.purge([word.id])
    }

    mutating func exportBackup(_ device: TestDevice) throws {
        let path = folder + "/backup-\(backups.count).json"
        try device.library.exportBackup(to: path)
        backups.append(path)
    }

    mutating func restoreBackup(on device: TestDevice) throws {
        guard let path = pick(backups) else { return }
        if try device.library.restoreBackup(from: path, replace: randomBool()).changedWords { restoreSteps[device.name] = step }
    }

    /// `backup undo`. Undone before any sync met it, a restore is taken back whole: what
    /// the undo puts back are the writes from before the restore, times and writers and
    /// all (not new ones), and the restore's own writes are nowhere any more, unless a copy
    /// of the library file took them elsewhere.
    mutating func undoRestore(_ index: Int) throws {
        var retracted = false
        try local(index) { _, device in retracted = (try? device.library.undoRestore())?.undoneBeforeSync ?? false }
        guard retracted else { return }
        let name = members[index].device.name
        trace("\(name) undid a restore no sync had met")
        for (id, fields) in writes {
            for (field, list) in fields {
                guard let last = list.last, last.step == step, last.device == name,
                    list.dropLast().contains(where: { $0.time == last.time && fieldText($0.word, field) == fieldText(last.word, field) })
                else { continue }
                writes[id]?[field]?.removeLast()
            }
        }
        // The restore's writes are lost where they are nowhere now, each tag mark on its own.
        guard let restoreStep = restoreSteps[name] else { return }
        var present = try survivingKnowledge(excluding: index)
        try present.note(SyncStore(members[index].device.library))
        for (id, fields) in writes {
            for (field, list) in fields {
                for (position, write) in list.enumerated() where write.device == name && write.step == restoreStep {
                    let key = WriteKey(id: id, field: field, time: write.time, writer: write.writer, value: fieldText(write.word, field))
                    var held = present.writes.contains(key)
                    for (tag, mark) in write.tagMarks {
                        if present.tagMarks.contains(TagMarkKey(id: id, tag: tag, mark: mark)) {
                            held = true
                        } else {
                            writes[id]?[field]?[position].lostTagMarks.insert(tag)
                        }
                    }
                    if !held { writes[id]?[field]?[position].lost = true }
                }
            }
        }
    }

    /// A sync under one fault: writes failing midway, a crash between the upload and the
    /// local commit, an unreadable cloud file, an unreachable cloud, or a full disk in
    /// the cloud.
    mutating func faultySync(_ index: Int) throws {
        let storage = members[index].storage
        let device = members[index].device
        switch randomInt(0..<5) {
        case 0:
            storage.faults.failWritesAfter = randomInt(0..<3)
            sync(members[index])
            storage.faults.failWritesAfter = nil
        case 1:
            storage.beforeWrite = { path in
                if path.hasPrefix("devices/") { throw CloudError.unavailable("crash before the local commit") }
            }
            sync(members[index])
            storage.beforeWrite = nil
            try device.restart()
        case 2:
            let candidates = storage.files.keys.filter { $0.hasPrefix("changes/") || $0.hasPrefix("snapshots/") }.sorted()
            if let path = pick(candidates), let data = storage.files[path] {
                storage.faults.corruptReads[path] = data.prefix(data.count / 2)
            }
            sync(members[index])
            storage.faults.corruptReads = [:]
        case 3:
            storage.faults.unreachable = true
            sync(members[index])
            storage.faults.unreachable = false
        default:
            storage.faults.spaceLeft = randomInt(0..<3_000)
            sync(members[index])
            storage.faults.spaceLeft = nil
        }
    }

    /// Runs an operation, or a sync, while the library's disk is full: SQLite may not
    /// grow the file (`max_page_count`), as on a disk with no space left.
    mutating func withFullLibraryDisk(_ index: Int) throws {
        let device = members[index].device
        let pages = try device.library.guarded { try device.library.database.integer("PRAGMA page_count") ?? 1 }
        try device.library.guarded { try device.library.database.execute("PRAGMA max_page_count = \(pages)") }
        defer { try? device.library.guarded { try device.library.database.execute("PRAGMA max_page_count = 2147483646") } }
        switch randomInt(0..<3) {
        case 0: try local(index, tolerateFullDisk: true) { simulation, device in try simulation.add(on: device) }
        case 1: try local(index, tolerateFullDisk: true) { simulation, device in try simulation.edit(on: device) }
        default: sync(members[index])
        }
    }

    /// Keeps a copy of a device's library file, as a backup program does.
    mutating func saveCopy(of index: Int) throws {
        let path = folder + "/\(members[index].device.name)-copy-\(members[index].copies.count).sqlite"
        try members[index].device.copyLibraryFile(to: path)
        members[index].copies.append((path, step))
    }

    /// Puts back an older copy of a device's own library file. What the device did after
    /// that copy and never sent anywhere is gone with the newer file: the oracle counts it
    /// lost. What the copy holds (even what an earlier restore lost) is back.
    mutating func restoreOlderCopy(of index: Int) throws {
        guard let copy = pick(members[index].copies) else { return }
        let name = members[index].device.name
        trace("\(name) put back from its copy of step \(copy.step)")
        var present = try survivingKnowledge(excluding: index)
        present.formUnion(try knowledge(ofLibraryFile: copy.path))
        forget(name, after: copy.step, keeping: present)
        // What a device lost earlier left only in this library's newer file is gone too.
        // What another device's write left only in this library's newer file (that device
        // lost, or put back itself) is gone too.
        for other in Set(members.map(\.device.name)).union(lostDevices) where other != name {
            forget(other, after: -1, keeping: present)
        }
        try members[index].device.restoreLibraryFile(from: copy.path)
    }

    /// Loses a device for good (a laptop stolen, a phone in a lake): its library file and
    /// its copies, and with a file-sync client, what its folder had not passed on. What
    /// it wrote that reached the cloud or another device must still reach every device
    /// left; the oracle counts the rest lost.
    mutating func loseDevice(_ index: Int) throws {
        let name = members[index].device.name
        trace("\(name) (\(members[index].device.id.prefix(8))) is lost for good")
        if let storage = members[index].storage as? ReplicaStorage { network?.lose(storage.index) }
        let present = try survivingKnowledge(excluding: index)
        // So is what any device (lost earlier, or put back) left only here.
        lostDevices.append(name)
        for other in Set(members.map(\.device.name)).union(lostDevices) { forget(other, after: -1, keeping: present) }
        members.remove(at: index)
    }

    /// What `device` did after step `after` and is not in `present` is lost; what is
    /// there (even what was lost before) is back.
    private mutating func forget(_ name: String, after since: Int, keeping present: Knowledge) {
        for (id, fields) in writes {
            for (field, list) in fields {
                for (position, write) in list.enumerated() where write.device == name {
                    let key = WriteKey(id: id, field: field, time: write.time, writer: write.writer, value: fieldText(write.word, field))
                    var held = present.writes.contains(key)
                    // A list an update found takes tags off through its floor, known
                    // wherever a floor as new is.
                    if write.wholeList {
                        if present.floors[id].map({ $0 >= write.time }) == true {
                            writes[id]?[field]?[position].floorLost = false
                        } else if write.step > since {
                            writes[id]?[field]?[position].floorLost = true
                        }
                    }
                    for (tag, mark) in write.tagMarks {
                        if present.tagMarks.contains(TagMarkKey(id: id, tag: tag, mark: mark)) {
                            writes[id]?[field]?[position].lostTagMarks.remove(tag)
                            held = true
                        } else if write.step > since {
                            writes[id]?[field]?[position].lostTagMarks.insert(tag)
                        }
                    }
                    if held {
                        writes[id]?[field]?[position].lost = false
                    } else if write.step > since {
                        writes[id]?[field]?[position].lost = true
                    }
                }
            }
        }
        for (id, origin) in created where origin.device == name {
            if present.ids.contains(id) {
                lostCreations.remove(id)
            } else if origin.step > since {
                lostCreations.insert(id)
            }
        }
        for (id, origin) in purged where origin.device == name && origin.step > since && !present.markers.contains(id) {
            purged[id] = nil
            droppedPurges[id] = origin
        }
        for (id, origin) in droppedPurges where present.markers.contains(id) {
            purged[id] = origin
            droppedPurges[id] = nil
        }
    }

    struct WriteKey: Hashable {
        var id: WordID
        var field: WordField
        var time: Timestamp
        var writer: String
        var value: String
    }

    /// One tag put on or taken off one word (its place and form left out: a reorder
    /// elsewhere keeps the tag's mark alive).
    struct TagMarkKey: Hashable {
        var id: WordID
        var tag: String
        var time: Timestamp
        var isPresent: Bool

        init(id: WordID, tag: String, mark: TagClock.Mark) {
            self.id = id
            self.tag = tag
            time = mark.time
            isPresent = mark.isPresent
        }
    }

    /// What some holder (the cloud, devices, a library file) knows: field writes, tag
    /// marks, words and purge markers.
    struct Knowledge {
        var writes = Set<WriteKey>()
        var tagMarks = Set<TagMarkKey>()
        var ids = Set<WordID>()
        var markers = Set<WordID>()
        /// The newest floor of each word's tag clock (`TagClock.floor`).
        var floors: [WordID: Timestamp] = [:]

        mutating func note(_ record: SyncRecord) {
            ids.insert(record.word.id)
            if let floor = record.tagClock.floor { floors[record.word.id] = max(floor, floors[record.word.id] ?? floor) }
            for (tag, mark) in record.tagClock.resolved(tags: record.word.tags, time: record.times.tags) {
                tagMarks.insert(TagMarkKey(id: record.word.id, tag: tag, mark: mark))
            }
            for field in WordField.allCases {
                writes.insert(
                    WriteKey(
                        id: record.word.id, field: field, time: record.times[field], writer: record.writers[field.index],
                        value: fieldText(record.word, field)))
            }
        }

        mutating func note(_ store: SyncStore) throws {
            for record in try store.allRecords() { note(record) }
            markers.formUnion(try store.purgedIDs())
        }

        mutating func formUnion(_ other: Knowledge) {
            writes.formUnion(other.writes)
            tagMarks.formUnion(other.tagMarks)
            ids.formUnion(other.ids)
            markers.formUnion(other.markers)
            floors.merge(other.floors) { max($0, $1) }
        }
    }

    /// Everything held by the cloud or by a device other than `excluded`. Every file in
    /// the cloud counts, a device's whose record never arrived too: the look for stray
    /// files reads them (`SyncSession.unrecordedDevices`).
    private func survivingKnowledge(excluding excluded: Int) throws -> Knowledge {
        var knowledge = Knowledge()
        for (_, data) in cloudFiles() {
            guard let batch = try? BatchCodec.decode(data) else { continue }
            batch.records.forEach { knowledge.note($0) }
            knowledge.markers.formUnion(batch.markers.map(\.id))
        }
        for (index, member) in members.enumerated() where index != excluded {
            try knowledge.note(SyncStore(member.device.library))
        }
        return knowledge
    }

    /// Everything in a library file (opened as a copy, so the file itself stays as it is).
    private func knowledge(ofLibraryFile path: String) throws -> Knowledge {
        let scratch = folder + "/scratch-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: scratch + suffix) } }
        try FileManager.default.copyItem(atPath: path, toPath: scratch)
        if FileManager.default.fileExists(atPath: path + "-wal") {
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: scratch + "-wal")
        }
        var knowledge = Knowledge()
        try knowledge.note(SyncStore(try WordLibrary(path: scratch, create: false, environment: [:])))
        return knowledge
    }

    /// Every file in the cloud (every copy of the folder; nothing is on its way once
    /// the simulation has finished).
    private func cloudFiles() -> [(path: String, data: Data)] {
        if let network {
            return network.liveReplicas.flatMap { network.files(in: $0).map { ($0.key, $0.value) } }
        }
        return shared!.files.map { ($0.key, $0.value) }
    }

    // MARK: - Final round and checks

    mutating func finish() throws {
        for index in members.indices {
            let storage = members[index].storage
            storage.faults = MemoryStorage.Faults()
            storage.beforeWrite = nil
        }
        for round in 0..<6 {
            network?.deliverAll()
            trueTime += 1_000
            setClocks()
            for member in members {
                if case .failure(let error) = sync(member) {
                    Issue.record("seed \(seed): fault-free sync \(round) of \(member.device.name) failed: \(error)")
                }
            }
        }
        network?.deliverAll()
        if tracing {
            for member in members {
                let state = try SyncState.load(from: SyncStore(member.device.library))
                trace(
                    "\(member.device.name) (\(member.device.id.prefix(8))): lastSeq \(state.lastSeq) snapshot \(state.snapshotSeq) cursors \(state.cursors.map { "\($0.key.prefix(8))=\($0.value)" }.sorted()) files \(state.files.map(\.path)) absorbed \(state.absorbed)"
                )
            }
            for file in cloudFiles()
            where file.path.hasPrefix("devices/") || file.path.hasPrefix("changes/") || file.path.hasPrefix("snapshots/") {
                if let record = DeviceRecord.decode(file.data) {
                    trace(
                        "  \(file.path): lastSeq \(record.lastSeq) snapshot \(record.snapshotSeq) \(record.snapshotName ?? "-") changes \(record.changeNames ?? []) absorbed \(record.absorbed)"
                    )
                }
            }
            if let network {
                for index in network.replicas.indices { trace("replica \(index): \(network.files(in: index).keys.sorted())") }
            }
        }
    }

    func check() throws {
        let states = try members.map { try $0.device.state() }
        let alive = Set(created.keys).subtracting(lostCreations).subtracting(purged.keys)
        for (member, state) in zip(members, states) {
            let device = member.device
            // No device holds any field of a purged word, and every device knows it is gone.
            let reappeared = Set(purged.keys).intersection(state.keys)
            #expect(reappeared.isEmpty, "seed \(seed): purged word(s) \(reappeared) are back on \(device.name)")
            for id in purged.keys {
                #expect(try device.library.isPurged(id), "seed \(seed): \(device.name) has no purge marker for \(id)")
            }
            let missing = alive.subtracting(state.keys)
            #expect(
                missing.isEmpty,
                "seed \(seed): \(device.name) lost \(missing.count) word(s): \(missing.map { id in "\(id) made on \(created[id].map { "\($0.device) at step \($0.step)" } ?? "?"), writes \((writes[id] ?? [:]).values.flatMap { $0 }.map { "\($0.device)@\($0.step)" }.sorted())" })"
            )
            let pending = state.values.filter(\.pending).count
            #expect(pending == 0, "seed \(seed): \(device.name) still has \(pending) pending word(s)")
        }
        let reference = states[0]
        for id in alive {
            guard let expected = reference[id] else { continue }
            for (member, state) in zip(members.dropFirst(), states.dropFirst()) {
                guard let other = state[id] else { continue }
                #expect(
                    other.word == expected.word && other.times == expected.times,
                    "seed \(seed): \(member.device.name) disagrees with \(members[0].device.name) on \(id): \(other.word) vs \(expected.word)"
                )
            }
            for field in WordField.allCases {
                let standing = (writes[id]?[field] ?? []).filter { !$0.lost }
                guard let last = standing.max(by: Self.isOlder(field)) else { continue }
                if field == .tags {
                    checkTags(of: id, expected, standing: standing, newest: last)
                    continue
                }
                #expect(
                    fieldText(expected.word, field) == fieldText(last.word, field) && expected.times[field] == last.time,
                    "seed \(seed): \(id) field \(field) holds \(fieldText(expected.word, field).debugDescription) at \(expected.times[field]), but the last write was \(fieldText(last.word, field).debugDescription) at \(last.time) by \(last.writer) (writes: \((writes[id]?[field] ?? []).map { "\($0.device)@\($0.step) \($0.time.milliseconds % 100_000)" }))"
                )
            }
        }
        try checkNoPurgedText(states)
        try checkSameSchedules(states)
    }

    /// Every device holds the same review events for every word, and so derives the same
    /// schedule; none of them is left unsent.
    private func checkSameSchedules(_ states: [[WordID: StoredWord]]) throws {
        let reference = members[0].device.library
        for id in states[0].keys {
            let events = try reference.reviewEvents(of: id)
            let schedule = try reference.studySchedule(of: id)
            for (index, member) in members.enumerated().dropFirst() where states[index][id] != nil {
                let library = member.device.library
                #expect(
                    try library.reviewEvents(of: id) == events,
                    "seed \(seed): \(member.device.name) has other review events for \(id): \((try? library.reviewEvents(of: id)) ?? []) vs \(events)"
                )
                #expect(
                    try library.studySchedule(of: id) == schedule, "seed \(seed): \(member.device.name) derives another schedule for \(id)")
            }
        }
        for id in purged.keys {
            #expect(try reference.reviewEvents(of: id).isEmpty, "seed \(seed): a purged word's events remain")
        }
    }

    /// Tags merge one tag at a time: the word holds each tag whose newest mark, among the
    /// marks not lost, put it on (at one millisecond, putting on beats taking off), and
    /// the field's time is that of its newest write not lost.
    private func checkTags(of id: WordID, _ stored: StoredWord, standing: [ObservedWrite], newest: ObservedWrite) {
        var marks: [String: TagClock.Mark] = [:]
        let everyKey = Set((writes[id]?[.tags] ?? []).flatMap(\.tagMarks.keys))
        for write in standing {
            var writeMarks = write.tagMarks.filter { !write.lostTagMarks.contains($0.key) }
            if write.wholeList && !write.floorLost {
                for key in everyKey where write.tagMarks[key] == nil {
                    writeMarks[key] = TagClock.Mark(time: write.time, isPresent: false, orderTime: write.time, position: 0, form: key)
                }
            }
            for (key, mark) in writeMarks {
                if marks[key].map({ mark.presenceBeats($0) }) ?? true { marks[key] = mark }
            }
        }
        let expected = Set(marks.filter(\.value.isPresent).keys)
        let held = Set(stored.word.tags.map(TagSet.key))
        #expect(
            held == expected && stored.times.tags == newest.time,
            "seed \(seed): \(id) holds tags \(held.sorted()) at \(stored.times.tags), but its writes put on \(expected.sorted()), the newest at \(newest.time) (writes: \(standing.map { "\($0.device)@\($0.step) \($0.time.milliseconds % 100_000) \($0.tagMarks.map { "\($0.key)\($0.value.isPresent ? "+" : "-")" }.sorted())" }))"
        )
    }

    /// The oracle's order of two writes of one field: by time, then by writer id, then
    /// (two copies of one library writing in the same millisecond) by the larger value.
    private static func isOlder(_ field: WordField) -> (ObservedWrite, ObservedWrite) -> Bool {
        { lhs, rhs in
            if lhs.time != rhs.time { return lhs.time < rhs.time }
            if lhs.writer != rhs.writer { return lhs.writer < rhs.writer }
            return rhs.word.valueOrdersAfter(field, lhs.word)
        }
    }

    /// No purged word's text (its token) remains in any cloud file or library file,
    /// unless a word that is not purged holds the same text (a backup restored with
    /// --replace brings a purged word back under a new id).
    ///
    /// One exception, which status must then admit: when a library was put back from a
    /// copy older than its last change of id, the id it had since is used by nobody, and
    /// that device's record, which never moves again, holds back the removal of old
    /// files everywhere (as any device silent for less than the retention period does).
    /// Then a file may still hold purged text, and the status of the device whose file
    /// it is (of every device, for the abandoned id's own files) must say that content
    /// of purged words may remain.
    private func checkNoPurgedText(_ states: [[WordID: StoredWord]]) throws {
        let liveText = states.flatMap { $0.values.map { $0.word.notes + $0.word.meaning + $0.word.reading } }.joined()
        let forbidden = purged.keys.compactMap { tokens[$0] }.filter { token in
            !liveText.contains(token) && (reissued[token] ?? []).allSatisfy { purged[$0] != nil }
        }
        guard !forbidden.isEmpty else { return }
        let files = cloudFiles()
        let memberIDs = Dictionary(members.map { ($0.device.id, $0) }, uniquingKeysWith: { first, _ in first })
        var recordIDs = Set<String>(), taken = Set<String>()
        for file in files where file.path.hasPrefix("devices/") {
            guard let record = DeviceRecord.decode(file.data) else { continue }
            recordIDs.insert(record.device)
            taken.formUnion(record.absorbed.keys)
        }
        let abandoned = recordIDs.subtracting(memberIDs.keys).subtracting(taken)
        for file in files {
            let bytes = (try? BatchCodec.decompress(file.data)) ?? [UInt8](file.data)
            let text = String(decoding: bytes, as: UTF8.self)
            for token in forbidden where text.contains(token) {
                let owner = file.path.split(separator: "/").dropFirst().first.map(String.init) ?? ""
                let location = "seed \(seed): the text of a purged word (\(token)) is still in cloud file \(file.path)"
                guard !abandoned.isEmpty else {
                    Issue.record("\(location), and every device's id is in use")
                    continue
                }
                let answerable = memberIDs[owner].map { [$0] } ?? members
                for member in answerable {
                    let status = try member.device.engine.status()
                    #expect(!status.purgedContentRemains.isEmpty, "\(location), and \(member.device.name)'s status says none remains")
                }
            }
        }
        for member in members {
            for suffix in ["", "-wal"] {
                guard let data = FileManager.default.contents(atPath: member.device.path + suffix) else { continue }
                let text = String(decoding: data, as: UTF8.self)
                for token in forbidden where text.contains(token) {
                    Issue.record(
                        "seed \(seed): the text of a purged word (\(token)) is still in \(member.device.name)'s library file\(suffix)")
                }
            }
        }
    }
}

/// Word ids from a seeded generator, so a replayed seed makes the same ids.
private final class IDSource: @unchecked Sendable {
    private var generator: SeededGenerator
    init(_ generator: SeededGenerator) { self.generator = generator }
    func nextID() -> WordID { WordID.random(using: &generator) }
}

/// Random parts of file names from a seeded generator.
private final class NonceSource: @unchecked Sendable {
    private let lock = NSLock()
    private var generator: SeededGenerator
    init(_ generator: SeededGenerator) { self.generator = generator }
    func next() -> UInt64 { lock.withLock { generator.next() } }
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
