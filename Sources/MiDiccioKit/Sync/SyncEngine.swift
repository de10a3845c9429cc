import Foundation

/// Syncs one library with one cloud folder.
///
/// A sync pulls first, merges, then uploads only pending words, then records where it
/// got to. Everything it changes locally commits in one transaction with the data, so
/// a sync that fails anywhere leaves the library as it was and the next one resumes.
public final class SyncEngine {
    /// The library being synced.
    public let library: WordLibrary
    /// The cloud.
    public let storage: any CloudStorage
    /// The app version written into this device's record.
    public let appVersion: String
    /// Write a snapshot once this many change files follow the last one.
    public var snapshotInterval: Int64 = 32
    /// Upload as a snapshot instead of a change file above this many pending words.
    public var largeUploadThreshold = 2_000

    private var deviceID: String { library.deviceID }
    private var numberByDevice: [String: Int64] = [:]
    private var deviceByNumber: [Int64: String] = [:]

    /// Makes an engine for `library` and `storage`.
    public init(library: WordLibrary, storage: any CloudStorage, appVersion: String = "midiccio") {
        self.library = library
        self.storage = storage
        self.appVersion = appVersion
    }

    // MARK: - Sync

    /// Runs one sync. Throws `SyncError`; local data is untouched when it does.
    @discardableResult
    public func sync(allowMassDelete: Bool = false) throws -> SyncReport {
        var report = SyncReport()
        do {
            try checkManifest()
            try adoptOwnRecordIfNew()
            let others = try readDeviceRecords(report: &report)
            try pull(from: others, allowMassDelete: allowMassDelete, report: &report)
            let uploaded = try upload(report: &report)
            let snapshot = try writeSnapshotIfDue(report: &report)
            try publishRecordIfNeeded(force: uploaded || snapshot, others: others, report: &report)
            try compact(others: others, report: &report)
            try library.writing { try library.setInfo("sync.lastSync", String(library.clock.now().milliseconds)) }
        } catch let error as CloudError {
            throw SyncError.cloud(error)
        }
        return report
    }

    // MARK: - Manifest

    private func checkManifest() throws {
        guard let data = try storage.read(CloudLayout.manifestPath) else {
            // A new cloud folder: this device starts it.
            try storage.write(CloudLayout.manifestPath, CloudManifest.current.encoded())
            return
        }
        guard let manifest = CloudManifest.decode(data) else {
            throw SyncError.badManifest("not a MiDiccio manifest")
        }
        if manifest.minimumReadVersion > CloudManifest.currentVersion || manifest.minimumWriteVersion > CloudManifest.currentVersion {
            throw SyncError.cloudTooNew(version: manifest.version)
        }
    }

    /// On the first sync with a cloud, continues this device's numbering if the cloud
    /// already holds its files (the remote was removed and set again): reusing a number
    /// would hide new changes from devices that already read the old file.
    private func adoptOwnRecordIfNew() throws {
        guard try library.guarded({ try library.info("sync.lastSeq") }) == nil else { return }
        guard let data = try storage.read(CloudLayout.devicePath(deviceID)), let record = DeviceRecord.decode(data) else { return }
        var highest = record.lastSeq
        for entry in try storage.list(CloudLayout.changesFolder(deviceID)) {
            if let seq = CloudLayout.seq(fromName: entry.name, suffix: ".chg") { highest = max(highest, seq) }
        }
        try library.writing {
            try library.setInfo("sync.lastSeq", String(highest))
            try library.setInfo("sync.snapshotSeq", String(record.snapshotSeq))
        }
    }

    // MARK: - Pull

    private func readDeviceRecords(report: inout SyncReport) throws -> [DeviceRecord] {
        var records: [DeviceRecord] = []
        for entry in try storage.list(CloudLayout.devicesFolder) {
            guard let device = CloudLayout.device(fromRecordName: entry.name), device != deviceID else { continue }
            let path = CloudLayout.devicePath(device)
            guard let data = try storage.read(path) else { continue }
            guard let record = DeviceRecord.decode(data), record.device == device else {
                report.skippedFiles.append(SkippedFile(path: path, reason: "not a readable device record"))
                continue
            }
            records.append(record)
        }
        return records.sorted { $0.device < $1.device }
    }

    private func pull(from others: [DeviceRecord], allowMassDelete: Bool, report: inout SyncReport) throws {
        let cursors = try library.guarded { try loadCursors() }
        var newCursors = cursors
        var batches: [SyncBatch] = []
        for record in others {
            let start = newCursors[record.device] ?? 0
            guard record.lastSeq > start else { continue }
            let (fetched, reached) = try fetch(record, from: start, report: &report)
            guard !fetched.isEmpty else { continue }
            batches += fetched
            newCursors[record.device] = max(newCursors[record.device] ?? 0, reached)
            // A snapshot already holds what its writer had read from others.
            for batch in fetched where batch.kind == .snapshot {
                for (device, seq) in batch.cursors where device != deviceID {
                    newCursors[device] = max(newCursors[device] ?? 0, seq)
                }
            }
        }
        guard !batches.isEmpty else { return }
        try library.writing {
            try loadDeviceNumbers()
            let live = try library.counts().words
            var trashed = 0
            // A new device skips the lookup of words it cannot have yet (a first sync of
            // 100,000 words), except those an earlier batch of this sync inserted.
            let empty = try (library.database.integer("SELECT count(*) FROM words") ?? 0) == 0
            var inserted = Set<WordID>()
            for batch in batches {
                for incoming in batch.records {
                    let mayExist = !empty || inserted.contains(incoming.word.id)
                    let local = mayExist ? try library.stored(incoming.word.id) : nil
                    if local == nil { inserted.insert(incoming.word.id) }
                    let localRecord = local.map(syncRecord)
                    let outcome = MergeRules.merge(local: localRecord, incoming: incoming)
                    guard outcome.changed else { continue }
                    let merged = outcome.record
                    if let local, !local.word.isDeleted, merged.word.isDeleted { trashed += 1 }
                    if !outcome.changedFields.isEmpty {
                        if local?.pending == true { report.merged += 1 } else { report.pulled += 1 }
                    }
                    try library.save(merged.word, times: merged.times, writers: try merged.writers.map(number),
                                     previous: local, pending: false)
                }
            }
            // Joplin lost notes when a sync read absence as deletion; MiDiccio never does,
            // and still stops when other devices' edits would empty much of the library.
            if !allowMassDelete, live >= 20, trashed * 2 > live {
                throw SyncError.massDeletion(count: trashed, of: live)
            }
            for (device, seq) in newCursors where seq != cursors[device] {
                try library.database.run("INSERT INTO sync_cursors (device_id, seq) VALUES (?, ?) ON CONFLICT (device_id) DO UPDATE SET seq = excluded.seq",
                                         [.text(device), .integer(seq)])
            }
        }
    }

    /// Reads `record`'s entries after `start`: change files in order, jumping through its
    /// snapshot where change files are gone (compacted) or were never written (a full
    /// upload). Stops at a missing file the snapshot does not cover (a sync client may
    /// deliver files out of order) and at an unreadable file, which is reported.
    private func fetch(_ record: DeviceRecord, from start: Int64, report: inout SyncReport) throws -> ([SyncBatch], Int64) {
        var cursor = start
        var batches: [SyncBatch] = []
        var usedSnapshot = false
        func readSnapshot() throws -> Bool {
            guard !usedSnapshot, record.snapshotSeq > cursor else { return false }
            usedSnapshot = true
            let path = CloudLayout.snapshotPath(record.device, record.snapshotSeq)
            guard let data = try storage.read(path) else { return false }
            do {
                let batch = try BatchCodec.decode(data)
                guard batch.device == record.device, batch.kind == .snapshot else {
                    throw BatchDecodeError(message: "belongs to another device")
                }
                batches.append(batch)
                cursor = record.snapshotSeq
                return true
            } catch {
                report.skippedFiles.append(SkippedFile(path: path, reason: "\(error)"))
                return false
            }
        }
        // Far behind a snapshot: one snapshot beats many change files.
        if record.snapshotSeq - cursor > snapshotInterval { _ = try readSnapshot() }
        while cursor < record.lastSeq {
            let next = cursor + 1
            let path = CloudLayout.changePath(record.device, next)
            if let data = try storage.read(path) {
                do {
                    let batch = try BatchCodec.decode(data)
                    guard batch.device == record.device, batch.seq == next else {
                        throw BatchDecodeError(message: "holds another device's or sequence's changes")
                    }
                    batches.append(batch)
                    cursor = next
                    continue
                } catch {
                    if try readSnapshot() { continue }
                    report.skippedFiles.append(SkippedFile(path: path, reason: "\(error)"))
                    break
                }
            }
            if try readSnapshot() { continue }
            break
        }
        return (batches, cursor)
    }

    // MARK: - Upload

    private func upload(report: inout SyncReport) throws -> Bool {
        let state = try library.guarded { try loadOwnState() }
        var seq = state.lastSeq + 1
        if let inflight = state.inflight {
            // A previous upload stopped between writing its file and committing here.
            let written = try storage.read(CloudLayout.changePath(deviceID, inflight)) != nil
                || storage.read(CloudLayout.snapshotPath(deviceID, inflight)) != nil
            if written {
                try library.writing { try library.setInfo("sync.lastSeq", String(inflight)) }
                seq = inflight + 1
            } else {
                seq = inflight
            }
        }
        let fullUpload = try library.guarded { try library.info("sync.fullUpload") == "1" }
        let pending = try library.guarded {
            try library.database.cached("SELECT \(WordLibrary.columns) FROM words WHERE pending = 1 ORDER BY seq")
                .rows([], WordLibrary.storedWord)
        }
        guard fullUpload || !pending.isEmpty else {
            if state.inflight != nil { try library.writing { try library.database.run("DELETE FROM library_info WHERE key = 'sync.inflightSeq'") } }
            return false
        }
        try library.writing { try library.setInfo("sync.inflightSeq", String(seq)) }
        try loadDeviceNumbers()
        let asSnapshot = fullUpload || pending.count > largeUploadThreshold
        if asSnapshot {
            try writeSnapshot(seq: seq, report: &report)
            report.fullUpload = fullUpload
            report.pushed = pending.count
        } else {
            let batch = SyncBatch(kind: .changes, device: deviceID, seq: seq, records: pending.map(syncRecord))
            let data = BatchCodec.encode(batch)
            try storage.write(CloudLayout.changePath(deviceID, seq), data)
            report.filesWritten += 1
            report.bytesWritten += data.count
            report.pushed = pending.count
        }
        try library.writing {
            // A word edited while its upload was in flight has a newer change number and
            // stays pending.
            for word in pending {
                try library.database.run("UPDATE words SET pending = 0 WHERE seq = ? AND local_change = ?",
                                         [.integer(word.seq), .integer(word.localChange)])
            }
            try library.setInfo("sync.lastSeq", String(seq))
            if asSnapshot { try library.setInfo("sync.snapshotSeq", String(seq)) }
            try library.database.run("DELETE FROM library_info WHERE key IN ('sync.inflightSeq', 'sync.fullUpload')")
        }
        return true
    }

    // MARK: - Snapshots and compaction

    private func writeSnapshotIfDue(report: inout SyncReport) throws -> Bool {
        let state = try library.guarded { try loadOwnState() }
        guard state.lastSeq - state.snapshotSeq >= snapshotInterval else { return false }
        try loadDeviceNumbers()
        try writeSnapshot(seq: state.lastSeq, report: &report)
        try library.writing { try library.setInfo("sync.snapshotSeq", String(state.lastSeq)) }
        return true
    }

    /// Writes the whole library as snapshot `seq` (covering this device's entries up to
    /// `seq`), read in one transaction so words and cursors agree.
    private func writeSnapshot(seq: Int64, report: inout SyncReport) throws {
        let (records, cursors) = try library.guarded {
            try library.database.read {
                let records = try library.database.cached("SELECT \(WordLibrary.columns) FROM words ORDER BY seq")
                    .rows([], WordLibrary.storedWord).map(syncRecord)
                return (records, try loadCursors())
            }
        }
        let data = BatchCodec.encode(SyncBatch(kind: .snapshot, device: deviceID, seq: seq, cursors: cursors, records: records))
        try storage.write(CloudLayout.snapshotPath(deviceID, seq), data)
        report.snapshotWritten = true
        report.filesWritten += 1
        report.bytesWritten += data.count
    }

    /// Removes this device's change files that its snapshot covers and every known device
    /// has read, and its older snapshots. Only ever this device's own files.
    private func compact(others: [DeviceRecord], report: inout SyncReport) throws {
        let state = try library.guarded { try loadOwnState() }
        guard state.snapshotSeq > 0 else { return }
        let readByAll = others.map { $0.read[deviceID] ?? 0 }.min() ?? state.snapshotSeq
        let limit = min(state.snapshotSeq, readByAll)
        guard limit > state.compactedThrough else { return }
        for seq in (state.compactedThrough + 1)...limit {
            if try storage.delete(CloudLayout.changePath(deviceID, seq)) { report.filesRemoved += 1 }
        }
        for entry in try storage.list(CloudLayout.snapshotsFolder(deviceID)) {
            if let seq = CloudLayout.seq(fromName: entry.name, suffix: ".snap"), seq < state.snapshotSeq, seq <= readByAll {
                if try storage.delete(CloudLayout.snapshotsFolder(deviceID) + "/" + entry.name) { report.filesRemoved += 1 }
            }
        }
        try library.writing { try library.setInfo("sync.compactedThrough", String(limit)) }
    }

    // MARK: - Device record

    private func publishRecordIfNeeded(force: Bool, others: [DeviceRecord], report: inout SyncReport) throws {
        let (state, cursors, digest, count, name) = try library.guarded {
            (try loadOwnState(), try loadCursors(), try library.libraryDigest(),
             Int(try library.database.integer("SELECT count(*) FROM words") ?? 0), try deviceName())
        }
        let published = try library.guarded { try library.info("sync.publishedRecord") }
        let signature = "\(state.lastSeq)|\(state.snapshotSeq)|\(cursors.sorted { $0.key < $1.key })|\(digest)|\(name)"
        guard force || published != signature else { return }
        let record = DeviceRecord(device: deviceID, name: name, app: appVersion, lastSync: library.clock.now(),
                                  lastSeq: state.lastSeq, snapshotSeq: state.snapshotSeq, read: cursors,
                                  digest: digest, wordCount: count)
        let data = record.encoded()
        try storage.write(CloudLayout.devicePath(deviceID), data)
        report.filesWritten += 1
        report.bytesWritten += data.count
        try library.writing { try library.setInfo("sync.publishedRecord", signature) }
    }

    // MARK: - Status

    /// This device's sync state, and every device in the cloud when it can be reached.
    public func status() throws -> SyncStatus {
        let (pending, lastSync, fullUpload, digest, name) = try library.guarded {
            (Int(try library.database.integer("SELECT count(*) FROM words WHERE pending = 1") ?? 0),
             try library.info("sync.lastSync").flatMap(Int64.init).map(Timestamp.init(milliseconds:)),
             try library.info("sync.fullUpload") == "1", try library.libraryDigest(), try deviceName())
        }
        var status = SyncStatus(deviceID: deviceID, deviceName: name, remote: storage.displayName, lastSync: lastSync,
                                pending: pending, fullUploadPending: fullUpload, devices: [], cloudProblem: nil)
        status.devices.append(.init(id: deviceID, name: name, app: appVersion, lastSync: lastSync, agrees: true, isThisDevice: true))
        do {
            var ignored = SyncReport()
            for record in try readDeviceRecords(report: &ignored) {
                status.devices.append(.init(id: record.device, name: record.name, app: record.app, lastSync: record.lastSync,
                                            agrees: record.digest == digest, isThisDevice: false))
            }
        } catch {
            status.cloudProblem = "\(error)"
        }
        return status
    }

    // MARK: - Local state

    private struct OwnState {
        var lastSeq: Int64
        var snapshotSeq: Int64
        var compactedThrough: Int64
        var inflight: Int64?
    }

    private func loadOwnState() throws -> OwnState {
        func number(_ key: String) throws -> Int64? { try library.info(key).flatMap { Int64($0) } }
        return OwnState(lastSeq: try number("sync.lastSeq") ?? 0, snapshotSeq: try number("sync.snapshotSeq") ?? 0,
                        compactedThrough: try number("sync.compactedThrough") ?? 0, inflight: try number("sync.inflightSeq"))
    }

    private func loadCursors() throws -> [String: Int64] {
        var cursors: [String: Int64] = [:]
        for (device, seq) in try library.database.cached("SELECT device_id, seq FROM sync_cursors").rows([], { ($0.text(0), $0.int64(1)) }) {
            cursors[device] = seq
        }
        return cursors
    }

    private func deviceName() throws -> String {
        try library.info("device.name") ?? ProcessInfo.processInfo.hostName
    }

    private func loadDeviceNumbers() throws {
        numberByDevice = [:]
        deviceByNumber = [:]
        for (number, id) in try library.database.cached("SELECT num, id FROM sync_devices").rows([], { ($0.int64(0), $0.text(1)) }) {
            numberByDevice[id] = number
            deviceByNumber[number] = id
        }
    }

    /// The local number of a writer device, registering it on first sight.
    private func number(_ device: String) throws -> Int64 {
        if let number = numberByDevice[device] { return number }
        try library.database.run("INSERT INTO sync_devices (id) VALUES (?)", [.text(device)])
        let number = try library.database.integer("SELECT num FROM sync_devices WHERE id = ?", [.text(device)]) ?? 0
        numberByDevice[device] = number
        deviceByNumber[number] = device
        return number
    }

    private func syncRecord(_ stored: StoredWord) -> SyncRecord {
        SyncRecord(word: stored.word, times: stored.times,
                   writers: stored.writers.map { deviceByNumber[$0] ?? (($0 == 0) ? deviceID : "unknown") })
    }
}
