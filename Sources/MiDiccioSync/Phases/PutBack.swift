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
            try commit { next in
                next.numberedThrough = readHere
                next.forgot = min(next.forgot ?? written, written)
            }
            report.putBack = readHere - written
        }
        for record in others {
            let place = state.cursors[record.device] ?? 0
            let lost = try record.forgot ?? (record.lastSeq < place ? record.lastSeq : nil) ?? renumbered(record, at: place)
            guard let lost, state.refilled?[record.device] != lost else { continue }
            let readPast = place > lost
            try commit { next in
                var refilled = next.refilled ?? [:]
                refilled[record.device] = lost
                next.refilled = refilled
                if readPast { next.fullUpload = true }
            }
            if readPast { report.refilledFor.append(record.name.isEmpty ? String(record.device.prefix(8)) : record.name) }
        }
    }

    /// The number before `place` when `record` names its change file at `place` otherwise
    /// than the one this device read there: the device was put back and wrote that number
    /// again before this device saw its record go back (found by the exploratory helper:
    /// its new words never reached a device that had read the old file). The place goes
    /// back before it, so the new file is read.
    private func renumbered(_ record: DeviceRecord, at place: Int64) throws -> Int64? {
        guard place > 0, record.snapshotSeq < place, let read = state.readNames?[record.device],
            CloudLayout.entry(fromName: read, kind: .changes)?.seq == place, let names = record.changeNames,
            !names.contains(read), names.contains(where: { CloudLayout.entry(fromName: $0, kind: .changes)?.seq == place })
        else { return nil }
        try commit { $0.cursors[record.device] = place - 1 }
        return place - 1
    }
}
