import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A folder that a sync program (Syncthing, Dropbox, Nextcloud, iCloud Drive, …) keeps
/// in step with other computers, found by what the program leaves in it, by the folders
/// its settings list, or by where the system keeps it.
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

    /// The settings files of the desktop clients that list their folders there.
    private static func clientSettings(_ environment: [String: String]) -> [(path: String, program: String)] {
        guard let home = environment["HOME"], !home.isEmpty else { return [] }
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        return [
            (config + "/Nextcloud/nextcloud.cfg", "Nextcloud"), (config + "/ownCloud/owncloud.cfg", "ownCloud"),
            (home + "/Library/Preferences/Nextcloud/nextcloud.cfg", "Nextcloud"),
            (home + "/Library/Preferences/ownCloud/owncloud.cfg", "ownCloud"),
        ]
    }

    /// The folders a client's settings file lists (`0\Folders\1\localPath=/home/ana/Nextcloud/`),
    /// without their last slash; none when the file is not there.
    private static func localPaths(inSettings path: String) -> [String] {
        guard access(path, R_OK) == 0, let text = try? FileSystem.readUTF8Text(path) else { return [] }
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            guard let equals = line.firstIndex(of: "="), line[..<equals].hasSuffix("localPath") else { return nil }
            var value = String(line[line.index(after: equals)...])
            while value.count > 1 && value.hasSuffix("/") { value.removeLast() }
            return value.hasPrefix("/") ? value : nil
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
