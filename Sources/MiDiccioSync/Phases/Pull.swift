import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioModel

// Step 3a of a sync: read what other devices wrote since this device last read them.
extension SyncSession {
    /// Reads every other device's new files, then merges them (`merge`).
    func pull(allowMassDelete: Bool) throws {
        var cursors = state.cursors
        var batches: [SyncBatch] = []
        var readNames = state.readNames ?? [:]
        var readThrough = state.readThrough ?? [:]
        for record in others {
            // A record numbered below this device's place in its files: that device started
            // its files again from 1 (in a folder emptied and started again), or a sync
            // program brought back an older record. Its files are read from the start again
            // (found by the exploratory helper: a laptop that synced while the folder was
            // emptied elsewhere kept its place, and never got the new words).
            if let place = cursors[record.device], record.lastSeq < place { cursors[record.device] = 0 }
            let start = cursors[record.device] ?? 0
            guard record.lastSeq > start || !unreadAbsorbedPaths(of: record.device).isEmpty else { continue }
            announce(.downloading)
            let (fetched, reached) = try fetch(record, from: start)
            guard !fetched.isEmpty else { continue }
            batches += fetched
            cursors[record.device] = max(cursors[record.device] ?? 0, reached)
            let place = cursors[record.device] ?? 0
            readNames[record.device] = record.changeNames?.sorted().first { CloudLayout.entry(fromName: $0, kind: .changes)?.seq == place }
            readThrough[record.device] = max(place, fetched.map(\.seq).max() ?? 0)
            // A snapshot already holds what its writer had read from others.
            for batch in fetched where batch.kind == .snapshot {
                for (device, seq) in batch.cursors where device != deviceID {
                    cursors[device] = max(cursors[device] ?? 0, seq)
                }
            }
        }
        // A device that took over another id passed on what it read there: once this
        // device has read all that device wrote, it holds that id's content up to the
        // takeover's reach. Those files may be gone (the taker removes them), and a copy
        // still writing under the old id continues after them.
        for record in others where (cursors[record.device] ?? 0) >= record.lastSeq {
            for (device, through) in record.absorbed where device != deviceID {
                cursors[device] = max(cursors[device] ?? 0, through)
            }
        }
        batches += try readStrayFiles()
        guard !batches.isEmpty else {
            if cursors != state.cursors { try commit { $0.cursors = cursors } }
            return
        }
        try merge(batches, cursors: cursors, allowMassDelete: allowMassDelete)
        if readNames != state.readNames ?? [:] || readThrough != state.readThrough ?? [:] {
            try commit { next in
                next.readNames = readNames
                next.readThrough = readThrough
            }
        }
    }

    /// Reads `record`'s entries after `start`: change files in order (every file of a
    /// number, should two copies of a library both have written one), jumping through
    /// its snapshot where change files are gone (compacted) or were never written (a
    /// full upload). At a number with no file the snapshot does not cover (a sync client
    /// may deliver files out of order, or lose one) or an unreadable file, which is
    /// reported, it stops counting, but still reads the files after it. Returns the
    /// batches and how far they reach without a gap.
    ///
    /// The folders of an id this library took over (or of a library that took over the
    /// same id) read from the start are read whole: copies of one library file that
    /// synced before they saw each other's files (a file-sync client delivers late) each
    /// wrote under that id, and one copy's snapshot says nothing of the other's files
    /// below its number (found by hand).
    ///
    /// While a takeover lasts, a file that appears in the old id's folders later (a copy's,
    /// delivered after the takeover, numbered below where it read), or one that was
    /// damaged or half delivered when read, is read at the next sync: this library notes
    /// the files it read there, and removes only those (found by the exploratory helper and
    /// the simulation: such files were removed unread, and the words only they held with
    /// them). The folders of a library that took over the same id are read whole again at
    /// the next sync when a file there could not be read.
    private func fetch(_ record: DeviceRecord, from start: Int64) throws -> ([SyncBatch], Int64) {
        let skipped = report.skippedFiles.count
        var readPaths = Set<String>()
        let inOrder = try fetchInOrder(record, from: start, readPaths: &readPaths)
        var batches = inOrder.batches
        let reached = inOrder.reached
        let absorbing = state.absorbed.contains { $0.device == record.device && !$0.cleanedUp }
        guard start == 0 || absorbing, absorbedFolders[record.device] != nil else { return (batches, reached) }
        for path in unreadAbsorbedPaths(of: record.device) where !readPaths.contains(path) {
            guard let entry = CloudLayout.entry(fromPath: path),
                let batch = try readBatch(path, device: record.device, seq: entry.seq, kind: entry.kind)
            else { continue }
            batches.append(batch)
        }
        return (batches, !absorbing && report.skippedFiles.count > skipped ? 0 : reached)
    }

    /// The change files and snapshots of an earlier id this library is taking over (or of
    /// a library that took over the same id) that it has not read: every one for the
    /// latter, those not read before for the former.
    func unreadAbsorbedPaths(of device: String) -> [String] {
        guard let folder = absorbedFolders[device] else { return [] }
        let read = Set(state.absorbed.first { $0.device == device && !$0.cleanedUp }?.readPaths ?? []).union(absorbedPathsRead)
        return folder.paths.filter { path in
            !read.contains(path) && !FileSystem.isTemporaryName(String(path.split(separator: "/").last ?? ""))
        }
    }

    /// `fetch`'s reading by number; `readPaths` gathers the paths it read or tried.
    private func fetchInOrder(
        _ record: DeviceRecord, from start: Int64, readPaths: inout Set<String>
    ) throws -> (batches: [SyncBatch], reached: Int64) {
        var cursor = start
        var batches: [SyncBatch] = []
        var usedSnapshot = false
        func readSnapshot() throws -> Bool {
            guard !usedSnapshot, record.snapshotSeq > cursor else { return false }
            usedSnapshot = true
            let entry =
                record.snapshotName.flatMap { CloudLayout.entry(fromName: $0, kind: .snapshot) }
                ?? CloudLayout.Entry(seq: record.snapshotSeq, nonce: nil, kind: .snapshot)
            let path = CloudLayout.path(entry, of: record.device)
            readPaths.insert(path)
            guard let batch = try readBatch(path, device: record.device, seq: record.snapshotSeq, kind: .snapshot) else { return false }
            snapshotNamesRead[record.device] = entry.name
            batches.append(batch)
            cursor = record.snapshotSeq
            return true
        }
        // A new device, or one far behind, starts from the snapshot: one file instead of
        // many change files.
        if record.snapshotSeq > cursor, cursor == 0 || record.snapshotSeq - cursor > engine.snapshotInterval / 2 {
            _ = try readSnapshot()
        }
        var files = try changeFiles(of: record, after: cursor)
        while cursor < record.lastSeq {
            let next = cursor + 1
            let paths = files[next] ?? []
            var read: [SyncBatch] = []
            for path in paths {
                readPaths.insert(path)
                guard let batch = try readBatch(path, device: record.device, seq: next, kind: .changes) else { break }
                read.append(batch)
            }
            if !paths.isEmpty && read.count == paths.count {
                batches += read
                cursor = next
                continue
            }
            if try readSnapshot() {
                files = try changeFiles(of: record, after: cursor)
                continue
            }
            // A file missing or damaged (a cloud client lost it, or has not delivered it
            // yet) must not hold back the device's later files: a device retired after
            // that never writes the snapshot that would cover it, and its later words
            // never reached anyone (found by hand). They are read and merged now, each
            // word by its own times, so the order does not matter; the cursor stays at the
            // gap, so the file is looked for again, and what follows it read once more.
            // Its writer is asked for a new snapshot, which covers the file (answered once).
            wants[record.device] = next
            for seq in files.keys.sorted() where seq > next && seq <= record.lastSeq {
                for path in files[seq] ?? [] {
                    readPaths.insert(path)
                    if let batch = try readBatch(path, device: record.device, seq: seq, kind: .changes) { batches.append(batch) }
                }
            }
            break
        }
        return (batches, cursor)
    }

    /// The paths of `record`'s change files after `cursor`, by number. A record of the
    /// current format names its change files after its snapshot, so a reader at or past
    /// that snapshot needs no listing; any other reader lists the folder.
    private func changeFiles(of record: DeviceRecord, after cursor: Int64) throws -> [Int64: [String]] {
        var names: [String]
        if let named = record.changeNames, cursor >= record.snapshotSeq {
            names = named
        } else {
            names = try storage.list(CloudLayout.changesFolder(record.device)).map(\.name)
        }
        var files: [Int64: [String]] = [:]
        for name in names.sorted() {
            guard let entry = CloudLayout.entry(fromName: name, kind: .changes), entry.seq > cursor else { continue }
            files[entry.seq, default: []].append(CloudLayout.path(entry, of: record.device))
        }
        return files
    }

    /// Reads and checks one batch file; nil (and the file reported) when it is missing,
    /// unreadable, damaged, or not what its name says.
    func readBatch(_ path: String, device: String, seq: Int64, kind: CloudLayout.Kind) throws -> SyncBatch? {
        let bytes: CloudBytes?
        do {
            bytes = try storage.readBytes(path)
        } catch CloudError.unreadable(_, let reason) {
            report.skippedFiles.append(SkippedFile(path: path, reason: reason))
            return nil
        }
        guard let bytes else { return nil }
        do {
            let batch = try BatchCodec.decodeStreaming(bytes, formatVersion: engine.formatVersion)
            guard batch.device == device, batch.kind == (kind == .snapshot ? .snapshot : .changes) else {
                throw BatchDecodeError(message: "belongs to another device or is another kind of file")
            }
            guard batch.seq == seq else { throw BatchDecodeError(message: "holds another sequence number's changes") }
            if absorbedFolders[device] != nil { absorbedPathsRead.insert(path) }
            return batch
        } catch {
            report.skippedFiles.append(SkippedFile(path: path, reason: "\(error)"))
            return nil
        }
    }
}

extension SyncSession {
    /// A device silent for longer than the retention period may have missed change files
    /// that were compacted away: it forgets its cursors and reads snapshots again, which
    /// carry every purge marker, before it uploads anything.
    func resyncIfSilentTooLong() throws {
        guard let last = state.lastSync, now - last > engine.retention else { return }
        try commit { $0.cursors = [:] }
        report.fullResync = true
    }
}
