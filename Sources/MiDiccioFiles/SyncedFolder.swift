import CFileSystem
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder that a sync program (Syncthing, Dropbox, Nextcloud, iCloud Drive, …) keeps
/// in step with other computers, found by what the program leaves in it, by the folders
/// its settings list, by the type of the drive it mounts, or by where the system keeps it.
///
/// A library file in such a folder is copied by that program while MiDiccio writes it:
/// the copy can be torn (a damaged library on the other computer), and two computers
/// writing their own copies end with one of them set aside as a conflict, its words out
/// of sight. MiDiccio syncs through such a folder with its own files instead
/// (`midiccio remote set folder`).
public struct SyncedFolder: Sendable, Equatable {
    /// The program, for people ("Syncthing").
    public var program: String
    /// The synced folder's own path (the folder holding the program's marker).
    public var root: String

    /// Makes a description of a synced folder.
    public init(program: String, root: String) {
        self.program = program
        self.root = root
    }

    /// What each program leaves in the top of a folder it syncs, by name.
    private static let markers: [(name: String, program: String)] = [
        (".stfolder", "Syncthing"),
        (".dropbox", "Dropbox"),
        (".dropbox.cache", "Dropbox"),
        (".sync/ID", "Resilio Sync"),
        (".debris", "MEGA"),
    ]

    /// The synced folder holding the file at `path` (which need not exist yet), or nil.
    /// `environment` gives HOME and XDG_CONFIG_HOME, where desktop clients keep settings.
    public static func holding(_ path: String, environment: [String: String]) -> SyncedFolder? {
        let absolute = resolved(path)
        // Nextcloud's and ownCloud's desktop clients list their folders in their settings
        // (their marker in the folder, a journal named after a hash, would need a listing
        // of every folder above the library: a third of a millisecond on each command).
        for (settings, program) in clientSettings(environment) {
            for root in localPaths(inSettings: settings) where absolute.hasPrefix(root + "/") {
                return SyncedFolder(program: program, root: root)
            }
        }
        if let root = oneDriveFolder(environment), absolute.hasPrefix(root + "/") {
            return SyncedFolder(program: "OneDrive", root: root)
        }
        // macOS: iCloud Drive, and the clouds of File Provider (Dropbox, OneDrive, Google
        // Drive and others, each in a folder named after it).
        let components = absolute.utf8.split(separator: UInt8(ascii: "/")).map { String(decoding: $0, as: UTF8.self) }
        for (place, name) in [("Mobile Documents", "iCloud Drive"), ("CloudStorage", "")] {
            // …/Library/<place>/<provider>/…/library.sqlite
            guard let at = components.indices.first(where: { components[$0] == place && $0 > 0 && components[$0 - 1] == "Library" }),
                components.count - at >= 3
            else { continue }
            let provider = components[at + 1]
            return SyncedFolder(
                program: name.isEmpty ? provider : name, root: "/" + components[...(at + 1)].joined(separator: "/"))
        }
        if let folder = windowsCloudFolder(components) { return folder }
        // Insync (Google Drive, OneDrive and Dropbox on Linux) keeps each account's folder
        // in ~/Insync by default.
        if let (home, _) = homeAndConfig(environment), absolute.hasPrefix(home + "/Insync/") {
            let below = absolute.dropFirst(home.count + "/Insync/".count)
            if let slash = below.firstIndex(of: "/"), slash != below.startIndex {
                return SyncedFolder(program: "Insync", root: home + "/Insync/" + below[..<slash])
            }
        }
        if let drive = mountedCloudDrive(holding: absolute) { return drive }
        var folder = parent(absolute)
        while !folder.isEmpty {
            let prefix = folder == "/" ? "" : folder
            // access(2) rather than FileManager, whose first use costs a command's start.
            for marker in markers where access(prefix + "/" + marker.name, F_OK) == 0 {
                return SyncedFolder(program: marker.program, root: folder)
            }
            if folder == "/" { break }
            folder = parent(folder)
        }
        return nil
    }

    /// Windows' drives seen from Linux under WSL (`/mnt/c/Users/ana/OneDrive/…`): the folders
    /// OneDrive, iCloud for Windows and Google's older Backup and Sync keep in a user's own
    /// folder. `components` are the path's names, from the top.
    private static func windowsCloudFolder(_ components: [String]) -> SyncedFolder? {
        // mnt, the drive's letter, Users, the user, the cloud's folder, then at least the file.
        guard components.count >= 6, components[0] == "mnt", components[1].utf8.count == 1, components[2] == "Users" else {
            return nil
        }
        let folder = components[4]
        let program: String
        if folder == "OneDrive" || folder.hasPrefix("OneDrive - ") {
            program = "OneDrive"
        } else if folder == "iCloudDrive" {
            program = "iCloud Drive"
        } else if folder == "Google Drive" {
            program = "Google Drive"
        } else {
            return nil
        }
        return SyncedFolder(program: program, root: "/" + components[...4].joined(separator: "/"))
    }

    /// Linux: the cloud drive mounted through FUSE (rclone, google-drive-ocamlfuse, …)
    /// that holds `absolute`, from the system's list of mounts, which is read only when the
    /// library's folder is on a FUSE file system at all (one `statfs`).
    private static func mountedCloudDrive(holding absolute: String) -> SyncedFolder? {
        #if canImport(Glibc)
        guard midiccio_file_system_type(parent(absolute)) == fuseMagic,
            let mounts = try? FileSystem.readUTF8Text("/proc/self/mountinfo")
        else { return nil }
        return cloudMount(holding: absolute, mountInfo: mounts)
        #else
        return nil
        #endif
    }

    /// `f_type` of every FUSE file system (linux/magic.h, FUSE_SUPER_MAGIC).
    private static let fuseMagic = 0x6573_5546

    /// The programs that mount a cloud drive through FUSE, by the file system type they
    /// give their mounts (`fuse.rclone`, without `fuse.`).
    private static let cloudFileSystems: [String: String] = [
        "rclone": "rclone", "google-drive-ocamlfuse": "google-drive-ocamlfuse", "onedriver": "onedriver",
        "gvfsd-fuse": "GNOME's online accounts (gvfs)", "s3fs": "s3fs", "gcsfuse": "gcsfuse", "davfs": "davfs2",
        "pCloud.fs": "pCloud Drive",
    ]

    /// The cloud drive holding `absolute` among the mounts `mountInfo` lists (the text of
    /// Linux's `/proc/self/mountinfo`): the mount deepest above the path, when a program of
    /// `cloudFileSystems` made it; nil otherwise.
    package static func cloudMount(holding absolute: String, mountInfo: String) -> SyncedFolder? {
        var deepest: (point: String, type: String)?
        for line in mountInfo.split(whereSeparator: \.isNewline) {
            // "36 35 98:0 /root /mount/point options [optional fields] - type source options"
            let fields = line.split(separator: " ")
            // The separator comes after the six fixed fields (a mount point may itself be "-").
            guard fields.count > 7, let dash = fields[6...].firstIndex(of: "-"), dash + 1 < fields.count else { continue }
            let point = unescapedMountPoint(fields[4])
            let holds = point == "/" || absolute == point || absolute.hasPrefix(point + "/")
            guard holds, point.utf8.count >= (deepest?.point.utf8.count ?? 0) else { continue }
            deepest = (point, String(fields[dash + 1]))
        }
        guard let deepest else { return nil }
        let type = deepest.type.hasPrefix("fuse.") ? String(deepest.type.dropFirst(5)) : deepest.type
        return cloudFileSystems[type].map { SyncedFolder(program: $0, root: deepest.point) }
    }

    /// A mount point as mountinfo writes it, its space, tab, line feed and backslash
    /// written as octal escapes (`\040`), made a path again.
    private static func unescapedMountPoint(_ field: Substring) -> String {
        // Through the bytes: StringProtocol's contains(_:) is the older Foundation's, which
        // the everyday binary leaves out.
        guard field.utf8.contains(UInt8(ascii: "\\")) else { return String(field) }
        var bytes: [UInt8] = []
        let utf8 = Array(field.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "\\"), index + 3 < utf8.count,
                let code = UInt8(String(decoding: utf8[(index + 1)...(index + 3)], as: UTF8.self), radix: 8)
            {
                bytes.append(code)
                index += 4
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The settings files of the desktop clients that list their folders there.
    private static func clientSettings(_ environment: [String: String]) -> [(path: String, program: String)] {
        guard let (home, config) = homeAndConfig(environment) else { return [] }
        return [
            (config + "/Nextcloud/nextcloud.cfg", "Nextcloud"), (config + "/ownCloud/owncloud.cfg", "ownCloud"),
            (home + "/Library/Preferences/Nextcloud/nextcloud.cfg", "Nextcloud"),
            (home + "/Library/Preferences/ownCloud/owncloud.cfg", "ownCloud"),
        ]
    }

    /// The folder the OneDrive client for Linux (`onedrive`) syncs, once it has signed in
    /// (its database or its token is in its settings folder): `sync_dir` of its settings,
    /// else `~/OneDrive`; nil when the client is not set up.
    private static func oneDriveFolder(_ environment: [String: String]) -> String? {
        guard let (home, config) = homeAndConfig(environment) else { return nil }
        let folder = config + "/onedrive"
        guard access(folder + "/items.sqlite3", F_OK) == 0 || access(folder + "/refresh_token", F_OK) == 0 else { return nil }
        var syncDir = "~/OneDrive"
        let settings = (try? FileSystem.readUTF8Text(folder + "/config")) ?? ""
        // sync_dir = "~/OneDrive" (a line starting with # is a default left as a comment)
        for line in settings.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: "=", maxSplits: 1).map(trimmed)
            guard parts.count == 2, parts[0] == "sync_dir" else { continue }
            let value = parts[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { syncDir = String(value.dropFirst().dropLast()) }
        }
        if syncDir == "~" || syncDir.hasPrefix("~/") { syncDir = home + syncDir.dropFirst() }
        return syncDir.hasPrefix("/") ? withoutLastSlashes(syncDir) : nil
    }

    /// The home folder and the settings folder (XDG_CONFIG_HOME, else ~/.config), or nil
    /// without a home.
    private static func homeAndConfig(_ environment: [String: String]) -> (home: String, config: String)? {
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return (home, environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config")
    }

    /// `path` without the slashes at its end ("/" stays).
    private static func withoutLastSlashes(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// `text` without the spaces and tabs at its ends.
    private static func trimmed(_ text: Substring) -> Substring {
        let start = text.firstIndex { $0 != " " && $0 != "\t" } ?? text.endIndex
        let end = text.lastIndex { $0 != " " && $0 != "\t" }.map(text.index(after:)) ?? start
        return text[start..<max(start, end)]
    }

    /// The folders a client's settings file lists (`0\Folders\1\localPath=/home/ana/Nextcloud/`),
    /// without their last slash; none when the file is not there.
    private static func localPaths(inSettings path: String) -> [String] {
        guard access(path, R_OK) == 0, let text = try? FileSystem.readUTF8Text(path) else { return [] }
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            guard let equals = line.firstIndex(of: "="), line[..<equals].hasSuffix("localPath") else { return nil }
            let value = String(line[line.index(after: equals)...])
            return value.hasPrefix("/") ? withoutLastSlashes(value) : nil
        }
    }

    /// The folder holding `path` ("/" for a name at the top).
    private static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// `path` made absolute, its folder's links followed (C's realpath) when the folder
    /// exists; the file itself need not.
    private static func resolved(_ path: String) -> String {
        var absolute = path
        if !path.hasPrefix("/"), let here = getcwd(nil, 0) {
            absolute = String(cString: here) + "/" + path
            free(here)
        }
        let name = absolute[absolute.index(after: absolute.lastIndex(of: "/")!)...]
        guard let real = FileSystem.realPath(parent(absolute)) else { return absolute }
        return (real == "/" ? "" : real) + "/" + name
    }
}
