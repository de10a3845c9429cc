import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioModel

// Step 5 of a sync: snapshots, compaction, and tidying this device's folders.
//
// A purge must leave the cloud too. A snapshot written after a purge marker leaves the
// purged word out; once every known device has read past this device's older files,
// they are removed. Which markers a snapshot honours is tracked by the marker position
// (the order in which this device learnt them), never by purge times: a marker that
// arrives late, carrying an old time, still calls for a new snapshot.
extension SyncSession {
    /// Writes a snapshot when enough change files follow the last one, or when this
    /// device has learnt a purge marker its snapshot does not honour. True when written.
    func writeSnapshotIfDue() throws -> Bool {
        let position = try store.markerPosition()
        guard state.lastSeq > 0 else {
            // This device has no file in the cloud: nothing of it can hold purged content.
            if state.cleanMarkers != position && state.files.isEmpty { try commit { $0.cleanMarkers = position } }
            return false
        }
        let (due, answered) = try snapshotWanted(markerPosition: position)
        guard due else { return false }
        announce(.tidying)
        let snapshot = try writeSnapshot(seq: state.lastSeq)
        try commit { next in
            // Written again under the same number (a purge to honour, nothing new): the
            // record names the snapshot it replaced, so that nobody takes it for this
            // device put back (`renumbered`).
            if let replaced = next.snapshot, replaced.seq == snapshot.file.seq, replaced.path != snapshot.file.path {
                next.snapshotReplaces = Array((next.replacedSnapshots + [replaced.name]).suffix(SyncState.rememberedReplacedSnapshots))
            } else {
                next.snapshotReplaces = nil
            }
            next.snapshot = snapshot.file
            next.files.append(snapshot.file)
            next.inflight = nil
            next.snapshotMarkers = snapshot.markerPosition
            next.answeredWants = answered.isEmpty ? nil : answered
        }
        tidyWanted = true
        return true
    }

    /// True when this sync is to write a snapshot (`writeSnapshotIfDue`).
    func snapshotDue() throws -> Bool {
        guard state.lastSeq > 0 else { return false }
        return try snapshotWanted(markerPosition: try store.markerPosition()).due
    }

    /// Whether a snapshot is due: enough change files follow the last one, this device has
    /// learnt a purge marker its snapshot does not honour, or another device could not read
    /// one of this device's files (a sync program lost or cut it: a new snapshot covers it,
    /// and the words in it reach that device). With the wants of other devices answered so.
    private func snapshotWanted(markerPosition position: Int64) throws -> (due: Bool, answered: [String: Int64]) {
        let tooMany = state.lastSeq - state.snapshotSeq >= engine.snapshotInterval
        let newMarkers = position > state.snapshotMarkers
        var answered = state.answeredWants ?? [:]
        for record in others {
            if let wanted = record.wanted[deviceID], answered[record.device] != wanted { answered[record.device] = wanted }
        }
        let asked = answered != (state.answeredWants ?? [:])
        return (tooMany || newMarkers || asked, answered)
    }

    /// Removes this device's change files that its snapshot covers and every active
    /// device has read, and its older snapshots; tidies its folders when there is reason
    /// to. Only ever files under this device's own id.
    func compact() throws {
        guard let snapshot = state.snapshot else { return }
        let active = activeReaders()
        let readByAll = active.map { $0.read[deviceID] ?? 0 }.min() ?? snapshot.seq
        let limit = min(snapshot.seq, readByAll)
        var files = state.files
        // Older snapshots go once every active reader is past them.
        let removed = files.filter { file in
            file.kind == .changes ? file.seq <= limit : file.path != snapshot.path && file.seq <= min(readByAll, snapshot.seq)
        }
        files.removeAll { removed.contains($0) }
        let now = now, retention = engine.retention
        if !removed.isEmpty {
            // Noted as removed before they go: a sync stopped between the two (its process
            // ended, as a command does once it stops waiting for the sync after it) found its
            // own files gone at the next sync, and read everything again and uploaded every
            // word once (found by the exploratory helper, round 21A). One noted and not
            // removed yet is removed when the folder is tidied (`tidyFolders`).
            let kept = files
            try commit { next in
                next.files = kept
                var gone = (next.removedFiles ?? [:]).filter { now - $0.value <= retention }
                for file in removed { gone[file.path] = now }
                next.removedFiles = gone
            }
            report.filesRemoved += try storage.deleteAll(removed.map(\.path))
        }
        var tidied = false
        var suspicion: String?
        if tidyWanted || (state.cleanMarkers < state.snapshotMarkers && isCompacted(files, snapshot: snapshot)) {
            (tidied, suspicion) = try tidyFolders(known: files, limit: limit, readByAll: readByAll, snapshot: snapshot)
        }
        let clean = tidied && isCompacted(files, snapshot: snapshot)
        guard limit != state.compactedThrough || clean || suspicion != nil else { return }
        try commit { next in
            next.compactedThrough = max(next.compactedThrough, limit)
            if clean { next.cleanMarkers = max(next.cleanMarkers, next.snapshotMarkers) }
            if let suspicion { next.copySuspected = suspicion }
        }
    }

    /// Devices whose reading holds back compaction: those heard from within the
    /// retention period, except earlier ids that a copy of a library took over.
    ///
    /// Heard from by either clock: its record's time (its own clock), or when this device
    /// first read that record (`SyncState.heard`, this device's clock). A device whose clock
    /// was months behind counted as silent, and its restore not delivered yet was purged
    /// (found by the exploratory helper, round 15C).
    func activeReaders() -> [DeviceRecord] {
        let taken = Set(others.flatMap { $0.absorbed.keys } + state.absorbed.map(\.device))
        let heard = heardSoFar
        return others.filter { record in
            guard !taken.contains(record.device) else { return false }
            return now - record.lastSync.milliseconds <= engine.retention
                || heard[record.device].map { now - $0.at <= engine.retention } == true
        }
    }

    /// True when, of this device's files, only the snapshot and change files after it
    /// remain: every file then honours the markers the snapshot honours.
    private func isCompacted(_ files: [SyncState.OwnFile], snapshot: SyncState.OwnFile) -> Bool {
        files.allSatisfy { $0.path == snapshot.path || ($0.kind == .changes && $0.seq > snapshot.seq) }
    }

    /// Lists this device's folders and removes what it left behind: temporary files of
    /// writes that stopped half way. A change file or snapshot under its id that it did
    /// not write is never removed here: a copy of this library wrote it (or this library
    /// wrote it before it was put back from an older copy), and the next sync takes a new
    /// id and reads it. Returns whether the folders hold nothing unexpected, and that
    /// suspicion if found.
    private func tidyFolders(
        known: [SyncState.OwnFile], limit: Int64, readByAll: Int64,
        snapshot: SyncState.OwnFile
    ) throws -> (clean: Bool, suspicion: String?) {
        let knownPaths = Set(known.map(\.path) + (state.inflight.map { [$0.path] } ?? []))
        var clean = true
        var suspicion: String?
        for kind in [CloudLayout.Kind.changes, .snapshot] {
            let folder = CloudLayout.folder(kind, of: deviceID)
            for entry in try storage.list(folder) {
                let path = folder + "/" + entry.name
                if FileSystem.isTemporaryName(entry.name) {
                    if try storage.delete(path) { report.temporaryFilesRemoved += 1 }
                    continue
                }
                guard CloudLayout.entry(fromName: entry.name, kind: kind) != nil, !knownPaths.contains(path) else { continue }
                if state.removedFiles?[path] != nil {
                    if try storage.delete(path) { report.filesRemoved += 1 }
                    continue
                }
                // Names of the format before 3 carry no random part: this library wrote
                // them before it was updated, and removes them as compaction would.
                if let parsed = CloudLayout.entry(fromName: entry.name, kind: kind), parsed.nonce == nil {
                    if kind == .changes ? parsed.seq <= limit : parsed.seq <= min(readByAll, snapshot.seq) {
                        if try storage.delete(path) { report.filesRemoved += 1 }
                    } else {
                        clean = false
                    }
                    continue
                }
                suspicion = Self.unknownFileEvidence(path)
                clean = false
            }
        }
        return (clean, suspicion)
    }

    /// Removes the temporary files that record writes of this device, or of the ids it
    /// took over, left in `devices/` when they stopped half way (`.<id>.json.<random>.tmp`).
    /// The folder is listed by every sync anyway, so this costs a request only when there
    /// is something to remove.
    func removeLeftoverRecordFiles() throws {
        let ids = [deviceID] + state.absorbed.map(\.device)
        for name in deviceFolderNames where FileSystem.isTemporaryName(name) {
            guard ids.contains(where: { name.hasPrefix(".\($0).json.") }) else { continue }
            if try storage.delete(CloudLayout.devicesFolder + "/" + name) { report.temporaryFilesRemoved += 1 }
        }
    }

    /// Why a file under this device's id that it did not write makes it a copy.
    static func unknownFileEvidence(_ path: String) -> String {
        "the cloud holds \(path) under this library's id, which this library did not write: a copy of this library file wrote it, or this library was put back from an older copy"
    }
}
