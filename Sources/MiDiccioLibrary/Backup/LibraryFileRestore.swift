import Foundation
import MiDiccioFiles
import MiDiccioModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension WordLibrary {
    /// Whether `path` is restored as a library file
    /// (`restoreLibraryFile(from:replace:dryRun:progress:)`) rather than as a JSON backup:
    /// it begins as an SQLite database does (a conflict copy a sync program set aside, an
    /// older copy of a library from a backup), or it is this library itself, which that
    /// refuses. This library's own header is never read: closing a descriptor of a file
    /// this process has open in SQLite drops SQLite's locks on it (`LibraryFile`).
    public func restoresAsLibraryFile(_ path: String) -> Bool {
        if isThisLibrary(path) { return true }
        return FileSystem.beginsAsSQLite(path)
    }

    /// Whether `path` is this library's file, under any name.
    private func isThisLibrary(_ path: String) -> Bool {
        guard let other = FileSystem.identity(path), let mine = FileSystem.identity(self.path) else { return false }
        return other == mine
    }

    /// Restores the words of another library file into this one, as a backup of it would
    /// be restored (`restoreBackup(from:replace:dryRun:expectingSwept:source:progress:)`:
    /// merged field by field by their times, or with `replace` made equal to it), study
    /// answers included. The file is never opened where it is: it is copied (with its
    /// log, when one is beside it) into the temporary folder, opened there (checked as any
    /// library from elsewhere is, and brought up to this schema), and written out as a
    /// backup, which is then restored. So a library of an older MiDiccio, or one in use by
    /// another program, is left exactly as it was, and a damaged one changes nothing.
    /// The undo names the library file.
    public func restoreLibraryFile(
        from path: String, replace: Bool = false, dryRun: Bool = false,
        progress: ((_ done: Int, _ total: Int) -> Void)? = nil
    ) throws -> RestoreReport {
        if isThisLibrary(path) {
            throw LibraryError.invalidBackup(file: path, location: nil, message: "that is this library itself")
        }
        // Named with this process's id: the copies of a restore that was killed are
        // removed by the next one (round 14C).
        FileSystem.removeLeftoversOfEndedProcesses(in: FileSystem.temporaryFolder, prefix: ".midiccio-library-")
        let (descriptor, base) = try FileSystem.temporaryFile(in: FileSystem.temporaryFolder, prefix: ".midiccio-library-\(getpid())-")
        close(descriptor)
        let copy = base + ".sqlite", backup = base + ".json"
        defer {
            for leftover in [base, copy, copy + "-wal", copy + "-shm", copy + "-journal", backup] {
                try? FileSystem.removeIfPresent(leftover)
            }
        }
        // A library another program is writing (a `serve`) can move its log into the file
        // between the copy of the one and of the other: the two copies then do not fit, and
        // the restore was refused, 7 times in 40, advising to move a live log away (found by
        // the exploratory helper, round 16C). Copied again, a few times, they do.
        var attempt = 0
        while true {
            attempt += 1
            for leftover in [copy, copy + "-wal", copy + "-shm", copy + "-journal", backup] { try? FileSystem.removeIfPresent(leftover) }
            do {
                try FileManager.default.copyItem(atPath: path, toPath: copy)
                if FileSystem.status(path + "-wal") != nil {
                    try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
                }
                // The copies are this process's own: a library file kept read-only (0444) gave
                // its copy that mode, and an older one could not be brought up to this schema in
                // it ("attempt to write a readonly database", round 15A).
                for file in [copy, copy + "-wal"] where FileSystem.status(file) != nil { _ = chmod(file, 0o600) }
            } catch {
                // Named: the copy goes to the temporary folder, not beside the file or the library.
                throw LibraryError.invalidBackup(
                    file: path, location: nil,
                    message: "it could not be copied into the temporary folder \(FileSystem.temporaryFolder) to read it "
                        + "(\(FileSystem.describe(error))); free some space there, or set TMPDIR to a folder with room")
            }
            do {
                let other = try WordLibrary(path: copy, create: false, clock: clock)
                _ = try other.exportBackup(to: backup)
                break
            } catch let error as LibraryError {
                let torn: Bool
                switch error {
                case .logDoesNotFit, .damaged: torn = FileSystem.status(path + "-wal") != nil
                default: torn = false
                }
                if torn && attempt < Self.copyAttempts {
                    usleep(200_000)
                    continue
                }
                throw LibraryError.invalidBackup(file: path, location: nil, message: Self.unreadableLibrary(error))
            }
        }
        let report: RestoreReport
        do {
            report = try restoreBackup(from: backup, replace: replace, dryRun: dryRun, source: path, progress: progress)
        } catch LibraryError.invalidBackup(_, let location, let message) {
            // Named as the library file it came from: the temporary backup made of it, gone
            // by now, was named (found by the exploratory helper, round 25B #7).
            throw LibraryError.invalidBackup(file: path, location: location, message: message)
        }
        if !dryRun { noteTakenIn(path) }
        return report
    }

    /// The conflict copies beside this library (`ConflictCopies.of`) whose words are not in
    /// it yet: a copy restored into it (`restoreLibraryFile`) is left out for as long as it
    /// stays as it was then (its size and time), so the warning ends once its words are
    /// in, and comes back if a sync program writes the copy again.
    /// Paths in the library's folder, sorted.
    public func conflictCopiesNotTakenIn() -> [String] {
        ConflictCopies.of(path).filter { copy in
            guard let stamp = Self.takenInStamp(copy) else { return false }
            return (try? guarded { try info(Self.takenInKey(copy)) }) != stamp
        }
    }

    /// The path of the conflict copy beside this library whose file name is `name`, or nil
    /// when there is none such (moved away, renamed, or not a conflict copy): a name a
    /// page sends is looked up among the copies, never taken as a path.
    public func conflictCopy(named name: String) -> String? {
        ConflictCopies.of(path).first { Self.fileName($0) == name }
    }

    /// Notes, when `path` is one of the conflict copies beside this library, that its words
    /// were taken in as it is now. A note that cannot be written only leaves the warning.
    private func noteTakenIn(_ path: String) {
        guard let restored = FileSystem.identity(path) else { return }
        for copy in ConflictCopies.of(self.path) {
            guard let identity = FileSystem.identity(copy), identity == restored, let stamp = Self.takenInStamp(copy) else {
                continue
            }
            try? guarded { try writing { try setInfo(Self.takenInKey(copy), stamp) } }
        }
    }

    /// Forgets, inside an undo's transaction, that the conflict copy named `file` was taken
    /// in: the warning names it again.
    func forgetTakenIn(_ file: String) throws {
        try database.run("DELETE FROM library_info WHERE key = ?", [.text(Self.takenInKey(file))])
    }

    /// The `library_info` key of a conflict copy taken in: its file name.
    private static func takenInKey(_ copy: String) -> String {
        "conflictCopy.takenIn:" + fileName(copy)
    }

    /// The last part of `path`: its file's name.
    public static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// A conflict copy's size and modification time, as its note of being taken in keeps them.
    private static func takenInStamp(_ copy: String) -> String? {
        FileSystem.stamp(copy).map { "\($0.size):\($0.modifiedSeconds).\($0.modifiedNanoseconds)" }
    }

    /// How many times a restore copies a library file whose copies do not fit (another
    /// program writing it meanwhile) before it gives up.
    static let copyAttempts = 5

    /// Why another library file could not be read, in words about that file (the
    /// error's own words name the temporary copy, and advise on this library).
    private static func unreadableLibrary(_ error: LibraryError) -> String {
        switch error {
        case .notALibrary(_, let reason):
            "not a MiDiccio library (\(reason)); Kindle's and KOReader's word lists are taken in with 'midiccio import'"
        case .newerSchema(_, let version):
            "a library of a newer MiDiccio (schema \(version)); update MiDiccio to take its words in"
        case .damaged(let what):
            "a damaged library (\(what))"
        case .logDoesNotFit(_, let problem):
            "a library whose log beside it (-wal) does not fit it (\(problem)). If a MiDiccio has that library open, close it "
                + "and try again: the log holds its newest words. Otherwise, move the log away to read the file alone"
        default:
            "the library could not be read: \(error)"
        }
    }
}
