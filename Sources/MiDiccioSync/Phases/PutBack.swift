import Foundation
import MiDiccioModel

// Step 2e of a sync: a device put back from an older copy together with its files in the
// cloud (found by the exploratory helper, round 9: a computer restored from Time Machine,
// its library and its Dropbox folder both as they were an hour before). Its record and
// files go back with it, so nothing else tells: the changes it made since went to the other
// devices and then left the cloud, and its next files took numbers they had read already.
extension SyncSession {
    /// On the device put back: other devices' records say they read more of its entries
    /// than it has written. It numbers its next files after what they read, and says in
    /// its record that the entries after its own last one are gone (`forgot`).
    ///
    /// On a device that had read such lost entries (the record says `forgot` below its
    /// place in that device's files, or its `lastSeq` went below it): it holds what those
    /// entries carried, and nothing else in the cloud does now, so it uploads every word
    /// once (each field keeps its time and writer, so a device that has them merges
    /// nothing). Once per lost point; a device that had not read past it does nothing.
    func checkPutBack() throws {
        let written = max(state.lastSeq, state.numberedThrough ?? 0, state.inflight?.seq ?? 0)
        let readHere = others.compactMap { $0.read[deviceID] }.max() ?? 0
        if readHere > written {
            let now = now
            try commit { next in
                next.numberedThrough = readHere
                next.forgot = written
                next.forgotThrough = readHere
                next.forgotAt = now
            }
            report.putBack = readHere - written
        }
        for record in others {
            let place = state.cursors[record.device] ?? 0
            guard let lost = try lostEntries(of: record, at: place) else { continue }
            // Once per loss: put back again, even to the same point, it is another (found
            // by the exploratory helper, round 10: a second restore went unanswered).
            let mark = "\(lost.after):\(lost.through):\(lost.which)"
            guard state.refilled?[record.device] != mark else { continue }
            let readPast = max(place, state.readThrough?[record.device] ?? 0) > lost.after
            try commit { next in
                var refilled = next.refilled ?? [:]
                refilled[record.device] = mark
                next.refilled = refilled
                if readPast { next.fullUpload = true }
                // Its files from the start again: more than one number may have been
                // written again (found by the exploratory helper, round 10).
                if lost.rewind { next.cursors[record.device] = 0 }
            }
            if readPast { report.refilledFor.append(record.name.isEmpty ? String(record.device.prefix(8)) : record.name) }
        }
    }

    /// What `record` says this device read of its entries and the cloud lost: entries after
    /// `after`, up to `through`, and whether this device's place in them must go back to the
    /// start to read what was written again under their numbers. Nil when nothing was lost.
    /// `which` tells one loss from another at the same numbers: when the device found it, or
    /// the file this device had read at its place.
    private func lostEntries(
        of record: DeviceRecord, at place: Int64
    ) throws -> (after: Int64, through: Int64, which: String, rewind: Bool)? {
        // What this device sees first: a `forgot` the device said once stays in its record,
        // and must not hide its being put back again (found by the exploratory helper).
        let read = state.readNames?[record.device] ?? state.snapshotsRead?[record.device] ?? ""
        // A record a sync program brought back alone is not a loss: the files it wrote
        // since are still there (found by the exploratory helper, round 10: every such
        // record made every device upload every word). The pull reads them again.
        // Past a gap its place stays at (the device numbered after what others had read), it
        // may have read more than its place says.
        let reach = max(place, state.readThrough?[record.device] ?? 0)
        if record.lastSeq < reach, try !filesPast(record.lastSeq, of: record.device) { return (record.lastSeq, reach, read, false) }
        if try renumbered(record, at: place) { return (place - 1, place, read, true) }
        if let forgot = record.forgot { return (forgot, record.forgotThrough ?? forgot, "at \(record.forgotAt ?? 0)", false) }
        return nil
    }

    /// True when a change file or snapshot of `device` numbered past `seq` is in the cloud.
    private func filesPast(_ seq: Int64, of device: String) throws -> Bool {
        let changes = try storage.list(CloudLayout.changesFolder(device))
        if changes.contains(where: { (CloudLayout.entry(fromName: $0.name, kind: .changes)?.seq ?? 0) > seq }) { return true }
        let snapshots = try storage.list(CloudLayout.snapshotsFolder(device))
        return snapshots.contains { (CloudLayout.entry(fromName: $0.name, kind: .snapshot)?.seq ?? 0) > seq }
    }

    /// True when `record` names the change file at `place`, or the snapshot at or before
    /// it, otherwise than the one this device read there: the device was put back and wrote
    /// those numbers again before this device saw its record go back (found by the
    /// exploratory helper: its new words never reached a device that had read the old file).
    private func renumbered(_ record: DeviceRecord, at place: Int64) throws -> Bool {
        guard place > 0 else { return false }
        // A device's snapshots only ever take higher numbers: one older than the snapshot
        // this device read of it is from before (found by the exploratory helper, round 10),
        // unless the record alone is (its newer files are there).
        if let read = state.snapshotsRead?[record.device], let seq = CloudLayout.entry(fromName: read, kind: .snapshot)?.seq,
            seq > record.snapshotSeq, try !filesPast(record.lastSeq, of: record.device)
        {
            return true
        }
        // A snapshot the device wrote again under its number to honour a purge names the
        // one it replaced: not a put-back (round 12A).
        if record.snapshotSeq > 0, record.snapshotSeq <= place, let read = state.snapshotsRead?[record.device],
            let name = record.snapshotName, CloudLayout.entry(fromName: read, kind: .snapshot)?.seq == record.snapshotSeq,
            read != name, record.snapshotReplaces?.contains(read) != true
        {
            return true
        }
        guard record.snapshotSeq < place, let read = state.readNames?[record.device],
            CloudLayout.entry(fromName: read, kind: .changes)?.seq == place, let names = record.changeNames
        else { return false }
        return !names.contains(read) && names.contains { CloudLayout.entry(fromName: $0, kind: .changes)?.seq == place }
    }
}
