import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioModel

// Step 2 of a sync: the device records, and whether this library is a copy.
//
// One library file is not one device for ever: people copy it to a new laptop, clone a
// VM, or put back an older copy from a backup. Two files that share a device id would
// share a stream of change files, so a library that finds it is such a copy goes on
// under a new id. It finds out from its own record: every record carries a random
// `instance`, new with each write, and a library remembers the ones it wrote. A record
// under its id with another instance was written by another copy; one of an older
// format, or numbered beyond this library's own files, by a newer copy of itself.
extension SyncSession {
    /// Reads every device record: this device's own, and the others (sorted by id).
    /// An unreadable record is reported and skipped.
    func readDeviceRecords() throws {
        // Once a sync: a manifest written again may have needed them first (`checkManifest`).
        guard !recordsRead else { return }
        recordsRead = true
        others = []
        ownRecord = nil
        ownRecordUnreadable = false
        unreadableRecords = []
        let entries = try storage.list(CloudLayout.devicesFolder)
        deviceFolderNames = entries.map(\.name)
        for entry in entries {
            guard let device = CloudLayout.device(fromRecordName: entry.name) else { continue }
            let path = CloudLayout.devicePath(device)
            let data: Data?
            do {
                data = try storage.read(path)
            } catch CloudError.unreadable(_, let reason) {
                report.skippedFiles.append(SkippedFile(path: path, reason: reason))
                if device == deviceID { ownRecordUnreadable = true } else { unreadableRecords.append(device) }
                continue
            }
            guard let data else { continue }
            guard let record = DeviceRecord.decode(data), record.device == device else {
                report.skippedFiles.append(SkippedFile(path: path, reason: "not a readable device record"))
                if device == deviceID { ownRecordUnreadable = true } else { unreadableRecords.append(device) }
                continue
            }
            if device == deviceID {
                ownRecord = record
            } else {
                others.append(record)
            }
        }
        others.sort { $0.device < $1.device }
    }

    /// Notes the device whose clock is furthest ahead of this one's, past
    /// `ClockAhead.threshold`, from the time each record says it was written: by its
    /// device's own clock. (A word's times cannot tell: an edit is stamped after the
    /// newest time known for the word, so a device with a right clock that edits a word
    /// stamped ahead stamps its edit ahead too.)
    func checkClocks() {
        for record in others {
            guard let clock = ClockAhead.of(record, now: now), clock.milliseconds > report.clockAhead?.milliseconds ?? 0 else { continue }
            report.clockAhead = clock
        }
    }

    /// True when this library's id took over others and has no record in the cloud yet.
    var takeoverUnannounced: Bool {
        ownRecord == nil && !ownRecordUnreadable && state.absorbed.contains { !$0.cleanedUp }
    }

    /// Goes on under a new device id when the records show this library is a copy of
    /// another device (or an older copy of itself).
    func checkIdentity() throws {
        if let own = ownRecord, let instance = own.instance, instance == state.instanceInFlight {
            // This device wrote that record and stopped before noting it.
            try commit { $0.rememberInstance(instance) }
        }
        guard let reason = try copyEvidence() else { return }
        try switchIdentity(because: reason)
    }

    /// Why this library is a copy of a device the cloud already knows, or nil.
    private func copyEvidence() throws -> String? {
        if let suspicion = state.copySuspected { return suspicion }
        if let taker = others.first(where: { $0.absorbed[deviceID] != nil }) {
            return "another copy of this library (\(taker.name)) took over this device's files"
        }
        if let unknown = try unknownOwnFile() { return Self.unknownFileEvidence(unknown) }
        guard let own = ownRecord else { return nil }
        if let instance = own.instance {
            if state.instances.contains(instance) { return nil }
            return state.hasPublished
                ? "the cloud holds a record of this device that this library did not write: another copy of the library file syncs here"
                : "the cloud already knows a device with this library's id: this library is a copy of it"
        }
        // A record of the previous format (no instance).
        if !state.instances.isEmpty {
            return "an older MiDiccio wrote this device's record: a copy of this library file runs there"
        }
        if own.lastSeq > state.lastSeq {
            return "the cloud holds this device's files beyond this library's own: it is an older copy of itself (put back from a backup?)"
        }
        return nil
    }

    /// A change file or snapshot under this device's id that this library did not write.
    /// Change files are looked for whenever the library's sync state is not the one this
    /// process last left (its first sync here, another process synced it, or it was put
    /// back from an older copy) and before every upload; snapshots when the state is not
    /// the one this process left. A full upload (after an update, or a change of id) goes
    /// as a snapshot: when its record could not be written and the library was then put
    /// back from an older copy, that snapshot alone held the words uploaded (found by the
    /// simulation), and taking a new id reads it. Names without a random part were written
    /// before format 3, by this library.
    ///
    /// Both are looked for as well whenever silent devices' folders are (`strayScanDue`):
    /// a copy of this library that was then lost may have left files here, and this
    /// library, with nothing to upload, would never look (found by the simulation).
    /// A file this device removed that is back (`SyncState.removedFiles`) is removed again.
    private func unknownOwnFile() throws -> String? {
        let uploading = try somethingToUpload()
        let everyKind = unfamiliar || strayScanDue
        guard everyKind || uploading else { return nil }
        let known = Set(state.files.map(\.path) + [state.snapshot?.path, state.inflight?.path].compactMap { $0 })
        var listed = Set<String>()
        var back: [String] = []
        for kind in everyKind ? [CloudLayout.Kind.changes, .snapshot] : [.changes] {
            let folder = CloudLayout.folder(kind, of: deviceID)
            for entry in try storage.list(folder) {
                listed.insert(folder + "/" + entry.name)
                guard let parsed = CloudLayout.entry(fromName: entry.name, kind: kind), parsed.nonce != nil else { continue }
                let path = folder + "/" + entry.name
                if state.removedFiles?[path] != nil {
                    back.append(path)
                } else if !known.contains(path) {
                    // A copy of this library writes under this id, and the files it shares
                    // with this one are its history too: none is removed here. This library
                    // takes a new id and reads them all (found by the exploratory helper:
                    // a file removed here left a gap the copy's readers stopped at).
                    return path
                }
            }
        }
        // One this device removed, brought back (a sync program, a folder put back from a
        // copy), is its own: removed again.
        for path in back where try storage.delete(path) { report.filesRemoved += 1 }
        // Files this device wrote and did not remove that are gone: the cloud was emptied
        // (and started again by another device) or put back from an older copy.
        if everyKind {
            let missing = (state.files.map(\.path) + [state.snapshot?.path].compactMap { $0 }).filter { !listed.contains($0) }
            ownFilesGone = try listingLags(missing) ? [] : missing
        }
        return nil
    }

    /// True when one of the files a listing left out (`missing`: files this device wrote
    /// and did not remove) is there when read by name: the listing is a moment behind (a
    /// cache in front of the server, a store whose listings lag), not the cloud emptied.
    /// One such listing had the device read everything again and upload every word (found
    /// by the exploratory helper, round 13C). A change file is read rather than the
    /// snapshot, which can be large.
    private func listingLags(_ missing: [String]) throws -> Bool {
        guard let probe = missing.first(where: { CloudLayout.entry(fromPath: $0)?.kind == .changes }) ?? missing.first else {
            return false
        }
        return try storage.readBytes(probe) != nil
    }

    /// Reads everything again and uploads every word once when files this device wrote,
    /// and did not remove, are gone from the cloud (`unknownOwnFile` lists them). The
    /// cloud was emptied or put back from an older copy: its place in other devices' files
    /// may be past files that a device that started again numbers from 1 (found by the
    /// exploratory helper: a laptop that synced while the folder was emptied elsewhere
    /// kept its place, and never got the new words), and its own words are no longer
    /// there. Its own id and numbering go on.
    func resyncIfOwnFilesGone() throws {
        guard !ownFilesGone.isEmpty else { return }
        let gone = Set(ownFilesGone)
        let now = now
        try commit { next in
            // Should one come back (a copy of the old folder), it is this device's own.
            var removed = next.removedFiles ?? [:]
            for path in gone { removed[path] = now }
            next.removedFiles = removed
            next.files.removeAll { gone.contains($0.path) }
            if let snapshot = next.snapshot, gone.contains(snapshot.path) { next.snapshot = nil }
            next.readEverythingAgain()
        }
        report.ownFilesGone = true
    }

    /// Reads everything again and uploads every word once when the manifest holds another
    /// cloud id than the one this device found there last: the cloud was started again
    /// (emptied, and started by another device). Files this device wrote may still be
    /// there, or its record brought back by a sync program, so the other rules may not
    /// tell (left open by stop 46: a laptop whose sync program was paused while the folder
    /// was emptied, that wrote nothing before, kept its place in a desktop's restarted
    /// files once they went past it, and never got their words). Its own id and
    /// numbering go on. A manifest without an id (a cloud started before ids, or written
    /// by an older MiDiccio) says nothing. A state that knows nothing of ids (a fresh one,
    /// or one an older MiDiccio saved) takes the id it finds as it is.
    func resyncIfCloudStartedAgain() throws {
        let found = manifest.cloud ?? ""
        guard let known = state.cloudEpoch else {
            try commit { $0.cloudEpoch = found }
            return
        }
        guard known != found, !found.isEmpty else { return }
        // Ids are never added to a manifest that has none: one found where there was none
        // is a cloud started again too.
        let syncedHere = state.hasPublished || !state.cursors.isEmpty
        try commit { next in
            next.cloudEpoch = found
            if syncedHere { next.readEverythingAgain() }
        }
        if syncedHere && !report.ownFilesGone { report.cloudStartedAgain = true }
        // It did not go on from where it had got to (a state taken up for a cloud set back
        // to): said once, and not both (found by the exploratory helper).
        if syncedHere { report.previousStateTakenUp = false }
    }

    /// True when this sync will upload something.
    func somethingToUpload() throws -> Bool {
        if state.fullUpload { return true }
        if try store.pendingCount() > 0 { return true }
        return try !store.markers(pendingOnly: true).isEmpty || !store.settings(pendingOnly: true).isEmpty
    }

    /// Takes a new device id. Everything the old id wrote is read again as another
    /// device's (this library's own words that reached the cloud after the copy come
    /// back), every word is uploaded once after pulling, and nothing of the old id is
    /// ever written over: its files are removed only once their content is in this
    /// library's own snapshot (`cleanUpAbsorbedIdentities`).
    private func switchIdentity(because reason: String) throws {
        var ids: (old: String, new: String) = ("", "")
        let oldRecord = ownRecord
        try commit { next in
            ids = try store.adoptNewDeviceID()
            var fresh = SyncState()
            fresh.cursors = next.cursors
            fresh.cursors[ids.new] = nil
            fresh.purgedElsewhere = next.purgedElsewhere
            fresh.lastSync = next.lastSync
            fresh.absorbed = next.absorbed
            // Everything under the old id is read again, like another device's files: a
            // copy's files, or this library's own from before it was put back.
            fresh.takeOver(ids.old, instance: oldRecord?.instance)
            next = fresh
        }
        report.newIdentity = NewIdentity(old: ids.old, new: ids.new, reason: reason)
        let told = report.newIdentity
        try commit { $0.untoldIdentity = told }
        // Libraries that were once this one (a copy, or this library's own newer self
        // before it was put back) may have written files their records never named (a
        // record write that failed); their folders are read once, in full.
        descendants = Set(others.filter { $0.absorbed[ids.old] != nil }.map(\.device))
        kept.newIdentity = true
        ownRecord = nil
        ownRecordUnreadable = false
        if let oldRecord {
            others.append(oldRecord)
            others.sort { $0.device < $1.device }
        }
    }

    /// Makes what this library reads of earlier ids it took over (and, once, of the
    /// libraries that took over its own old id) independent of their records, which may
    /// be stale or gone: the files in their folders say how far their streams go, and
    /// every change file of theirs is found by listing.
    func readAbsorbedIdentities() throws {
        // An id whose files were all gone, whose record is back (a copy still writing
        // under it, delivered late), is taken over again. So is one where a file is back
        // without its record (a copy's file delivered after the takeover ended, the copy
        // then lost: found by the exploratory helper), looked for when stray files are.
        var back = Set(state.absorbed.filter { entry in entry.cleanedUp && others.contains { $0.device == entry.device } }.map(\.device))
        if strayScanDue {
            for entry in state.absorbed where entry.cleanedUp && !back.contains(entry.device) {
                if try !listedFiles(of: entry.device).isEmpty { back.insert(entry.device) }
            }
        }
        if !back.isEmpty {
            try commit { next in
                for index in next.absorbed.indices where back.contains(next.absorbed[index].device) {
                    next.absorbed[index].cleanedUp = false
                }
            }
        }
        let absorbing = state.absorbed.filter { !$0.cleanedUp }.map(\.device)
        // Other libraries that took over an id this one is taking over were once this one
        // too (or copies of it): their folders are read in full for as long as the takeover
        // lasts, not only in the sync that made it, which may have stopped before reading.
        let taken = Set(absorbing)
        descendants.formUnion(others.filter { record in record.absorbed.keys.contains { taken.contains($0) } }.map(\.device))
        for device in absorbing + descendants.filter({ !absorbing.contains($0) }).sorted() {
            let found = others.first { $0.device == device }
            var record =
                found
                ?? DeviceRecord(
                    device: device, name: "", app: "", lastSync: store.clock.now(), lastSeq: 0, snapshotSeq: 0,
                    read: [:], digest: "", wordCount: 0)
            var paths: [String] = []
            for kind in [CloudLayout.Kind.changes, .snapshot] {
                let folder = CloudLayout.folder(kind, of: device)
                for file in try storage.list(folder) {
                    if FileSystem.isTemporaryName(file.name) { paths.append(folder + "/" + file.name) }
                    guard let parsed = CloudLayout.entry(fromName: file.name, kind: kind) else { continue }
                    paths.append(folder + "/" + file.name)
                    record.lastSeq = max(record.lastSeq, parsed.seq)
                    if kind == .snapshot, parsed.seq > record.snapshotSeq {
                        record.snapshotSeq = parsed.seq
                        record.snapshotName = file.name
                    }
                }
            }
            record.changeNames = nil
            others.removeAll { $0.device == device }
            others.append(record)
            absorbedFolders[device] = AbsorbedFolder(record: found, effective: record, paths: paths)
        }
        others.sort { $0.device < $1.device }
    }

    /// Removes the files and record of earlier ids this library took over, once its own
    /// snapshot holds everything read from them and nobody has written there since. A
    /// copy that still writes under such an id sees the takeover in this device's record
    /// and takes a new id itself, so the old one is left to nobody.
    func cleanUpAbsorbedIdentities() throws {
        guard state.absorbed.contains(where: { !$0.cleanedUp }), !state.fullUpload, state.snapshot != nil else { return }
        var absorbed = state.absorbed
        for index in absorbed.indices where !absorbed[index].cleanedUp {
            let entry = absorbed[index]
            guard let folder = absorbedFolders[entry.device] else { continue }
            // Done once a listing finds nothing left: a file still on its way through a
            // file-sync client when the files were removed is removed at a later sync.
            if folder.record == nil && folder.paths.isEmpty {
                absorbed[index].cleanedUp = true
                continue
            }
            guard entry.through >= folder.effective.lastSeq else { continue }
            if let record = folder.record, record.instance != entry.instance { continue }
            // Only files read: one that came later, or could not be read, is read first.
            let read = Set(entry.readPaths ?? []).union(absorbedPathsRead)
            for path in folder.paths {
                let name = String(path.split(separator: "/").last ?? "")
                let parsed = CloudLayout.entry(fromPath: path)
                guard FileSystem.isTemporaryName(name) || (read.contains(path) && parsed.map { $0.seq <= entry.through } ?? false)
                else { continue }
                if try storage.delete(path) { report.filesRemoved += 1 }
            }
            if folder.record != nil, try storage.delete(CloudLayout.devicePath(entry.device)) { report.filesRemoved += 1 }
        }
        if absorbed != state.absorbed {
            try commit { $0.absorbed = absorbed }
        }
    }
}

/// What this sync found of an earlier id this library took over.
struct AbsorbedFolder {
    /// Its record in the cloud, if there is one.
    var record: DeviceRecord?
    /// Its record made to agree with its folders (how far its files go).
    var effective: DeviceRecord
    /// Its change files, snapshots and temporary files.
    var paths: [String]
}
