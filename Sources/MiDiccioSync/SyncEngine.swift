import MiDiccioLibrary
import MiDiccioCloud
import MiDiccioModel
import Foundation

/// Syncs one library with one cloud folder.
///
/// A sync pulls first, merges, then uploads only pending words, then records where it
/// got to. Each step commits its local effects in one transaction with the data, so a
/// sync that fails anywhere leaves the library whole and the next one resumes.
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
    /// A device silent for longer than this no longer holds back compaction, and must
    /// read everything again (from snapshots) before it uploads.
    public var retention: Int64 = 180 * 86_400_000
    /// How long a sync waits for another sync of the same library before giving up.
    public var lockTimeout: TimeInterval = 10
    /// The newest cloud format this engine understands (tests run older formats).
    package var formatVersion = CloudManifest.currentVersion
    private var manifest = CloudManifest.base

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

    /// Runs one sync. Throws `SyncError`; the library stays whole when it does.
    @discardableResult
    public func sync(allowMassDelete: Bool = false) throws -> SyncReport {
        var report = SyncReport()
        let lock = try SyncLock(libraryPath: library.path, timeout: lockTimeout)
        defer { withExtendedLifetime(lock) {} }
        do {
            try checkManifest()
            try adoptOwnRecordIfNew()
            try resyncIfSilentTooLong(report: &report)
            let others = try readDeviceRecords(report: &report)
            try pull(from: others, allowMassDelete: allowMassDelete, report: &report)
            if try library.autoPurge() > 0 { report.autoPurged = true }
            let uploaded = try upload(report: &report)
            let snapshot = try writeSnapshotIfDue(report: &report)
            try compact(others: others, report: &report)
            try publishRecordIfNeeded(force: uploaded || snapshot, others: others, report: &report)
            try library.writing { try library.setInfo("sync.lastSync", String(library.clock.now().milliseconds)) }
        } catch let error as CloudError {
            throw SyncError.cloud(error)
        }
        return report
    }

    // MARK: - Manifest

    private func checkManifest() throws {
        guard let data = try storage.read(CloudLayout.manifestPath) else {
            // No manifest where this device has synced before is far more likely an
            // unmounted drive or a sync client still downloading than a new cloud:
            // starting a fresh one there would mark every word as uploaded.
            let syncedBefore = try library.guarded {
                try library.info("sync.lastSeq") != nil || (try library.database.integer("SELECT count(*) FROM sync_cursors") ?? 0) > 0
            }
            if syncedBefore {
                throw CloudError.unavailable("\(storage.displayName) has no \(CloudLayout.manifestPath) although this device synced with it before; is the drive or sync folder there?")
            }
            // A new cloud folder: this device starts it, in the base format.
            manifest = .base
            try storage.write(CloudLayout.manifestPath, manifest.encoded())
            return
        }
        guard let found = CloudManifest.decode(data) else {
            throw SyncError.badManifest("not a MiDiccio manifest")
        }
        if found.minimumReadVersion > formatVersion || found.minimumWriteVersion > formatVersion {
            throw SyncError.cloudTooNew(version: found.version)
        }
        manifest = found
    }

    /// Moves the folder to the format a batch needs before the batch is written. Only a
    /// sync the user runs gets here; reading (status) never changes the manifest.
    private func prepareManifest(for batch: SyncBatch) throws {
        guard batch.formatVersion > manifest.version else { return }
        manifest = .withPurgeMarkers
        try storage.write(CloudLayout.manifestPath, manifest.encoded())
    }

    /// A device silent for longer than the retention period may have missed change files
    /// that were compacted away: it forgets its cursors and reads snapshots again, which
    /// carry every purge marker, before it uploads anything.
    private func resyncIfSilentTooLong(report: inout SyncReport) throws {
        let last = try library.guarded { try library.info("sync.lastSync").flatMap { Int64($0) } }
        guard let last, library.clock.now().milliseconds - last > retention else { return }
        try library.writing { try library.database.run("DELETE FROM sync_cursors") }
        report.fullResync = true
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
        var purgedHere = 0
        try library.writing {
            try loadDeviceNumbers()
            let live = try library.counts().words
            // Net effect only: a word deleted and restored again within the pull is no loss.
            var trashed = Set<WordID>()
            // Markers first: a purge beats every version of the word, whatever its time.
            var purged = Set(try library.database.cached("SELECT id FROM purged").rows([]) { $0.text(0) }.compactMap(WordID.init))
            for batch in batches {
                for marker in batch.markers {
                    if let local = try library.stored(marker.id) {
                        try library.removePermanently(local)
                        purgedHere += 1
                    }
                    try library.recordMarker(marker, pending: false, byThisDevice: false)
                    purged.insert(marker.id)
                }
                for setting in batch.settings { try mergeSetting(setting) }
            }
            // A new device skips the lookup of words it cannot have yet (a first sync of
            // 100,000 words), except those an earlier batch of this sync inserted.
            let empty = try (library.database.integer("SELECT count(*) FROM words") ?? 0) == 0
            var inserted = Set<WordID>()
            for batch in batches {
                for incoming in batch.records where !purged.contains(incoming.word.id) {
                    let mayExist = !empty || inserted.contains(incoming.word.id)
                    let local = mayExist ? try library.stored(incoming.word.id) : nil
                    if local == nil { inserted.insert(incoming.word.id) }
                    let localRecord = local.map(syncRecord)
                    let outcome = MergeRules.merge(local: localRecord, incoming: incoming)
                    guard outcome.changed else { continue }
                    let merged = outcome.record
                    if let local, !local.word.isDeleted, merged.word.isDeleted { trashed.insert(merged.word.id) }
                    if !merged.word.isDeleted { trashed.remove(merged.word.id) }
                    if !outcome.changedFields.isEmpty {
                        if local?.pending == true { report.merged += 1 } else { report.pulled += 1 }
                    }
                    try library.save(merged.word, times: merged.times, writers: try merged.writers.map(number),
                                     previous: local, pending: false)
                }
            }
            // Joplin lost notes when a sync read absence as deletion; MiDiccio never does,
            // and still stops when other devices' edits would empty much of the library.
            if !allowMassDelete, live >= 20, trashed.count * 2 > live {
                throw SyncError.massDeletion(count: trashed.count, of: live)
            }
            for (device, seq) in newCursors where seq != cursors[device] {
                try library.database.run("INSERT INTO sync_cursors (device_id, seq) VALUES (?, ?) ON CONFLICT (device_id) DO UPDATE SET seq = excluded.seq",
                                         [.text(device), .integer(seq)])
            }
            if purgedHere > 0 {
                let total = Int64(try library.info("sync.purgedElsewhere") ?? "0") ?? 0
                try library.setInfo("sync.purgedElsewhere", String(total + Int64(purgedHere)))
            }
        }
        report.purgedElsewhere = purgedHere
        if purgedHere > 0 { try library.scrubFreedContent() }
    }

    /// Last writer wins per setting key: newer time, then the larger writer id.
    private func mergeSetting(_ incoming: SettingRecord) throws {
        let local = try library.database.cached("SELECT time, writer FROM settings WHERE key = ?")
            .rows([.text(incoming.key)]) { (Timestamp(milliseconds: $0.int64(0)), $0.text(1)) }.first
        if let local, (local.0, local.1) >= (incoming.time, incoming.writer) { return }
        // A value this MiDiccio does not know how to use is kept as is, for newer devices.
        try library.storeSetting(key: incoming.key, value: incoming.value, time: incoming.time, writer: incoming.writer, pending: false)
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
                let batch = try BatchCodec.decode(data, formatVersion: formatVersion)
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
        // A new device, or one far behind, starts from the snapshot: one file instead of
        // many change files.
        if record.snapshotSeq > cursor, cursor == 0 || record.snapshotSeq - cursor > snapshotInterval / 2 {
            _ = try readSnapshot()
        }
        while cursor < record.lastSeq {
            let next = cursor + 1
            let path = CloudLayout.changePath(record.device, next)
            if let data = try storage.read(path) {
                do {
                    let batch = try BatchCodec.decode(data, formatVersion: formatVersion)
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
        let (pending, markers, settings) = try library.guarded {
            // Ordered by the pending index's own column: ORDER BY seq made SQLite walk the
            // whole table, so a sync with nothing to do grew with the library.
            (try library.database.cached("SELECT \(WordLibrary.columns) FROM words WHERE pending = 1 ORDER BY local_change")
                .rows([], WordLibrary.storedWord),
             try loadMarkers(pendingOnly: true), try loadSettings(pendingOnly: true))
        }
        guard fullUpload || !pending.isEmpty || !markers.isEmpty || !settings.isEmpty else {
            if state.inflight != nil { try library.writing { try library.database.run("DELETE FROM library_info WHERE key = 'sync.inflightSeq'") } }
            return false
        }
        try library.writing { try library.setInfo("sync.inflightSeq", String(seq)) }
        try loadDeviceNumbers()
        let asSnapshot = fullUpload || pending.count > largeUploadThreshold
        if asSnapshot {
            try writeSnapshot(seq: seq, report: &report)
            report.fullUpload = fullUpload
            report.pushed = fullUpload ? try library.guarded { Int(try library.database.integer("SELECT count(*) FROM words") ?? 0) } : pending.count
        } else {
            let batch = SyncBatch(kind: .changes, device: deviceID, seq: seq, records: pending.map(syncRecord),
                                  markers: markers, settings: settings)
            try prepareManifest(for: batch)
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
            for marker in markers {
                try library.database.run("UPDATE purged SET pending = 0 WHERE id = ?", [.text(marker.id.rawValue)])
            }
            // A setting changed again while in flight has a newer time and stays pending.
            for setting in settings {
                try library.database.run("UPDATE settings SET pending = 0 WHERE key = ? AND time = ?",
                                         [.text(setting.key), .time(setting.time)])
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
        // A purge also calls for a snapshot: compaction can then remove the purged
        // content from this device's older files.
        let newestMarker = try library.guarded { try library.database.integer("SELECT max(purged_at) FROM purged") ?? 0 }
        let snapshotMarker = try library.guarded { Int64(try library.info("sync.snapshotMarkerTime") ?? "0") ?? 0 }
        guard state.lastSeq - state.snapshotSeq >= snapshotInterval || (newestMarker > snapshotMarker && state.lastSeq > 0)
        else { return false }
        try loadDeviceNumbers()
        try writeSnapshot(seq: state.lastSeq, report: &report)
        try library.writing { try library.setInfo("sync.snapshotSeq", String(state.lastSeq)) }
        return true
    }

    /// Writes the whole library as snapshot `seq` (covering this device's entries up to
    /// `seq`), read in one transaction so words and cursors agree.
    private func writeSnapshot(seq: Int64, report: inout SyncReport) throws {
        let (records, cursors, markers, settings, newestMarker) = try library.guarded {
            try library.database.read {
                let records = try library.database.cached("SELECT \(WordLibrary.columns) FROM words ORDER BY seq")
                    .rows([], WordLibrary.storedWord).map(syncRecord)
                return (records, try loadCursors(), try loadMarkers(pendingOnly: false), try loadSettings(pendingOnly: false),
                        try library.database.integer("SELECT max(purged_at) FROM purged") ?? 0)
            }
        }
        let batch = SyncBatch(kind: .snapshot, device: deviceID, seq: seq, cursors: cursors, records: records,
                              markers: markers, settings: settings)
        try prepareManifest(for: batch)
        let data = BatchCodec.encode(batch)
        try storage.write(CloudLayout.snapshotPath(deviceID, seq), data)
        try library.writing { try library.setInfo("sync.snapshotMarkerTime", String(newestMarker)) }
        report.snapshotWritten = true
        report.filesWritten += 1
        report.bytesWritten += data.count
    }

    /// Removes this device's change files that its snapshot covers and every known device
    /// has read, and its older snapshots. Only ever this device's own files.
    private func compact(others: [DeviceRecord], report: inout SyncReport) throws {
        let state = try library.guarded { try loadOwnState() }
        if state.lastSeq == 0 {
            // A device that never wrote a change file or snapshot holds no content at all.
            try library.writing {
                let newest = try library.database.integer("SELECT max(purged_at) FROM purged") ?? 0
                try library.setInfo("sync.purgeCleanThrough", String(newest))
            }
            return
        }
        guard state.snapshotSeq > 0 else { return }
        let now = library.clock.now().milliseconds
        // A device silent past the retention period will read snapshots when it returns.
        let active = others.filter { now - $0.lastSync.milliseconds <= retention }
        let readByAll = active.map { $0.read[deviceID] ?? 0 }.min() ?? state.snapshotSeq
        let limit = max(state.compactedThrough, min(state.snapshotSeq, readByAll))
        if limit > state.compactedThrough {
            for seq in (state.compactedThrough + 1)...limit {
                if try storage.delete(CloudLayout.changePath(deviceID, seq)) { report.filesRemoved += 1 }
            }
        }
        if report.snapshotWritten || limit > state.compactedThrough {
            for entry in try storage.list(CloudLayout.snapshotsFolder(deviceID)) {
                if let seq = CloudLayout.seq(fromName: entry.name, suffix: ".snap"), seq < state.snapshotSeq, seq <= readByAll {
                    if try storage.delete(CloudLayout.snapshotsFolder(deviceID) + "/" + entry.name) { report.filesRemoved += 1 }
                }
            }
        }
        try library.writing {
            try library.setInfo("sync.compactedThrough", String(limit))
            // Every change file up to the snapshot is gone and the snapshot left purged
            // words out: this device's files hold no content purged before it.
            if limit >= state.snapshotSeq, let marker = try library.info("sync.snapshotMarkerTime") {
                let previous = Int64(try library.info("sync.purgeCleanThrough") ?? "0") ?? 0
                try library.setInfo("sync.purgeCleanThrough", String(max(previous, Int64(marker) ?? 0)))
            }
        }
    }

    // MARK: - Device record

    private func publishRecordIfNeeded(force: Bool, others: [DeviceRecord], report: inout SyncReport) throws {
        let (state, cursors, digest, name) = try library.guarded {
            (try loadOwnState(), try loadCursors(), try library.libraryDigest(), try deviceName())
        }
        let published = try library.guarded { try library.info("sync.publishedRecord") }
        let clean = try library.guarded { Int64(try library.info("sync.purgeCleanThrough") ?? "0") ?? 0 }
        let signature = "\(state.lastSeq)|\(state.snapshotSeq)|\(cursors.sorted { $0.key < $1.key })|\(digest)|\(name)|\(clean)"
        // Republished at least daily, so a device that syncs but has nothing new never
        // looks silent to the others (they stop waiting for silent devices).
        let publishedAt = try library.guarded { Int64(try library.info("sync.publishedAt") ?? "0") ?? 0 }
        let stale = library.clock.now().milliseconds - publishedAt > 86_400_000
        guard force || stale || published != signature else { return }
        // Counted only when the record is written: count(*) reads the whole table.
        let count = try library.guarded { Int(try library.database.integer("SELECT count(*) FROM words") ?? 0) }
        let record = DeviceRecord(device: deviceID, name: name, app: appVersion, lastSync: library.clock.now(),
                                  lastSeq: state.lastSeq, snapshotSeq: state.snapshotSeq, read: cursors,
                                  digest: digest, wordCount: count, purgeCleanThrough: Timestamp(milliseconds: clean))
        let data = record.encoded()
        try storage.write(CloudLayout.devicePath(deviceID), data)
        report.filesWritten += 1
        report.bytesWritten += data.count
        try library.writing {
            try library.setInfo("sync.publishedRecord", signature)
            try library.setInfo("sync.publishedAt", String(library.clock.now().milliseconds))
        }
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
        let (purgedElsewhere, markers, newestMarker, clean) = try library.guarded {
            (Int(try library.info("sync.purgedElsewhere") ?? "0") ?? 0, try library.purgedCount(),
             try library.database.integer("SELECT max(purged_at) FROM purged") ?? 0,
             Int64(try library.info("sync.purgeCleanThrough") ?? "0") ?? 0)
        }
        status.purgedElsewhere = purgedElsewhere
        status.purgeMarkers = markers
        if newestMarker > 0 && clean < newestMarker {
            status.purgedContentRemains.append("this device has not yet written a snapshot and removed its older change files since the last purge (the next syncs do, once other devices have read them)")
        }
        let now = library.clock.now().milliseconds
        do {
            var ignored = SyncReport()
            for record in try readDeviceRecords(report: &ignored) {
                let inactive = now - record.lastSync.milliseconds > retention
                status.devices.append(.init(id: record.device, name: record.name, app: record.app, lastSync: record.lastSync,
                                            agrees: record.digest == digest, isThisDevice: false, inactive: inactive))
                if newestMarker > 0 && record.purgeCleanThrough.milliseconds < newestMarker {
                    status.purgedContentRemains.append("\(record.name) has not synced and compacted its files since the last purge")
                }
            }
        } catch {
            status.cloudProblem = "\(error)"
            if newestMarker > 0 { status.purgedContentRemains.append("the cloud cannot be read to check other devices") }
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

    private func loadMarkers(pendingOnly: Bool) throws -> [PurgeMarker] {
        try library.database.cached("SELECT id, purged_at FROM purged WHERE pending = 1 OR ? = 0")
            .rows([.integer(pendingOnly ? 1 : 0)]) { row in
                WordID(row.text(0)).map { PurgeMarker(id: $0, purgedAt: Timestamp(milliseconds: row.int64(1))) }
            }.compactMap { $0 }
    }

    private func loadSettings(pendingOnly: Bool) throws -> [SettingRecord] {
        try library.database.cached("SELECT key, value, time, writer FROM settings WHERE pending = 1 OR ? = 0")
            .rows([.integer(pendingOnly ? 1 : 0)]) {
                SettingRecord(key: $0.text(0), value: $0.text(1), time: Timestamp(milliseconds: $0.int64(2)), writer: $0.text(3))
            }
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
