import Foundation
import MiDiccioFiles

/// What an export writes: a backup, or a CSV / TSV sheet. An export replaces a file of its
/// own kind (last night's backup, an earlier export of the sheet) and no other.
enum ExportKind: Sendable {
    /// A JSON backup (`exportBackup`).
    case backup
    /// A MiDiccio CSV or TSV export (`exportSheet`).
    case sheet

    /// How a message names a file of this kind.
    var name: String {
        switch self {
        case .backup: "MiDiccio backup"
        case .sheet: "MiDiccio CSV or TSV export"
        }
    }
}

extension WordLibrary {
    /// Where an export to `target` writes, or why it must not: the file a symbolic link
    /// leads to (the link stays a link, into a synced folder say); never the library, a
    /// folder, a device or a pipe; a folder that exists (a mistyped one is not made); and
    /// an existing file only when it is of the export's own kind, or when `overwrite`.
    ///
    /// An export replaced whatever file was at its path without a word: another library,
    /// a backup written over by a CSV, and a symbolic link replaced by a file while the
    /// file it led to kept the old export (found by the exploratory helpers, round 11).
    func exportDestination(_ target: String, kind: ExportKind, overwrite: Bool) throws -> String {
        try checkNotLibrary(target)
        var destination = target
        if let status = FileSystem.status(target) {
            guard status.st_mode & S_IFMT == S_IFREG else {
                let what = status.st_mode & S_IFMT == S_IFDIR ? "a folder" : "not a regular file (a device, a pipe or a socket)"
                throw LibraryError.fileError(path: target, reason: "is \(what); give the name of a file to write; nothing was written")
            }
            destination = FileSystem.realPath(target) ?? target
            if !overwrite, status.st_size > 0, let found = try Self.foreignFile(destination, kind: kind) {
                throw LibraryError.fileError(
                    path: target,
                    reason: "already exists and is \(found), not a \(kind.name); nothing was written. "
                        + "Give another file name, or add --overwrite to replace it")
            }
        } else {
            // A link that leads nowhere yet: the file it names is made.
            destination =
                FileSystem.linkTarget(target).map { link in
                    link.hasPrefix("/") ? link : FileSystem.parent(of: target) + "/" + link
                } ?? target
            let folder = FileSystem.parent(of: destination)
            guard FileSystem.status(folder).map({ $0.st_mode & S_IFMT == S_IFDIR }) == true else {
                throw LibraryError.fileError(path: target, reason: "cannot be written: the folder \(folder) does not exist")
            }
        }
        try checkNotLibrary(destination)
        FileSystem.removeLeftoverTemporaries(of: destination)
        return destination
    }

    /// What the file at `path` is when it is not of `kind`, or nil when it is: read from
    /// its first bytes.
    private static func foreignFile(_ path: String, kind: ExportKind) throws -> String? {
        let head = [UInt8](try files { try FileSystem.readPrefix(path, count: 4096) })
        let text = String(decoding: head.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(head.dropFirst(3)) : head, as: UTF8.self)
        let isBackup = text.hasPrefix("{") && text.firstRange(of: "\"\(BackupFile.formatName)\"") != nil
        let firstLine = String(text.prefix { $0 != "\n" && $0 != "\r\n" && $0 != "\r" })
        let isSheet = WordSheet.isExportHeader(firstLine)
        switch kind {
        case .backup where isBackup, .sheet where isSheet: return nil
        default: break
        }
        if head.starts(with: FileSystem.sqliteSignature) { return "an SQLite database (a library, or another program's)" }
        if isBackup { return "a MiDiccio backup" }
        if isSheet { return "a MiDiccio CSV or TSV export" }
        if head.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return "a zip archive" }
        return "another file"
    }
}
