import MiDiccioModel
import MiDiccioFiles
import Foundation

/// Cloud storage in a local folder that another program syncs (Dropbox, Google Drive
/// for desktop, iCloud Drive, OneDrive, Nextcloud's client, Syncthing) or a shared disk.
///
/// Writes go to a hidden temporary file in the same folder and are renamed into place,
/// so neither a reader nor the sync client ever sees half a file.
public final class FolderStorage: CloudStorage {
    /// The folder that holds the MiDiccio files.
    public let root: String

    /// Uses `root` (created on the first write when missing).
    public init(root: String) {
        self.root = root.hasSuffix("/") && root.count > 1 ? String(root.dropLast()) : root
    }

    public var displayName: String { "folder \(root)" }

    private func full(_ path: String) -> String { path.isEmpty ? root : root + "/" + path }

    private func checkRoot() throws {
        var isDirectory: ObjCBool = false
        let parent = FileSystem.parent(of: root)
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) || FileManager.default.fileExists(atPath: parent) else {
            throw CloudError.unavailable("\(root) does not exist (is the drive or sync folder mounted?)")
        }
    }

    public func list(_ folder: String) throws -> [CloudEntry] {
        try checkRoot()
        let path = full(folder)
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path).compactMap { name in
                let attributes = try? FileManager.default.attributesOfItem(atPath: path + "/" + name)
                guard (attributes?[.type] as? FileAttributeType) != .typeDirectory else { return nil }
                return CloudEntry(name: name, size: (attributes?[.size] as? Int) ?? 0)
            }
        } catch {
            throw CloudError.failed(path: folder, reason: "cannot be listed: \(error.localizedDescription)")
        }
    }

    public func read(_ path: String) throws -> Data? {
        try checkRoot()
        let file = full(path)
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CloudError.failed(path: path, reason: "cannot be read: \(error.localizedDescription)")
        }
    }

    public func write(_ path: String, _ data: Data) throws {
        try checkRoot()
        do {
            try FileSystem.writeAtomically(data, to: full(path))
        } catch {
            throw CloudError.failed(path: path, reason: "\(error)")
        }
    }

    @discardableResult
    public func delete(_ path: String) throws -> Bool {
        let file = full(path)
        guard FileManager.default.fileExists(atPath: file) else { return false }
        do {
            try FileManager.default.removeItem(atPath: file)
            return true
        } catch {
            throw CloudError.failed(path: path, reason: "cannot be removed: \(error.localizedDescription)")
        }
    }
}
