import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioLibrary
import MiDiccioModel

// Before a sync's first step: a library set back to a cloud it left.
//
// Setting another remote (or none) forgets where this device had got to in the old cloud.
// Set back to it (`remote remove` then `remote set` of the same folder, or a while in
// another cloud), the library started afresh there, found its own files under its id,
// took them for a copy's and went on under a new id, saying it was a copy of another
// library file (found by the exploratory helper). The old state is kept aside when the
// remote changes (`SyncStore.changeRemote`), and taken up again here when the cloud
// still holds the record this device last wrote there: then nobody wrote under its id
// since, and nothing it wrote there is gone.
extension SyncSession {
    /// Takes up the state this library had with the current remote when it left it, if
    /// this device has not synced since it was set back and the cloud holds the record it
    /// last wrote there (same instance, same number). Forgets the state kept aside either
    /// way, once it has read the record. Every word is still uploaded once (words changed
    /// meanwhile may have gone to another cloud only). When this library has another id
    /// than the one it had there, it takes that id over instead, on the same condition.
    func takeUpPreviousState() throws {
        guard let remote = try store.remoteLocation() else { return }
        guard let previous = try store.previousState(of: remote) else {
            try takeUpStateOfAnotherSpelling()
            return
        }
        setBack = true
        let fresh = state.isFresh
        let kept = fresh ? try? SyncState.decode(previous.state) : nil
        var untouched = false
        if let kept, let instance = kept.instances.last, !previous.device.isEmpty {
            let record: DeviceRecord?
            do {
                record = try storage.read(CloudLayout.devicePath(previous.device)).flatMap(DeviceRecord.decode)
            } catch CloudError.unreadable {
                record = nil
            }
            if let record, record.instance == instance, isLastWritten(record, of: kept, device: previous.device) { untouched = true }
        }
        let sameID = previous.device == deviceID
        // The same remote that reached another cloud when it was left (Drive or iCloud signed
        // in to the wrong account, then signed out and in to this one again): a state kept
        // aside for this cloud under another key (the sign-in's, `startOver`) is the one to
        // take up, and that of the remote's key is kept aside for the cloud it was. It started
        // afresh, said it was a copy of another library file, went on under a new id and left
        // a ghost of itself on every device (found by the exploratory helper, round 19A).
        if kept != nil, sameID, !untouched, try takeUpStateOfAnotherSpelling() {
            try commit { _ in
                try store.forgetPreviousState(of: remote)
                try store.keepStateAside(of: remote, device: previous.device, state: previous.state)
            }
            return
        }
        let now = now
        try commit { next in
            if let kept, sameID, untouched {
                let generation = next.generation
                next = kept
                next.generation = generation
                next.fullUpload = true
            } else if let kept, sameID {
                // Starting afresh there, as after a start-over.
                next.rememberWritten(by: kept, at: now)
            } else if let kept, untouched, !next.absorbed.contains(where: { $0.device == previous.device }) {
                next.takeOver(previous.device, instance: kept.instances.last)
            }
            try store.forgetPreviousState(of: remote)
            // Not taken up: the cloud there now is another (the same remote reaching another
            // account, a folder emptied): that state still tells which devices this library
            // synced with there, for the Trash's clean-up (`SyncStore.devicesElsewhere`), and
            // is taken up should the library meet that cloud again. Forgotten, the clean-up
            // purged a word those devices had never seen in the Trash (round 16A).
            if !untouched { try store.keepStateAside(of: remote, device: previous.device, state: previous.state) }
        }
        if sameID && untouched { report.previousStateTakenUp = true }
        if !sameID && untouched { report.previousIDTakenOver = previous.device }
    }

    /// Takes up a state kept aside under another remote whose cloud this one is: the same
    /// folder through a symbolic link or another path, the same WebDAV folder under another
    /// host name, a synced folder now reached through WebDAV, a cloud folder copied to a new
    /// place. The cloud holds the record this device last wrote there, under this device's
    /// id (the same condition as for the same remote). Without this the device took its
    /// own files for a copy's, went on under a new id and said it was a copy of another
    /// library file (found by the exploratory helpers, round 11). Only on the first sync
    /// after the remote changed.
    ///
    /// The same after a sign-in back to an account this library left for another (Google
    /// Drive and iCloud read the same for every account): the state kept at that sign-in
    /// (`startOver`) is taken up, and the one of the account it leaves kept in its place.
    /// It said files it had written were gone and that it was a copy of another library,
    /// and went on under a new id (found by the exploratory helper, round 13C).
    ///
    /// True when it took one up, or found this cloud an older copy of one.
    @discardableResult
    private func takeUpStateOfAnotherSpelling() throws -> Bool {
        let fresh = state.isFresh
        guard fresh || signedInAgain else { return false }
        let own = try store.previousStates().filter { $0.device == deviceID }
        guard !own.isEmpty else { return false }
        let found: DeviceRecord?
        do {
            found = try storage.read(CloudLayout.devicePath(deviceID)).flatMap(DeviceRecord.decode)
        } catch CloudError.unreadable {
            found = nil
        }
        guard let record = found else { return false }
        // Signed in again to the account it was in: nothing to take up.
        if let instance = record.instance, state.instances.contains(instance) { return false }
        for previous in own {
            guard let kept = try? SyncState.decode(previous.state), let instance = kept.instances.last,
                record.instance == instance, isLastWritten(record, of: kept, device: deviceID)
            else { continue }
            setBack = true
            let copy = try stateLeftInACopy(previous, kept: kept)
            try commit { next in
                if next.hasPublished { try store.keepStateAside(device: deviceID, state: try next.encoded()) }
                let generation = next.generation
                next = kept
                next.generation = generation
                next.fullUpload = true
                try keepAsideOrForget(previous, copy: copy)
            }
            report.previousStateTakenUp = true
            if copy != nil { report.copyOfFolder = SyncStore.folder(ofPreviousKey: previous.key) }
            return true
        }
        // A copy of the cloud folder made before this device's last sync there (a person
        // moving to another sync service, who copied the folder while a device still synced
        // in the old one): its record there is one this library wrote, at an earlier number.
        // It starts afresh here knowing those files for its own, and uploads every word once;
        // it took them for a copy's, said it was "a copy of another library file" and went
        // on under a new id (found by the exploratory helper, round 15C).
        guard fresh, let instance = record.instance else { return false }
        for previous in own {
            guard let kept = try? SyncState.decode(previous.state), kept.instances.contains(instance), record.lastSeq <= kept.lastSeq
            else { continue }
            let now = now
            let copy = try stateLeftInACopy(previous, kept: kept)
            try commit { next in
                next.rememberWritten(by: kept, at: now)
                next.instances = kept.instances
                next.fullUpload = true
                try keepAsideOrForget(previous, copy: copy)
            }
            report.olderCopyOfTheCloud = true
            if copy != nil { report.copyOfFolder = SyncStore.folder(ofPreviousKey: previous.key) }
            return true
        }
        return false
    }

    /// True when `record`, read in the cloud under `device`, is the last record the state
    /// `kept` wrote there: the same number, or an earlier one whose later files are all in
    /// the cloud (the sync that wrote them failed to write the record after them: a lock,
    /// a 503, a full quota). Such a cloud is the one the state left, not an older copy of
    /// it; taken for a copy, it said "holds an older copy of this device's files" where
    /// nobody had copied anything (found by the exploratory helper, round 21A #3).
    private func isLastWritten(_ record: DeviceRecord, of kept: SyncState, device: String) -> Bool {
        if record.lastSeq == kept.lastSeq { return true }
        guard record.lastSeq < kept.lastSeq else { return false }
        let later = kept.files.filter { $0.seq > record.lastSeq }
        guard later.map(\.seq).max() == kept.lastSeq else { return false }
        for kind in Set(later.map(\.kind)) {
            // Unreadable: taken for an older copy, as before (every word is uploaded either way).
            let there = Set(((try? storage.list(CloudLayout.folder(kind, of: device))) ?? []).map(\.name))
            guard later.filter({ $0.kind == kind }).allSatisfy({ there.contains($0.name) }) else { return false }
        }
        return true
    }

    /// The state to keep aside for `previous` (`kept`, another spelling of this cloud that
    /// this sync takes up, or finds this cloud an older copy of) when that spelling is a
    /// folder still there beside this cloud, another folder holding a record this library
    /// wrote: this cloud is a copy of it, and devices may still sync there. The Trash's
    /// clean-up waits for them (`SyncState.countingAsRead`), as when `remote set` goes from
    /// the folder to its copy. Forgotten, nothing waited: a copy made before this
    /// library's last sync in the old folder, or set after `remote remove`, let the clean-up
    /// purge a word a device left on the old folder had edited (round 18A). Nil otherwise.
    private func stateLeftInACopy(_ previous: (key: String, device: String, state: String), kept: SyncState) throws -> String? {
        guard let old = SyncStore.folder(ofPreviousKey: previous.key), let oldFolder = FileSystem.identity(old) else { return nil }
        if let current = try store.remoteLocation(), current.kind == "folder",
            let here = FileSystem.identity(current.location), here == oldFolder
        {
            return nil
        }
        guard let data = FileManager.default.contents(atPath: old + "/" + CloudLayout.devicePath(previous.device)),
            let record = DeviceRecord.decode(data), let instance = record.instance, kept.instances.contains(instance)
        else { return nil }
        let records = try storage.list(CloudLayout.devicesFolder).compactMap { CloudLayout.device(fromRecordName: $0.name) }
            .compactMap { device in try? storage.read(CloudLayout.devicePath(device)).flatMap(DeviceRecord.decode) }
        return try kept.countingAsRead(records, except: deviceID, now: now).encoded()
    }

    /// Keeps `copy` aside under `previous`'s key, or forgets what was kept there when there
    /// is none; call inside `commit`.
    private func keepAsideOrForget(_ previous: (key: String, device: String, state: String), copy: String?) throws {
        if let copy {
            try store.keepStateAside(key: previous.key, device: previous.device, state: copy)
        } else {
            try store.forgetPreviousState(key: previous.key)
        }
    }
}
