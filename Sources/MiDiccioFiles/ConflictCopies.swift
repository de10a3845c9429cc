import Foundation

/// The conflict copies a sync program set aside beside a library file: when two
/// computers change a file in a synced folder before either has the other's change, the
/// program keeps one as the file and renames the other, and the words written in that
/// one are out of sight. Each program names them its own way, all with "conflict" in the
/// name, between the file's name and its extension:
/// - Dropbox: `library (Ana's conflicted copy 2026-12-05).sqlite`;
/// - Nextcloud: `library (conflicted copy 2026-12-05 101010).sqlite`;
/// - ownCloud: `library_conflict-20261205-101010.sqlite`;
/// - Syncthing: `library.sync-conflict-20261205-101010-ABCDEFG.sqlite`.
///
/// Only files that begin as an SQLite database does count, so a note or a log whose name
/// happens to fit is left out. Not found: the copies named without "conflict" (OneDrive's
/// `library-LAPTOP.sqlite`, iCloud Drive's `library 2.sqlite`).
public enum ConflictCopies {
    /// The conflict copies beside the library at `path`, as paths in its folder, sorted.
    /// One listing of the folder, and the first bytes of each file whose name fits.
    public static func of(_ path: String) -> [String] {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
        let stem = dot.map { String(name[..<$0]) } ?? name
        let suffix = dot.map { String(name[$0...]) } ?? ""
        guard !stem.isEmpty, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        return names.filter { candidate in
            guard candidate != name, candidate.hasPrefix(stem), candidate.hasSuffix(suffix),
                candidate.utf8.count > stem.utf8.count + suffix.utf8.count
            else { return false }
            let middle = Array(candidate.dropFirst(stem.count).dropLast(suffix.count).lowercased().utf8)
            let word = Array("conflict".utf8)
            return middle.count >= word.count
                && (0...(middle.count - word.count)).contains { middle[$0..<$0 + word.count].elementsEqual(word) }
        }
        .sorted()
        .map { (slash == nil ? "" : folder + "/") + $0 }
        .filter(FileSystem.beginsAsSQLite)
    }
}
