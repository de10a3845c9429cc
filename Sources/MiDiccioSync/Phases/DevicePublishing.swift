import Foundation
import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioModel

// Step 6 of a sync: this device's record, which tells others how far its stream goes,
// how far it has read theirs, and which purge markers its files honour.
extension SyncSession {
    /// True when this device's record in the cloud names fewer of its files than it wrote:
    /// the record of the sync that wrote the last of them could not be written.
    var recordBehind: Bool { ownRecord.map { $0.lastSeq < state.lastSeq } ?? false }

    /// Writes this device's record when it changed, when a file was written (`force`),
    /// when it is missing from the cloud, or at least daily (so a device that syncs but
    /// has nothing new never looks silent: the others stop waiting for silent devices).
    func publishRecordIfNeeded(force: Bool) throws {
        announce(.tidying)
        let (digest, name, clean) = try store.read {
            (try store.digest(), try store.library.deviceName(), try store.markerSet(through: state.cleanMarkers))
        }
        let changeNames = state.files.filter { $0.kind == .changes && $0.seq > state.snapshotSeq }.map(\.name).sorted()
        let replacedSnapshots = state.replacedSnapshots
        // The cloud's id as this device knows it, kept in its record so that a device new
        // to the cloud that finds the manifest gone can write it again with the same id.
        let knownCloud = state.cloudEpoch.flatMap { $0.isEmpty ? nil : $0 }
        let absorbed = Dictionary(state.absorbed.map { ($0.device, $0.through) }, uniquingKeysWith: max)
        let forgotten = "\(state.forgot ?? -1):\(state.forgotThrough ?? -1):\(state.forgotAt ?? -1)"
        let signature = [
            "\(state.lastSeq)", "\(state.snapshot?.path ?? "")", changeNames.joined(separator: ","),
            replacedSnapshots.joined(separator: ","),
            state.cursors.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
            digest, name, "\(clean.count)/\(clean.digest)",
            absorbed.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
            wants.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
            knownCloud ?? "", forgotten,
            trashHold.map { "\($0.device)@\($0.at)/\($0.written ?? -1)" }.joined(separator: ","),
        ].joined(separator: "|")
        // A record written in this clock's future (the clock was ahead, and is set right)
        // is written again: it named this device's clock as ahead on every device until
        // this clock caught up with it (found by the exploratory helper, round 10).
        let stale = now - (state.published?.at ?? 0) > 86_400_000 || (state.published?.at ?? 0) - now > ClockAhead.threshold
        // Missing, or there and unreadable (cut short, damaged): this device alone can mend
        // it. One cut short stayed so for a day, and the others read none of this device's
        // changes meanwhile (found by the exploratory helper, round 21A #4).
        let missing = ownRecord == nil
        // An older record of this device's in the cloud (a folder put back on another
        // computer brings one): others read what it says, such as how far this device read
        // theirs, until it is written again (found by the exploratory helper, round 10).
        let older = ownRecord.map { $0.instance != nil && $0.instance != state.instances.last } ?? false
        guard force || stale || missing || older || state.published?.signature != signature else { return }
        // The word count is kept up to date with every change (WordLibrary.counts()).
        var record = DeviceRecord(
            device: deviceID, name: name, app: engine.appVersion, lastSync: store.clock.now(),
            lastSeq: state.lastSeq, snapshotSeq: state.snapshotSeq, read: state.cursors,
            digest: digest, wordCount: try store.wordCount())
        record.instance = nonce()
        record.snapshotName = state.snapshot?.name
        record.changeNames = changeNames
        record.snapshotReplaces = replacedSnapshots.isEmpty ? nil : replacedSnapshots
        record.absorbed = absorbed
        record.wanted = wants
        record.cloud = knownCloud
        record.forgot = state.forgot
        record.forgotThrough = state.forgotThrough
        record.forgotAt = state.forgotAt
        record.purgeClean = DeviceRecord.PurgeCleanliness(count: clean.count, digest: clean.digest)
        record.trashHold =
            trashHold.isEmpty
            ? nil : trashHold.map { DeviceRecord.HeldFor(device: $0.device, name: $0.name, at: $0.at, written: $0.written) }
        try prepareToWrite()
        try commit { $0.instanceInFlight = record.instance }
        let data = record.encoded()
        try storage.write(CloudLayout.devicePath(deviceID), data)
        report.filesWritten += 1
        report.bytesWritten += data.count
        try commit { next in
            next.rememberInstance(record.instance!)
            next.published = SyncState.Published(signature: signature, at: now)
            try markSentAsUploaded()
        }
        ownRecord = record
        if let sent = awaitingRecord {
            kept.pushed = sent.count
            awaitingRecord = nil
        }
    }
}
