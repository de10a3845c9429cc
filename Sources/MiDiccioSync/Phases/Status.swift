import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioModel

// The status of sync: this device's state, and every device in the cloud. Reads only.
extension SyncSession {
    /// This device's sync state, and every device in the cloud when it can be reached.
    /// Claims that no purged content remains only when it knows: this device's files
    /// honour every marker it holds and no temporary file of its is left, and every
    /// other active device's record says its files honour the same markers.
    func status() throws -> SyncStatus {
        let (pending, uploadAll, digest, name, position, markers) = try store.read {
            (
                try store.pendingCount(), try store.uploadAllRequested(), try store.digest(), try store.library.deviceName(),
                try store.markerPosition(), try store.markers(pendingOnly: false).count
            )
        }
        let (pendingAnswers, pendingSettings, pendingPurges) = try store.read {
            (
                try store.reviewEvents(pendingOnly: true).count, try store.settings(pendingOnly: true).count,
                try store.markers(pendingOnly: true).count
            )
        }
        let lastSync = state.lastSync.map(Timestamp.init(milliseconds:))
        var status = SyncStatus(
            deviceID: deviceID, deviceName: name, remote: storage.displayName, lastSync: lastSync,
            pending: pending, fullUploadPending: state.fullUpload || uploadAll, devices: [], cloudProblem: nil)
        var this = SyncStatus.Device(
            id: deviceID, name: name, app: engine.appVersion, lastSync: lastSync, agrees: true, isThisDevice: true)
        this.everythingRead = true
        status.lastFailure = try store.lastSyncFailure(remote: storage.displayName)
        status.pendingAnswers = pendingAnswers
        status.pendingSettings = pendingSettings
        status.pendingPurges = pendingPurges
        status.devices.append(this)
        status.purgedElsewhere = state.purgedElsewhere
        status.retentionDays = Int(engine.retention / 86_400_000)
        status.purgeMarkers = markers
        if markers > 0 && state.cleanMarkers < position && !(state.lastSeq == 0 && state.files.isEmpty) {
            status.purgedContentRemains.append(
                "this device has not yet written a snapshot and removed its older change files since the last purge (the next syncs do, once other devices have read them)"
            )
        }
        do {
            try readDeviceRecords()
            let temporary = try leftoverTemporaryFiles()
            if temporary > 0 && markers > 0 {
                status.purgedContentRemains.append(
                    "\(temporary) temporary file\(temporary == 1 ? "" : "s") this device left behind (its next sync removes them)")
            }
            let mine = try store.markerSet(through: position)
            let taken = Set(state.absorbed.map(\.device))
            let takers = Dictionary(
                others.flatMap { record in record.absorbed.keys.map { ($0, record.name) } },
                uniquingKeysWith: { first, _ in first })
            let label = deviceLabels(thisDevice: name)
            for record in others {
                let inactive = now - record.lastSync.milliseconds > engine.retention
                var device = SyncStatus.Device(
                    id: record.device, name: record.name, app: record.app, lastSync: record.lastSync,
                    agrees: record.digest == digest, isThisDevice: false, inactive: inactive)
                // An id this library took over whose record a copy wrote again is taken over
                // by this device (found by the exploratory helper: "differs" for good).
                device.replacedBy = takers[record.device] ?? (taken.contains(record.device) ? name : nil)
                device.clockAhead = ClockAhead.of(record, now: now)
                // A copy silent for as long as stray files wait (a live copy that syncs is
                // told as any device is): another library took over the id it took over.
                let took = Set(record.absorbed.keys)
                if now - record.lastSync.milliseconds >= engine.strayFileAge {
                    device.copyOf =
                        took.contains(where: taken.contains)
                        ? deviceID
                        : others.filter { $0.lastSync > record.lastSync && $0.absorbed.keys.contains(where: took.contains) }
                            .max { $0.lastSync < $1.lastSync }?.device
                }
                device.everythingRead = (state.cursors[record.device] ?? 0) >= record.lastSeq
                status.devices.append(device)
                guard markers > 0 else { continue }
                let unclean = record.purgeClean.map { $0.count != mine.count || $0.digest != mine.digest } ?? true
                if device.replacedBy != nil {
                    // Its files go once the copy that took it over has read them; until then
                    // they may hold what was purged since (found by the exploratory helper).
                    if unclean {
                        status.purgedContentRemains.append(
                            "\(label(record))'s files, which a copy of its library is taking over, until they are removed")
                    }
                } else if inactive {
                    status.purgedContentRemains.append(
                        "\(label(record)) has not synced for too long to have compacted its files since the purges")
                } else if unclean {
                    status.purgedContentRemains.append("\(label(record)) has not synced and compacted its files since the last purge")
                }
            }
            // Files no record names stay (no device owns them to remove them), and may
            // hold what was purged since they were written.
            if markers > 0 {
                for device in try unrecordedDevices() where try !listedFiles(of: device).isEmpty {
                    status.purgedContentRemains.append(
                        "the files of a device that has no record in the cloud (\(device.prefix(8))), which no device removes")
                }
            }
        } catch {
            status.cloudProblem = "\(error)"
            if markers > 0 { status.purgedContentRemains.append("the cloud cannot be read to check the other devices") }
        }
        return status
    }

    /// How many temporary files of this device's writes are in its folders.
    private func leftoverTemporaryFiles() throws -> Int {
        var count = 0
        for kind in [CloudLayout.Kind.changes, .snapshot] {
            count += try storage.list(CloudLayout.folder(kind, of: deviceID)).filter { FileSystem.isTemporaryName($0.name) }.count
        }
        let recordName = CloudLayout.devicePath(deviceID).split(separator: "/").last.map(String.init) ?? ""
        count += deviceFolderNames.filter { FileSystem.isTemporaryName($0) && $0.hasPrefix("." + recordName + ".") }.count
        return count
    }
}
