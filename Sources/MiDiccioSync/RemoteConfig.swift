import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioLibrary
import MiDiccioModel

/// Where a library syncs to.
///
/// Holds no password: a WebDAV password lives in the library's credentials file (see
/// `WebDAVCredentials`) or in `MIDICCIO_WEBDAV_PASSWORD`, never in the library itself.
public enum RemoteConfig: Hashable, Sendable {
    /// A folder on this computer (synced by Dropbox, iCloud Drive, Syncthing ...).
    case folder(path: String)
    /// A folder on a WebDAV server (Nextcloud, ownCloud, a NAS ...): `url` is a checked
    /// `WebDAVAddress` text without credentials, `user` the user name if any.
    case webdav(url: String, user: String?)
    /// The user's Google Drive: the hidden app data folder, or a visible folder. The
    /// sign-in lives in the library's Google Drive file (see `GoogleDriveCredentials`).
    case googleDrive(GoogleDriveSpace)
    /// A zone of the user's private iCloud database in a CloudKit container. The sign-in
    /// lives in the library's iCloud file (see `ICloudCredentials`).
    case iCloud(CloudKitDatabase)

    /// The environment variable whose value, when set, is the WebDAV password instead
    /// of the one in the credentials file.
    public static let passwordVariable = "MIDICCIO_WEBDAV_PASSWORD"

    /// The password for `address`: `MIDICCIO_WEBDAV_PASSWORD` when set, else the one in
    /// the credentials file if it was stored for this very address, else nil.
    package static func webdavPassword(for address: WebDAVAddress, libraryPath: String?, environment: [String: String]) throws -> String? {
        if let password = environment[passwordVariable], !password.isEmpty { return password }
        guard let libraryPath, let stored = try WebDAVCredentials.load(from: WebDAVCredentials.filePath(forLibrary: libraryPath)),
            stored.address == address.description
        else { return nil }
        return stored.password
    }

    /// For people: never includes credentials.
    public var displayName: String {
        switch self {
        case .folder(let path): "folder \(path)"
        case .webdav(let url, _): "webdav \(url)"
        case .googleDrive(.appData): "google drive (app data folder)"
        case .googleDrive(.folder(let name)): "google drive folder \(name)"
        case .iCloud(let database): database.description
        }
    }
}

extension WordLibrary {
    /// The file beside this library that holds its WebDAV password (mode 0600).
    public var credentialsPath: String { WebDAVCredentials.filePath(forLibrary: path) }

    /// The remote this library syncs with, if any.
    public func remote() throws -> RemoteConfig? {
        guard let stored = try SyncStore(self).remoteLocation() else { return nil }
        switch stored.kind {
        case "folder": return .folder(path: stored.location)
        case "webdav": return .webdav(url: stored.location, user: stored.user)
        case "gdrive" where stored.location == "appdata": return .googleDrive(.appData)
        case "gdrive" where stored.location.hasPrefix("folder:"): return .googleDrive(.folder(String(stored.location.dropFirst(7))))
        case "icloud": return CloudKitDatabase(location: stored.location).map(RemoteConfig.iCloud)
        default: return nil
        }
    }

    /// How long `setRemote` waits for a running sync, in seconds.
    public static let remoteChangeWait: TimeInterval = 30

    /// Sets (or with nil, removes) the remote. Moving to another cloud forgets where
    /// this device had got to in the old one and uploads every word once to the new one.
    ///
    /// A stored WebDAV password that belongs to another address than the new remote's is
    /// removed, so it can never be sent to another server.
    ///
    /// The same folder under another path is the same cloud (`isSameFolder`): the new
    /// path is kept, and so is where this device had got to there. Starting afresh there
    /// found this library's own files under its id, took them for a copy's, and gave the
    /// library a new device id.
    ///
    /// The same folder set again starts over there, as another folder would, unless it
    /// still holds this device's last record: a folder emptied on purpose otherwise
    /// stopped every sync for good ("is the drive or sync folder there?"), and setting it
    /// again did not help (found by the exploratory helper). Any remote removed and set
    /// again starts over there too, unless the cloud still holds the record this device
    /// last wrote (`SyncStore.changeRemote`). Another remote set again (a new password, a
    /// device name) keeps where this device had got to.
    ///
    /// It waits for a sync of this library that is running (up to `remoteChangeWait`
    /// seconds, then `SyncError.busy`): that sync went on with the old remote and then
    /// saved where it had got to there as the new one's (found by the exploratory helper,
    /// round 9: every later sync failed with "has no midiccio-sync.json", or the library
    /// took itself for a copy).
    ///
    /// `signedIn`: the remote comes with a new sign-in (Google Drive, iCloud), perhaps to
    /// another account than before, which the remote's own words cannot tell apart. What
    /// the back end kept of the old account's cloud (Drive's index of its files, iCloud's
    /// change token) is dropped, so the next sync lists the cloud afresh; where this
    /// device has got to stays, and a cloud without this device's record is a new cloud
    /// to it, as any cloud replaced is: one without MiDiccio data (a new, empty account)
    /// is started, where a folder that lost its data stops the sync. A Drive index kept from another account made every
    /// sync fail ("Google Drive answered POST with 404") or find nothing, for good (found
    /// by the exploratory helper, round 11).
    ///
    /// All or nothing: when a sign-in or password file the new remote leaves unused is there
    /// and its folder cannot be written (a read-only folder), nothing is changed. Before,
    /// the remote changed and the command failed as the file could not be removed (found by
    /// the exploratory helper, round 12B).
    ///
    /// With `password` (a WebDAV remote's), the password is stored first (a folder that
    /// cannot take the file changes nothing), and put back as it was should the remote then
    /// not be set. Before, the remote changed first, and a password file that could not be
    /// written left a WebDAV remote without a password while the command said it failed
    /// (found by the exploratory helper, round 12B).
    public func setRemote(_ remote: RemoteConfig?, signedIn: Bool = false, password: WebDAVPassword? = nil) throws {
        guard let password else { return try applyRemote(remote, signedIn: signedIn) }
        let before = try? FileSystem.secretContentsIfPresent(credentialsPath)
        try storeWebDAVPassword(password.password, for: password.address, user: password.user)
        do {
            try applyRemote(remote, signedIn: signedIn)
        } catch {
            if let before = before ?? nil {
                try? FileSystem.writeAtomically(before, to: credentialsPath, ownerOnly: true)
            } else {
                try? FileSystem.removeIfPresent(credentialsPath)
            }
            throw error
        }
    }

    /// `setRemote` once a password given with it is stored.
    private func applyRemote(_ remote: RemoteConfig?, signedIn: Bool) throws {
        let lock = try SyncLock(libraryPath: path, timeout: Self.remoteChangeWait)
        defer { withExtendedLifetime(lock) {} }
        let stale = staleSideFiles(for: remote).filter { FileManager.default.fileExists(atPath: $0) }
        if let first = stale.first {
            let folder = FileSystem.parent(of: first)
            if access(folder, W_OK) != 0 {
                throw FileError(
                    path: first,
                    reason:
                        "cannot be removed: its folder \(folder) cannot be written (\(FileSystem.errorText(errno))); nothing was changed")
            }
        }
        let current = try self.remote()
        var setAgain = false
        if case .folder(let path)? = remote, current == remote { setAgain = try !isSameFolder(path, as: path) }
        if case .folder(let old)? = current, case .folder(let new)? = remote, old != new, try isSameFolder(old, as: new) {
            try SyncStore(self).renameRemoteLocation(to: new, keepingAside: try stateLeftInACopy(old: old, new: new))
        } else if current != remote || setAgain {
            switch remote {
            case .folder(let path): try SyncStore(self).changeRemote(to: ("folder", path, nil))
            case .webdav(let url, let user): try SyncStore(self).changeRemote(to: ("webdav", url, user))
            case .googleDrive(.appData): try SyncStore(self).changeRemote(to: ("gdrive", "appdata", nil))
            case .googleDrive(.folder(let name)): try SyncStore(self).changeRemote(to: ("gdrive", "folder:" + name, nil))
            case .iCloud(let database): try SyncStore(self).changeRemote(to: ("icloud", database.location, nil))
            case nil: try SyncStore(self).changeRemote(to: nil)
            }
        } else if signedIn {
            try SyncStore(self).noteNewSignIn()
        }
        for file in stale { try FileSystem.removeIfPresent(file) }
    }

    /// The sign-in and password files beside this library that `remote` does not use: a
    /// Google Drive sign-in for another remote, an iCloud sign-in that does not cover its
    /// database, a WebDAV password for another URL.
    private func staleSideFiles(for remote: RemoteConfig?) -> [String] {
        var stale: [String] = []
        if case .googleDrive = remote {
        } else {
            stale.append(googleDriveCredentialsPath)
        }
        if case .iCloud(let database) = remote, (try? ICloudCredentials.load(from: iCloudCredentialsPath))??.covers(database) != false {
        } else {
            stale.append(iCloudCredentialsPath)
        }
        let stored = try? WebDAVCredentials.load(from: credentialsPath)
        if case .webdav(let url, _) = remote, stored == nil || stored?.address == url {
        } else {
            stale.append(credentialsPath)
        }
        return stale
    }

    /// True when the folder at `new` is the one this library syncs with at `old`: it holds
    /// the record this device last wrote, at the number it last wrote (another path to the
    /// folder, a symbolic link or `..`, or the folder moved there). Where `old` leads now
    /// says nothing: a link may have been pointed at another folder since (found by the
    /// exploratory helper: a new, empty cloud was taken for the old one, and every sync
    /// failed).
    private func isSameFolder(_ old: String, as new: String) throws -> Bool {
        guard let data = FileManager.default.contents(atPath: new + "/" + CloudLayout.devicePath(deviceID)),
            let record = DeviceRecord.decode(data), let instance = record.instance
        else { return false }
        let state = try SyncState.load(from: SyncStore(self))
        return state.instances.last == instance && record.lastSeq == state.lastSeq
    }

    /// This library's state with the folder at `old`, to keep aside as the state of a cloud
    /// it leaves, when `new` is a copy of that folder rather than the folder itself: `old`
    /// is still there, another folder than `new`, and still holds the record this device
    /// last wrote (`isSameFolder`). A person moving to another sync service copies the
    /// cloud folder and sets each device to the copy in turn; a device left on the old
    /// folder meanwhile edits words there that this library's deletions never reach. The
    /// copy read as the same cloud, so nothing waited for that device, and the Trash's
    /// clean-up purged here a word it had edited there; its marker took the word, live and
    /// edited, once that device moved too (found by the exploratory helper, round 17A G8).
    ///
    /// The Trash's clean-up waits for every device whose record the copy holds (those
    /// heard in the last 180 days) until it writes a newer record here
    /// (`SyncStore.devicesElsewhere`): each device's record there counts as the one read,
    /// as the copy's records tell whether a device has synced here since. Nil when `new`
    /// is the same folder (another path, a link, or the folder moved).
    private func stateLeftInACopy(old: String, new: String) throws -> String? {
        guard let oldFolder = FileSystem.identity(old), let newFolder = FileSystem.identity(new),
            oldFolder != newFolder, try isSameFolder(old, as: old)
        else { return nil }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: new + "/" + CloudLayout.devicesFolder)) ?? []
        let records = names.compactMap(CloudLayout.device(fromRecordName:)).compactMap { device in
            FileManager.default.contents(atPath: new + "/" + CloudLayout.devicePath(device)).flatMap(DeviceRecord.decode)
        }
        return try SyncState.load(from: SyncStore(self)).countingAsRead(records, except: deviceID, now: clock.now().milliseconds)
            .encoded()
    }

    /// Stores the WebDAV password for `address` in this library's credentials file,
    /// readable only by its owner. Replaces any password stored before.
    public func storeWebDAVPassword(_ password: String, for address: WebDAVAddress, user: String?) throws {
        try WebDAVCredentials(address: address.description, user: user, password: password).save(to: credentialsPath)
    }

    /// The file beside this library that holds its Google Drive sign-in (mode 0600).
    public var googleDriveCredentialsPath: String { GoogleDriveCredentials.filePath(forLibrary: path) }

    /// Stores this library's Google Drive sign-in, readable only by its owner, replacing
    /// any stored before.
    public func storeGoogleDriveCredentials(_ credentials: GoogleDriveCredentials) throws {
        try credentials.save(to: googleDriveCredentialsPath)
    }

    /// The file beside this library that holds its iCloud sign-in (mode 0600).
    public var iCloudCredentialsPath: String { ICloudCredentials.filePath(forLibrary: path) }

    /// Stores this library's iCloud sign-in, readable only by its owner, replacing any
    /// stored before.
    public func storeICloudCredentials(_ credentials: ICloudCredentials) throws {
        try credentials.save(to: iCloudCredentialsPath)
    }

    /// True when a password for `address` is stored in the credentials file.
    public func hasStoredWebDAVPassword(for address: String) -> Bool {
        (try? WebDAVCredentials.load(from: credentialsPath))??.address == address
    }
}

/// A WebDAV remote's password as it is set with the remote (`WordLibrary.setRemote`).
public struct WebDAVPassword: Sendable {
    /// The password.
    public var password: String
    /// The address it is for.
    public var address: WebDAVAddress
    /// The user name it goes with.
    public var user: String?

    /// Makes one.
    public init(_ password: String, for address: WebDAVAddress, user: String?) {
        self.password = password
        self.address = address
        self.user = user
    }
}
