import Foundation
import MiDiccioCloud
import MiDiccioModel

// Step 1 of a sync: the manifest says which format the cloud folder holds, and which
// MiDiccio may read and write it.
extension SyncSession {
    /// Why a cloud this device synced with has no manifest now, and what to do, for people.
    /// A folder that is not there at all says so (it said "has no midiccio-sync.json"), and a
    /// cloud reached through a sign-in may be another account's (found by the exploratory
    /// helpers, rounds 8 and 9: Google Drive signed in to another account said the same).
    private func missingManifest() -> String {
        let emptied =
            "If it was emptied on purpose, remove the remote and set it again (midiccio remote remove, then midiccio remote set) "
            + "to start over there"
        if let folder = storage as? FolderStorage {
            if !folder.rootIsThere {
                return "the sync folder \(folder.root) is not there (a drive not mounted, or the folder moved or renamed?). "
                    + "Put it back, or set where it is now with: midiccio remote set folder PATH"
            }
            return "\(storage.displayName) has no \(CloudLayout.manifestPath) although this device synced with it before; "
                + "is the drive or sync folder there? \(emptied)"
        }
        if let whereabouts = storage.whereaboutsOfMissingFolder() {
            return "\(storage.displayName) has no \(CloudLayout.manifestPath) although this device synced with it before: "
                + whereabouts
        }
        return "\(storage.displayName) has no \(CloudLayout.manifestPath) although this device synced with it before; is this "
            + "library signed in to another account than before? Then sign in again to the one it used (midiccio remote set). "
            + emptied
    }

    /// Reads the manifest, starting a new cloud folder when there is none and this
    /// device never synced here. Refuses a folder written by a newer MiDiccio.
    func checkManifest() throws {
        announce(.reachingCloud)
        var data = try readManifest()
        if data == nil {
            // Asked again before it is taken for removed: one 404 from a server, a cache in
            // front of it or a store whose answers lag is not a removed file, and writing it
            // again put this device's format over a newer one's (found by the exploratory
            // helper, round 13C: an older build then moved the cloud back to its format, and
            // on Google Drive, which cannot create a file only where none is, a new device
            // made a second manifest beside the first).
            data = try readManifest()
        }
        if data == nil && !state.hasPublished && state.cursors.isEmpty {
            // A device new to this cloud asks a third time before it starts a cloud there:
            // a store whose listings lag (Google Drive) missed the manifest another device
            // wrote, and the new device started a second cloud beside it (round 22B #3).
            data = try readManifest()
        }
        guard let data else {
            // No manifest where this device has synced before is far more likely an
            // unmounted drive or a sync client still downloading than a new cloud:
            // starting a fresh one there would mark every word as uploaded.
            if state.hasPublished || !state.cursors.isEmpty {
                // Where this device's own record is still there, the cloud is: only the
                // manifest went (a sync program or a person removed it), and every sync
                // stopped on it for good. It is written again, as a new device would.
                let records = try storage.list(CloudLayout.devicesFolder)
                if records.contains(where: { CloudLayout.device(fromRecordName: $0.name) == deviceID }) {
                    report.manifestWrittenAgain = true
                } else if signedInAgain {
                    // Signed in again, to an account with no MiDiccio data (a new one the
                    // devices move to): the device starts the cloud there. It stopped for
                    // good before, saying to remove the remote and set it again (found by
                    // the exploratory helper, round 11).
                    try startOver()
                    // "There was no MiDiccio data …, so this sync started it there" says it.
                    report.startedOver = false
                    report.startedOverAfterSignIn = false
                    if records.contains(where: { Self.isRecord($0.name) }) { report.manifestWrittenAgain = true }
                } else {
                    throw CloudError.unavailable(missingManifest())
                }
            } else if !setBack, try storage.list(CloudLayout.devicesFolder).contains(where: { Self.isRecord($0.name) }) {
                // A device new to this cloud that finds devices' records without a manifest:
                // only the manifest went. Written again, with the id the records name (below):
                // a new id would have every device read everything again, and
                // "started it there" was false (found by the exploratory helper). A library
                // set to this cloud again (`remote set` after it was emptied) starts it
                // again, whatever records a sync program has brought back already.
                report.manifestWrittenAgain = true
            }
            // A new cloud folder: this device starts it, in the current format (and says so:
            // a mistyped path starts an empty cloud where the other devices are not).
            // A device that started over in a cloud found deleted (an iCloud zone) says that
            // alone: "started it there … check the path" beside it contradicted it (round 13C).
            if !report.manifestWrittenAgain && !report.startedOver { report.startedCloud = true }
            manifest = .current
            // A new cloud gets a new id. One written again keeps the id this device knew,
            // or else the one the devices' records name (the newest record that names one).
            if report.manifestWrittenAgain {
                if let known = state.cloudEpoch {
                    manifest.cloud = known.isEmpty ? nil : known
                } else {
                    // Read now rather than in the next step, which then has them.
                    try readDeviceRecords()
                    manifest.cloud = newestNamedCloudID()
                }
            } else {
                manifest.cloud = CloudManifest.newCloudID()
            }
            // Only where none is: one there after all (the 404s passing, or another device
            // starting the cloud at the same moment) is the one that counts, and a newer
            // MiDiccio's still stops this one.
            do {
                try storage.create(CloudLayout.manifestPath, manifest.encoded())
            } catch CloudError.exists {
                guard let there = try readManifest() else { throw CloudError.unavailable(missingManifest()) }
                report.manifestWrittenAgain = false
                report.startedCloud = false
                try take(there)
                return
            }
            manifestReady = true
            return
        }
        try take(data)
    }

    /// The manifest's bytes, or nil when there is none.
    private func readManifest() throws -> Data? {
        do {
            return try storage.read(CloudLayout.manifestPath)
        } catch CloudError.unreadable(_, let reason) {
            throw SyncError.badManifest(reason)
        }
    }

    /// Takes the manifest the cloud holds, refusing one a newer MiDiccio wrote for its own.
    private func take(_ data: Data) throws {
        // A manifest caught half written (a file-sync client still delivering it) is
        // not a reason to give up on the cloud: the next sync reads it whole.
        guard let found = CloudManifest.decode(data) else {
            throw SyncError.badManifest("it is not a MiDiccio manifest, or not a whole one yet")
        }
        if found.minimumReadVersion > engine.formatVersion || found.minimumWriteVersion > engine.formatVersion {
            throw SyncError.cloudTooNew(version: found.version)
        }
        manifest = found
    }

    /// The cloud id named by the newest device record (by when it was written) that names
    /// one; nil when none does.
    private func newestNamedCloudID() -> String? {
        (others + [ownRecord].compactMap { $0 }).filter { $0.cloud != nil }.max { $0.lastSync < $1.lastSync }?.cloud
    }

    /// True when `name`, in the devices folder, is a device's record.
    private static func isRecord(_ name: String) -> Bool { CloudLayout.device(fromRecordName: name) != nil }

    /// Moves the folder to the current format before this sync's first write: the
    /// names it writes are of that format, which older devices would not find, so they
    /// must stop (and keep their local work) rather than drift.
    func prepareToWrite() throws {
        guard !manifestReady else { return }
        if manifest.version < CloudManifest.current.version || manifest.minimumReadVersion < CloudManifest.current.minimumReadVersion {
            let cloud = manifest.cloud
            manifest = .current
            manifest.cloud = cloud
            try storage.write(CloudLayout.manifestPath, manifest.encoded())
        }
        manifestReady = true
    }
}
