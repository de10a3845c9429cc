import Foundation

/// Where a library syncs to.
public enum RemoteConfig: Hashable, Sendable {
    /// A folder on this computer (synced by Dropbox, iCloud Drive, Syncthing ...).
    case folder(path: String)

    /// The storage this remote names.
    public func makeStorage() -> any CloudStorage {
        switch self {
        case .folder(let path): FolderStorage(root: path)
        }
    }

    /// For people: never includes credentials.
    public var displayName: String {
        switch self {
        case .folder(let path): "folder \(path)"
        }
    }
}

extension WordLibrary {
    /// The remote this library syncs with, if any.
    public func remote() throws -> RemoteConfig? {
        try guarded {
            guard let kind = try info("remote.kind"), let location = try info("remote.location") else { return nil }
            switch kind {
            case "folder": return .folder(path: location)
            default: return nil
            }
        }
    }

    /// Sets (or with nil, removes) the remote. Moving to another cloud forgets where
    /// this device had got to in the old one and uploads every word once to the new one.
    public func setRemote(_ remote: RemoteConfig?) throws {
        try writing {
            let old = try self.remote()
            guard old != remote else { return }
            try database.run("DELETE FROM library_info WHERE key LIKE 'sync.%' AND key <> 'sync.digest'")
            try database.run("DELETE FROM sync_cursors")
            switch remote {
            case .folder(let path):
                try setInfo("remote.kind", "folder")
                try setInfo("remote.location", path)
                if try (database.integer("SELECT count(*) FROM words") ?? 0) > 0 { try setInfo("sync.fullUpload", "1") }
            case nil:
                try database.run("DELETE FROM library_info WHERE key IN ('remote.kind', 'remote.location')")
            }
        }
    }

    /// This device's name as other devices see it (default: the host name).
    public func deviceName() throws -> String {
        try guarded { try info("device.name") ?? ProcessInfo.processInfo.hostName }
    }

    /// Renames this device.
    public func setDeviceName(_ name: String) throws {
        let trimmed = name.trimmed
        guard !trimmed.isEmpty, trimmed.count <= 100 else {
            throw LibraryError.invalidWord(WordValidationError(field: "device name", message: "must be 1 to 100 characters"))
        }
        try writing { try setInfo("device.name", trimmed) }
    }
}
