import Foundation

/// The conflict copies a sync program set aside beside a library file: when two
/// computers change a file in a synced folder before either has the other's change, the
/// program keeps one as the file and renames the other, and the words written in that
/// one are out of sight. Each program names them its own way, between the file's name
/// and its extension:
/// - Dropbox: `library (Ana's conflicted copy 2026-12-05).sqlite`;
/// - Nextcloud: `library (conflicted copy 2026-12-05 101010).sqlite`;
/// - ownCloud: `library_conflict-20261205-101010.sqlite`;
/// - Syncthing: `library.sync-conflict-20261205-101010-ABCDEFG.sqlite`;
/// - iCloud Drive: `library 2.sqlite`;
/// - Google Drive for desktop: `library (1).sqlite`;
/// - OneDrive: `library-LAPTOP.sqlite`, the computer's name (one capital letter at least,
///   so a `library-old.sqlite` someone kept by hand is not taken for one).
///
/// Only files that begin as an SQLite database does count, so a note or a log whose name
/// happens to fit is left out.
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
            return isCopyName(candidate.dropFirst(stem.count).dropLast(suffix.count))
        }
        .sorted()
        .map { (slash == nil ? "" : folder + "/") + $0 }
        .filter(FileSystem.beginsAsSQLite)
    }

    /// Whether `middle`, what a file's name adds to the library's between name and
    /// extension, is how one of the programs above names a conflict copy.
    static func isCopyName(_ middle: Substring) -> Bool {
        let bytes = Array(middle.utf8)
        let word = Array("conflict".utf8)
        let lowered = bytes.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        if lowered.count >= word.count,
            (0...(lowered.count - word.count)).contains(where: { lowered[$0..<$0 + word.count].elementsEqual(word) })
        {
            return true
        }
        let isDigit = { (byte: UInt8) in byte >= 48 && byte <= 57 }
        // " 2" (iCloud Drive), " (1)" (Google Drive for desktop): a number of one to three digits.
        if bytes.first == 32 {
            var number = bytes.dropFirst()
            if number.first == 40 && number.last == 41 { number = number.dropFirst().dropLast() }
            return (1...3).contains(number.count) && number.allSatisfy(isDigit)
        }
        // "-LAPTOP" (OneDrive): letters, digits and hyphens, one capital letter at least.
        if bytes.first == 45 {
            let name = bytes.dropFirst()
            let isLetter = { (byte: UInt8) in (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) }
            return !name.isEmpty && name.allSatisfy { isLetter($0) || isDigit($0) || $0 == 45 }
                && name.contains { $0 >= 65 && $0 <= 90 }
        }
        return false
    }
}
