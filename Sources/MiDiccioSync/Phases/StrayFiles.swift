import Foundation
import MiDiccioCloud
import MiDiccioModel

// Step 3, before pulling: files in the cloud that no record names.
//
// A device uploads a change file or snapshot, then writes its record naming it. When
// that record cannot be written (the connection drops, the cloud's disk is full), the
// device's next sync writes it. But a device that is never heard from again (a phone
// lost or broken, a library file deleted) leaves words in the cloud that no other device
// reads: readers go as far as a record says, and read the files it names. Two copies of
// one library file that wrote under one id before either saw the other's files, and
// were then both lost, leave the same: a record names one copy's files, not the other's.
// (Both found by the simulation, once it could lose a device for good.)
//
// So each device writes its record before its first upload, and every two days lists the
// folders of devices silent for two days and reads, once, every file there that their
// records do not account for.
//
// A sync program may also deliver a device's files and not its record (files arrive in
// any order, and the device may be lost before the record follows): the same look lists
// which devices have folders, and reads, once, every file of a device no record names
// or took over (found by the fuzzer and the simulation; before, those words were lost).
extension SyncSession {
    /// True when this device has no record in the cloud and is about to upload: the
    /// record goes first (see `findStrayFiles`).
    func firstUploadUnannounced() throws -> Bool {
        guard ownRecord == nil, !ownRecordUnreadable else { return false }
        return try somethingToUpload()
    }

    /// True when this sync looks for stray files: once per `SyncEngine.strayFileAge`, and
    /// in the sync before a decisive action (`SyncEngine.findUnnamedFiles`).
    var strayScanDue: Bool {
        guard !engine.findUnnamedFiles, let last = state.straysLookedFor else { return true }
        return now - last >= engine.strayFileAge
    }

    /// Once per `SyncEngine.strayFileAge`, lists the folders of every device silent for
    /// at least that long, for files its record may not account for: numbered past it,
    /// a change file after its snapshot, a snapshot at or past its own that is not the one
    /// it names. Those not read before are read with the pull. Before a decisive action
    /// (`SyncEngine.findUnnamedFiles`) it lists the folders of the devices heard from
    /// lately too, for files their records do not name: numbered past them, or another
    /// copy's of a number they name.
    func findStrayFiles() throws {
        guard strayScanDue else { return }
        lookedForStrays = true
        let taken = Set(others.flatMap { $0.absorbed.keys } + state.absorbed.map(\.device))
        let readBefore = Set(state.strayFilesRead ?? [])
        var listed: [String] = []
        for record in others where !taken.contains(record.device) && absorbedFolders[record.device] == nil {
            let silent = now - record.lastSync.milliseconds >= engine.strayFileAge
            guard silent || engine.findUnnamedFiles else { continue }
            for (path, entry) in try listedFiles(of: record.device) {
                // Change files after its snapshot are read once whether it names them or
                // not: another copy's file of a number this device read already is named
                // only by that copy's record, which may arrive later (found by the
                // exploratory helper). A device heard from lately names its files as it
                // goes: those past its record are its upload whose record failed, and those
                // after its snapshot that its record does not name are another copy's (two
                // copies of one library file that synced at one moment both wrote the same
                // number; round 21A #1).
                let unnamed =
                    entry.kind == .changes
                    ? entry.seq > record.snapshotSeq && record.changeNames.map { !$0.contains(entry.name) } ?? false
                    : entry.seq >= record.snapshotSeq && record.snapshotName.map { $0 != entry.name } ?? false
                        && !(record.snapshotReplaces ?? []).contains(entry.name)
                let unaccounted =
                    entry.seq > record.lastSeq || engine.findUnnamedFiles && unnamed
                    || silent
                        && (entry.kind == .changes
                            ? entry.seq > record.snapshotSeq
                            : entry.seq >= record.snapshotSeq
                                && entry.name != (state.snapshotsRead?[record.device] ?? record.snapshotName))
                guard unaccounted else { continue }
                listed.append(path)
                if !readBefore.contains(path) { strayFiles.append(StrayFile(device: record.device, path: path, entry: entry)) }
            }
        }
        for device in try unrecordedDevices() {
            for (path, entry) in try listedFiles(of: device) {
                listed.append(path)
                if !readBefore.contains(path) { strayFiles.append(StrayFile(device: device, path: path, entry: entry)) }
            }
        }
        strayFilesListed = listed
    }

    /// The devices that have a folder of change files or snapshots in the cloud and no
    /// record there, other than this device and the ids some device took over (whose
    /// folders the takeover reads and removes).
    func unrecordedDevices() throws -> [String] {
        var known = Set(others.map(\.device) + others.flatMap { $0.absorbed.keys } + state.absorbed.map(\.device))
        known.insert(deviceID)
        known.formUnion(absorbedFolders.keys)
        var found = Set<String>()
        for kind in [CloudLayout.Kind.changes, .snapshot] {
            for name in try storage.folders(in: CloudLayout.folder(kind)) {
                if let device = CloudLayout.device(fromFolderName: name), !known.contains(device) { found.insert(device) }
            }
        }
        return found.sorted()
    }

    /// The change files and snapshots in `device`'s folders, by path (other names left out).
    func listedFiles(of device: String) throws -> [(path: String, entry: CloudLayout.Entry)] {
        var files: [(path: String, entry: CloudLayout.Entry)] = []
        for kind in [CloudLayout.Kind.changes, .snapshot] {
            let folder = CloudLayout.folder(kind, of: device)
            for file in try storage.list(folder) {
                if let entry = CloudLayout.entry(fromName: file.name, kind: kind) { files.append((folder + "/" + file.name, entry)) }
            }
        }
        return files
    }

    /// Reads the stray files `findStrayFiles` found (nil for one unreadable or damaged,
    /// which is reported).
    func readStrayFiles() throws -> [SyncBatch] {
        var batches: [SyncBatch] = []
        for stray in strayFiles {
            // One damaged or half delivered is read again at the next look.
            if let batch = try readBatch(stray.path, device: stray.device, seq: stray.entry.seq, kind: stray.entry.kind) {
                batches.append(batch)
                strayFilesRead.append(stray.path)
                report.strayFiles += 1
            }
        }
        return batches
    }
}

/// A file in a silent device's folder that its record does not account for.
struct StrayFile {
    /// The device whose folder it is in.
    var device: String
    /// Its path.
    var path: String
    /// Its name, taken apart.
    var entry: CloudLayout.Entry
}
