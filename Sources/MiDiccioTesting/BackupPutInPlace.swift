import Foundation
import MiDiccioStore

/// How a person puts a backup in the library's place while a program has it open.
package enum BackupPutInPlace: String, CaseIterable, CustomStringConvertible, Sendable {
    /// `cp backup.sqlite library.sqlite`: the same file, rewritten.
    case copiedOver = "copied over the library file"
    /// A file manager, or `mv`: another file under the same name.
    case movedIn = "moved into the library's place"

    /// How a test names it.
    package var description: String { rawValue }

    /// Puts the file at `backup` at `library` this way; the backup stays where it was.
    package func put(_ backup: String, at library: String) throws {
        switch self {
        case .copiedOver:
            let bytes = try Data(contentsOf: URL(fileURLWithPath: backup))
            guard let file = FileHandle(forWritingAtPath: library) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: library])
            }
            try file.truncate(atOffset: 0)
            try file.write(contentsOf: bytes)
            try file.close()
        case .movedIn:
            let moving = library + ".moving"
            try FileManager.default.copyItem(atPath: backup, toPath: moving)
            guard rename(moving, library) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: library]) }
        }
    }
}

/// The terms of the library file at `path`, read as the file is, without any log beside it
/// (SQLite's `immutable`): what a file moved away from the library's path holds.
package func termsOfLibraryFileAlone(_ path: String) throws -> [String] {
    let alone = try Database(path: path, create: false, fileAlone: true)
    return try alone.prepare("SELECT term FROM words ORDER BY term").rows { $0.text(0) }
}
