import Foundation
import MiDiccioFiles
import MiDiccioModel
import MiDiccioStore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens library files: refuses files that are not MiDiccio libraries or that a newer
/// MiDiccio wrote, before changing a single byte, then applies pending migrations.
///
/// The library file is never opened by anything but SQLite once it exists. A `close()`
/// of any descriptor of the file drops every POSIX lock this process holds on it, the
/// locks of other connections included ("How To Corrupt An SQLite Database File", 2.2),
/// and the web app, sync on open and the command line keep several connections in one
/// process. So the header is checked by SQLite itself, and existence with `stat`.
enum LibraryFile {
    /// The SQLite `application_id` of every MiDiccio library ("MiDc").
    static let applicationID: Int32 = 0x4D69_4463
    /// How long a connection waits for another's write lock before it gives up
    /// (SQLite's busy timeout).
    static let busyTimeoutSeconds = 10

    /// Serialises the one moment a descriptor of a library file is opened outside
    /// SQLite: creating a new file owner-only. Every open passes through it, so no
    /// connection of this process can take a lock on the file before that descriptor
    /// is closed again.
    private static let creation = Mutex(())

    /// Opens the library at `path`, creating it (and its folder) when missing and `create`
    /// is true; without `create`, a missing file is `libraryGone`. `upgradeTick` is called
    /// now and then while a library made by an earlier MiDiccio is brought up to date.
    ///
    /// `upgradedFrom` is the schema an earlier MiDiccio left the file at, when this open
    /// brought it up to date; nil otherwise.
    ///
    /// A file moved into the path while a program still has the file that was there open
    /// shares that program's log and its index with it (SQLite finds both by the path): the
    /// open waits, up to the busy timeout, for the program to let go of it
    /// (`checkSharedLog`), then gives up with `replacedFileStillOpen`.
    static func open(
        path: String, create: Bool, upgradeTick: (() -> Void)? = nil
    ) throws -> (Database, isNew: Bool, upgradedFrom: Int?) {
        let deadline = ContinuousClock.now + .seconds(busyTimeoutSeconds)
        while true {
            do {
                return try openOnce(path: path, create: create, upgradeTick: upgradeTick)
            } catch is LogOfAnotherFileInUse {
                guard ContinuousClock.now < deadline else { throw LibraryError.replacedFileStillOpen(path: path) }
                usleep(50_000)
            }
        }
    }

    /// The log and its index beside the path are in use for another file than the one now
    /// there (`checkSharedLog`): the connection was made to leave them as they are.
    private struct LogOfAnotherFileInUse: Error {}

    /// One try of `open`.
    private static func openOnce(
        path: String, create: Bool, upgradeTick: (() -> Void)?
    ) throws -> (Database, isNew: Bool, upgradedFrom: Int?) {
        let existing = try inspect(path: path)
        if !existing && !create {
            throw LibraryError.libraryGone(path: path)
        }
        if !existing { try files { try FileSystem.createDirectory(FileSystem.parent(of: path)) } }
        try creation.withLock { _ in
            // A person's word list is theirs alone: create the file owner-only before
            // SQLite opens it (SQLite gives its -wal and -shm files the same mode).
            if !existing { try files { try FileSystem.createOwnerOnlyFile(path) } }
        }
        var emptyLog = false
        if existing {
            emptyLog = try checkArrivedFile(path)
            FileSystem.matchSideFileModes(of: path)
        }
        let database: Database
        do {
            database = try Database(path: path, create: true)
        } catch let error as SQLiteError {
            throw error.isCorrupt ? LibraryError.from(error) : LibraryError.cannotOpen(path: path, reason: error.message)
        }
        // True once the file is known to need bringing up to date.
        var updating = false
        // The schema it was at then.
        var before: Int?
        do {
            try database.defineSchemaGuard(newest: Migrations.all.count)
            try SearchText.define(on: database)
            try database.execute("PRAGMA busy_timeout = \(busyTimeoutSeconds * 1000)")
            // A library this MiDiccio set up needs only a look, under no write lock: a
            // command that only reads never waits behind another process's long write.
            let current = try existing && checkingHeader(path) { try database.read { try isCurrent(database) } }
            updating = existing && !current
            // That first read applied a log left by a process that stopped without
            // closing the file, if there was one: before anything is written, the two
            // must still fit together.
            if existing && database.rebuiltFromLeftoverLog() {
                try checkLeftoverLog(database, path: path)
            } else if existing {
                try checkSharedLog(database, path: path)
                if emptyLog { try checkCopiedBesideEmptyLog(database, path: path) }
            }
            if !current { try setUp(database, path: path) }
            try configure(database)
            if !current {
                let tick = existing ? upgradeTick : nil
                if updating { before = Int(try database.integer("PRAGMA user_version") ?? 0) }
                try Migrator.migrate(database, Migrations.all, now: { SystemClock().now().milliseconds }, tick: tick)
            }
        } catch let error as SQLiteError {
            // Migrations commit one by one: one that failed after others committed left the
            // file where older builds no longer open it.
            if let before, !error.isCorrupt, let reached = try? database.integer("PRAGMA user_version").map(Int.init), reached > before {
                throw LibraryError.upgradeUnfinished(from: before, reached: reached, cause: "\(error)")
            }
            if error.isCorrupt {
                // A log left by a killed process and put beside another file can mix
                // with it past reading its schema: the same refusal, the log kept.
                if existing && database.rebuiltFromLeftoverLog() {
                    database.leaveLogOnClose()
                    throw LibraryError.logDoesNotFit(path: path, problem: "SQLite's check finds " + quoted([error.message]))
                }
                // The file alone reads well: what did not is the log and index another
                // program keeps for the file that was there before (`checkSharedLog`).
                if existing, let alone = try? Database(path: path, create: false, fileAlone: true), (try? isCurrent(alone)) == true {
                    database.leaveLogOnClose()
                    throw LogOfAnotherFileInUse()
                }
                throw LibraryError.from(error)
            }
            // A full disk fails the opening with "disk I/O error" (SQLite cannot make the
            // WAL's index), which sounds like damage (found by the exploratory helper).
            let full = database.systemErrno == ENOSPC || error.code & 0xFF == 13  // SQLITE_FULL
            let disk = LibraryError.fullDisk("the disk it is on")
            if full { throw LibraryError.cannotOpen(path: path, reason: "\(disk.full); \(disk.room) and try again") }
            // A read-only file of an older MiDiccio needs its update written first; SQLite's
            // words said neither why nor the way out (round 15A).
            if error.isReadOnly {
                throw LibraryError.cannotOpen(
                    path: path,
                    reason: "its file, its folder or its disk is read-only, and opening it needs to write"
                        + (updating ? " (it was made by an earlier MiDiccio and is brought up to date first)" : "")
                        + "; nothing was changed. Make it writable, or take its words into another library with: midiccio backup restore "
                        + FileSystem.shellQuoted(path) + " (which reads a copy of it) (\(error.message))")
            }
            throw LibraryError.cannotOpen(path: path, reason: error.message)
        }
        noteIdentity(database, path: path)
        let reached = before == nil ? nil : try? database.integer("PRAGMA user_version").map(Int.init)
        return (database, !existing, before.flatMap { from in (reached ?? 0) > from ? from : nil })
    }

    /// The `library_info` key holding the file a library was last opened as (its device and
    /// inode) and a count that every write transaction moves on, so that every log holds the
    /// row: `dev:inode/count`.
    static let identityKey = "file.identity"

    /// The device and inode of the file at `path`.
    private static func identity(_ path: String) -> String? {
        FileSystem.identity(path).map { "\($0.device):\($0.inode)" }
    }

    /// What the library notes of the file it was last opened as (`dev:inode/count`, nil when
    /// not noted, as in a library an earlier MiDiccio wrote last), read with the log.
    private static func notedValue(_ database: Database) -> String? {
        try? database.read { try database.text("SELECT value FROM library_info WHERE key = ?", [.text(identityKey)]) }
    }

    /// The file a noted value (`dev:inode/count`) names and its count of writes.
    private static func writeCount(_ value: String) -> (name: Substring, count: Int64)? {
        let parts = value.split(separator: "/")
        guard parts.count == 2, let count = Int64(parts[1]) else { return nil }
        return (parts[0], count)
    }

    /// The file `database` was last opened as, as noted in it (nil: not noted).
    private static func notedIdentity(_ database: Database) -> String? {
        notedValue(database)?.split(separator: "/").first.map(String.init)
    }

    /// Notes which file this library is now when that changed (a new file, or one moved or
    /// copied here), moved into the file at once, and guards the connection against another
    /// file moved into its place (`FileGuard`). A file this process may not write keeps
    /// what it had.
    private static func noteIdentity(_ database: Database, path: String) {
        guard let now = identity(path) else { return }
        if notedIdentity(database) != now {
            try? database.write {
                try database.run(
                    "INSERT INTO library_info (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [.text(identityKey), .text(now + "/0")])
            }
            _ = try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")
        }
        FileGuard(path: path, ownNames: [now, notedIdentity(database)].compactMap { $0 }).install(on: database)
    }

    /// Keeps a connection's writes to the file it opened. SQLite finds a file's log and its
    /// index by the path, so a file moved into the path while a connection to the one that
    /// was there is open shares both with it: what the old connection then writes or
    /// copies from the log lands in the wrong file, and the last connection to close copies
    /// both files' pages into whichever it holds (the web app and a command writing while a
    /// backup, or a sync program's copy from another computer, was moved into place: a
    /// damaged library, or words answered as saved and gone; found by the exploratory
    /// helper, round 21B #3). So:
    /// - every write transaction that changed a row notes in it which file it was written
    ///   for (it moves on the count of `identityKey`, so every log holds that row), and
    ///   before it commits checks that its file is still the one at the path and that the
    ///   log's last writer wrote for the same file; otherwise it rolls back
    ///   (`fileReplaced`);
    /// - a checkpoint copies the log only when its last writer wrote for this file;
    /// - closing a connection to a file moved away first empties the log into that file
    ///   (where its words belong, and the file now at the path then finds the log empty);
    ///   closing one whose log another file's connection wrote leaves the log as it is.
    private final class FileGuard {
        /// The library file's path.
        let path: String
        /// The names (`dev:inode`) a log written for this connection's file may carry: the
        /// file's own, and what the library noted if noting it failed (another process was
        /// writing).
        let ownNames: Set<String>

        init(path: String, ownNames: [String]) {
            self.path = path
            self.ownNames = Set(ownNames)
        }

        /// Installs the guard's checks on `database`. A file that looks moved already as it
        /// was opened (a file system whose inode numbers are not stable) is not watched for
        /// moves, only for another file's writes.
        func install(on database: Database) {
            let watchMoves = !database.fileMovedAway
            database.beforeCommit = { [unowned database, self] in
                if watchMoves && database.fileMovedAway {
                    throw FileSystem.identity(self.path) == nil
                        ? LibraryError.libraryGone(path: self.path) : LibraryError.fileReplaced(path: self.path)
                }
                guard self.logIsOwn(database) else { throw LibraryError.fileReplaced(path: self.path) }
                try database.run(
                    """
                    UPDATE library_info SET value = substr(value, 1, instr(value, '/')) || (CAST(substr(value, instr(value, '/') + 1) AS INTEGER) + 1)
                    WHERE key = ? AND instr(value, '/') > 0
                    """, [.text(identityKey)])
            }
            database.mayCheckpoint = { [self] database in self.logIsOwn(database) }
            database.beforeClose = { [self] database in
                guard self.logIsOwn(database) else { return database.leaveLogOnClose() }
                guard watchMoves && database.fileMovedAway else { return }
                // Other connections of this process to the moved file may still be reading:
                // the last of them to close empties what this one could not.
                _ = try? database.execute("PRAGMA busy_timeout = 1000")
                _ = try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }

        /// True when the log's last writer (as this connection reads it now) wrote for this
        /// connection's file, or the row is not there to say.
        func logIsOwn(_ database: Database) -> Bool {
            guard let name = LibraryFile.notedIdentity(database) else { return true }
            return ownNames.contains(name)
        }
    }

    /// Checks, before anything is written, that the log beside the path (not rebuilt by
    /// this open: another program has it open) belongs to the file now there. When another
    /// file was moved into the path while a program still had the one that was there open,
    /// that program's log holds the old file's pages: read with the file moved in, they gave
    /// a damaged library. Every write transaction notes which file it was written for
    /// (`FileGuard`), so such a log shows as one whose last writer wrote for another file
    /// than the one at the path, and than the one the file alone names (a file and its log
    /// copied together name the same). It throws `LogOfAnotherFileInUse`, and `open` tries
    /// again until the program lets go (it empties the log into its own file as it closes).
    private static func checkSharedLog(_ database: Database, path: String) throws {
        guard let now = identity(path) else { return }
        let written = notedValue(database)
        if written?.split(separator: "/").first.map(String.init) == now { return }
        let alone = (try? Database(path: path, create: false, fileAlone: true)).flatMap(notedValue)
        if written == alone { return }
        database.leaveLogOnClose()
        throw LogOfAnotherFileInUse()
    }

    /// Checks a library file that has no WAL beside it: a file that came here (copied,
    /// moved, restored from a backup) rather than one MiDiccio has opened here, as every
    /// library MiDiccio opens keeps its WAL file beside it between runs. A copy taken while
    /// MiDiccio was writing the library can be torn, and SQLite reads such a file without a
    /// word until it reaches a torn page (found by the exploratory helper: `list` and
    /// `export` of a torn copy exited 0). It is looked at as it is, with no lock and no file
    /// made beside it, so one that fails stays unopened and is checked again next time. A
    /// file not yet set up by this MiDiccio, or not a library, is left to the open to
    /// refuse. The check reads the whole file once (`checkProblems`).
    ///
    /// Returns true when the log beside the file is there and empty: the open then checks
    /// the file the same way when it notes another file than itself (`checkCopiedBesideEmptyLog`).
    private static func checkArrivedFile(_ path: String) throws -> Bool {
        var status = stat()
        guard stat(path + "-wal", &status) != 0, errno == ENOENT else { return status.st_size == 0 }
        guard let alone = try? Database(path: path, create: false, fileAlone: true), isLibrary(alone) else { return false }
        try refuseIfDamaged(try checkProblems(alone))
        return false
    }

    /// True for a MiDiccio library of any schema (by its application id). A torn copy of a
    /// library an earlier MiDiccio wrote was not checked, and was brought up to date and
    /// written to as it was (found by the exploratory helper, round 25A #4).
    private static func isLibrary(_ database: Database) -> Bool {
        (try? database.integer("PRAGMA application_id")) == Int64(applicationID)
    }

    /// Checks, with the open's own connection, a library up to date whose log beside it was
    /// empty as it opened and which notes another file than itself (`identityKey`): a copy
    /// of the library's folder, which brings the empty log MiDiccio leaves beside every
    /// library along. A torn copy with it was read without the check (`list` exited 0, an
    /// edit of a word it listed said there was no such word; found by the exploratory
    /// helper, round 24A #2). Done here rather than before the open, so that no command
    /// opens a second connection to the file alone to read what this one reads anyway.
    private static func checkCopiedBesideEmptyLog(_ database: Database, path: String) throws {
        guard isLibrary(database), let now = identity(path), let noted = notedIdentity(database), noted != now else { return }
        try refuseIfDamaged(try database.read { try checkProblems(database) })
    }

    /// Refuses a library file that came from elsewhere whose check found `problems`.
    private static func refuseIfDamaged(_ problems: [String]) throws {
        guard problems.isEmpty else {
            throw LibraryError.damaged(
                "SQLite's check of the file finds \(quoted(problems)). It came here from elsewhere, as a copy or a "
                    + "backup does (the log MiDiccio keeps beside a library missing or empty), and a copy taken while "
                    + "MiDiccio was writing the library is torn like this: copy it again with MiDiccio closed where it "
                    + "came from, or run 'midiccio backup export' there and restore that backup here")
        }
    }

    /// Checks the file and the log a process that stopped without closing it left beside
    /// it (its first read applied the log). A log belongs to the file it was written for:
    /// put back beside a backup or an older copy of the library, its pages mix with the
    /// file's into a library that holds neither's words whole, and the last connection to
    /// close would copy that mix into the file for good (found by the exploratory helper).
    /// When SQLite's check fails, this connection is made to leave the log as it is when it
    /// closes, and nothing is changed.
    ///
    /// The log says first which file it was written for (`identityKey`, read with the log
    /// applied): the one now at the path, or, when the log came with its file (both copied
    /// to a new place), the one the file alone names. Another file moved into the path while
    /// a command wrote to the one there (a sync program's rename of another computer's copy,
    /// a backup moved into place) got that command's log, whose pages passed SQLite's
    /// check: the file's own words were gone, without a word (found by the exploratory
    /// helper, round 21B #1, #2). An older copy of this very library, which names the same
    /// file, is left to SQLite's check as before.
    ///
    /// A log copied before its file (a file backup that took the log first, and the file
    /// after a checkpoint) names the same file with a smaller count of writes than the file
    /// alone: its older pages would hide words the file holds, and the first close would copy
    /// them over those words, passing SQLite's check (found by the exploratory helper, round
    /// 24A #1). Refused too.
    private static func checkLeftoverLog(_ database: Database, path: String) throws {
        // Read in one transaction, the log first: another program that opened the library
        // meanwhile may write and checkpoint, and the file alone read after its checkpoint
        // held a later count than the log read before it. While this read lasts, no
        // checkpoint copies into the file what came after it.
        let (logValue, aloneValue): (String?, String??) = try database.read {
            let logValue = notedValue(database)
            afterReadingTheLog.withLock { $0[path] }?()
            // What the file alone notes, when it can be read alone at all: one a checkpoint
            // stopped part way through (a killed first open after a copy, the update's)
            // reads only with its log, and "nothing noted" refused it as another file's,
            // where the two were whole together (found by the exploratory helper, round 25A #1).
            var aloneValue: String??
            if let alone = try? Database(path: path, create: false, fileAlone: true) {
                do {
                    aloneValue = .some(
                        try alone.read { try alone.text("SELECT value FROM library_info WHERE key = ?", [.text(identityKey)]) })
                } catch {}
            }
            return (logValue, aloneValue)
        }
        let written = logValue?.split(separator: "/").first.map(String.init)
        let aloneNoted = aloneValue.map { $0?.split(separator: "/").first.map(String.init) }
        if let written, let now = identity(path), written != now, let aloneNoted, aloneNoted != written {
            database.leaveLogOnClose()
            throw LibraryError.logDoesNotFit(
                path: path, problem: "the log was written for another file than the one now there (it was moved or copied in)")
        }
        if let log = logValue.flatMap(writeCount), let file = aloneValue.flatMap({ $0 }).flatMap(writeCount),
            log.name == file.name, log.count < file.count
        {
            database.leaveLogOnClose()
            throw LibraryError.logDoesNotFit(
                path: path,
                problem: "the log is older than the file (it was copied before the file, which holds later words), and "
                    + "read with it the file would lose them")
        }
        let problems = try database.read { try checkProblems(database) }
        guard problems.isEmpty else {
            database.leaveLogOnClose()
            throw LibraryError.logDoesNotFit(path: path, problem: "SQLite's check finds " + quoted(problems))
        }
    }

    /// Run by `checkLeftoverLog`, for the library at a path, between its read of the log
    /// and its read of the file alone: a test's stand-in for another program writing
    /// meanwhile. Empty outside tests.
    static let afterReadingTheLog = Mutex<[String: @Sendable () -> Void]>([:])

    /// What SQLite's `integrity_check` finds wrong with the file (at most 3 findings), or
    /// nothing. It checks each index against its table too, which `quick_check` does not:
    /// a mix of a log and an older copy with a few words between them passed that, and the
    /// words an index missed left every list and export (found by the exploratory helper,
    /// round 10). About 0.3 s at 100,000 words, 3 s at a million, once per file arrived.
    /// A file too damaged to be checked (SQLite answers "malformed") gives that answer.
    private static func checkProblems(_ database: Database) throws -> [String] {
        let found: [String]
        do {
            found = try database.prepare("PRAGMA integrity_check(3)").rows { $0.text(0) }
        } catch let error as SQLiteError where error.isCorrupt {
            return [error.message]
        }
        guard found != ["ok"] else { return [] }
        // One finding may take several lines, under a heading that names the schema.
        let lines = found.flatMap { $0.split(separator: "\n") }.map(String.init)
        return Array(lines.filter { !$0.hasPrefix("*** ") }.prefix(3))
    }

    /// SQLite's findings as a person reads them in one line.
    private static func quoted(_ problems: [String]) -> String {
        problems.map { "\u{201C}\($0)\u{201D}" }.joined(separator: ", ")
    }

    /// True when the file is a MiDiccio library with every migration applied, none unknown.
    private static func isCurrent(_ database: Database) throws -> Bool {
        guard try database.integer("PRAGMA application_id") == Int64(applicationID),
            try database.integer("PRAGMA user_version") == Int64(Migrations.all.count)
        else { return false }
        return try Migrator.appliedNames(database).sorted() == Migrations.all.map(\.name).sorted()
    }

    /// Gives a new file its application id, or refuses a file that is not a library or
    /// that a newer MiDiccio wrote. One write transaction serialises this check with any
    /// other process opening or creating the same file. Throwing rolls it back: a file
    /// that is not ours, or that a newer MiDiccio wrote, is never changed.
    private static func setUp(_ database: Database, path: String) throws {
        try checkingHeader(path) {
            try database.write {
                let id = try database.integer("PRAGMA application_id") ?? 0
                let tables = try database.integer("SELECT count(*) FROM sqlite_master") ?? 0
                if id != Int64(applicationID) {
                    guard tables == 0 else {
                        throw LibraryError.notALibrary(path: path, reason: "it is another application's SQLite database")
                    }
                    try database.execute("PRAGMA application_id = \(applicationID)")
                    try Migrator.prepare(database)
                    return
                }
                let version = Int(try database.integer("PRAGMA user_version") ?? 0)
                if version > Migrations.all.count {
                    throw LibraryError.newerSchema(path: path, version: version)
                }
                let names = try Migrator.appliedNames(database)
                let known = Set(Migrations.all.map(\.name))
                if names.contains(where: { !known.contains($0) }) {
                    throw LibraryError.newerSchema(path: path, version: max(version, names.count))
                }
            }
        }
    }

    /// Runs the first statements on a file, which make SQLite read its header: a file
    /// that is not an SQLite database fails there (SQLITE_NOTADB), untouched.
    private static func checkingHeader<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError where error.code & 0xFF == 26 {
            throw LibraryError.notALibrary(path: path, reason: "it is not an SQLite database")
        }
    }

    /// The settings every connection of every process uses, so that no two connections
    /// to one file disagree about how it is written.
    private static func configure(_ database: Database) throws {
        try enableWAL(database)
        // The WAL and its index stay beside the file between runs, emptied when the last
        // connection closes: creating and deleting both on every command took about 0.4 ms
        // of a 5 ms `midiccio list` (README, "Start-up"). Only once the file is known to be
        // a library of ours: a file refused is left as it was, with no file beside it.
        database.keepWALFiles()
        try database.execute("PRAGMA foreign_keys = ON")
        // FULL: a word reported as saved survives a power cut too, not only a crash of
        // the process (NORMAL may lose the last transactions in WAL mode).
        try database.execute("PRAGMA synchronous = FULL")
        // Deleted content is overwritten with zeros, so a purged word leaves nothing
        // behind in the file's free pages.
        try database.execute("PRAGMA secure_delete = ON")
        // 16 MB of page cache (the default is 2 MB): enough for the hot pages of a
        // library of 100,000 words without pushing the process past 150 MB.
        try database.execute("PRAGMA cache_size = -16384")
        // With the WAL kept, a limit of zero or more makes the last connection to close
        // cut it to nothing, so no old page (a purged word's among them) stays in it; while
        // open, a log that grew past 4 MiB is cut back to it at each restart.
        try database.execute("PRAGMA journal_size_limit = 4194304")
        // Search ranks the newest full-text matches from it (WordLibrary.newestRanked).
        try database.defineFullTextMatchStats()
    }

    /// Switches to WAL unless already on. Changing the journal mode needs the file to
    /// itself, and SQLite does not wait for that with the busy timeout, so a process
    /// opening a library that another is creating retries for a while.
    private static func enableWAL(_ database: Database) throws {
        if try database.text("PRAGMA journal_mode") == "wal" { return }
        var attempts = 0
        while true {
            do {
                try database.execute("PRAGMA journal_mode = WAL")
                return
            } catch let error as SQLiteError where error.isBusy && attempts < 200 {
                attempts += 1
                usleep(50_000)
            }
        }
    }

    /// False when there is no file (or an empty one); throws `notALibrary` for a folder
    /// or another kind of file. Looks with `stat` only: see the type's comment.
    private static func inspect(path: String) throws -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT { return false }
            throw LibraryError.cannotOpen(path: path, reason: FileSystem.errorText(errno))
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            let kind = (status.st_mode & S_IFMT) == S_IFDIR ? "a folder" : "not a regular file"
            throw LibraryError.notALibrary(path: path, reason: "it is \(kind)")
        }
        return status.st_size > 0
    }
}

/// The file at `path` a megabyte at a time from byte `offset` (nil at its end), its errors
/// as `fileError`.
func filePieces(_ path: String, from offset: Int = 0) throws -> () throws -> [UInt8]? {
    let reader = try files { try FileSystem.ChunkReader(path, from: offset) }
    return { try files { try reader.next() } }
}

/// Runs `body`, turning a `FileError` into the library's own `fileError`.
func files<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as FileError {
        throw LibraryError.fileError(path: error.path, reason: error.reason)
    }
}

extension SQLValue {
    /// A time as its milliseconds, or NULL.
    package static func time(_ time: Timestamp?) -> SQLValue {
        time.map { .integer($0.milliseconds) } ?? .null
    }
}

extension Statement {
    /// Column `index` as a time, or nil for NULL.
    func time(_ index: Int32) -> Timestamp? {
        isNull(index) ? nil : Timestamp(milliseconds: int64(index))
    }
}

// MARK: - The file whole while a process keeps it open

extension WordLibrary {
    /// Copies what the WAL holds into the library file itself, so a copy of the file
    /// alone holds every word written, even while this process keeps the library open
    /// (the last connection to close does this anyway). Passive: it waits for no other
    /// connection, and leaves what a reader still needs for a later call.
    package func moveLogIntoFile() throws {
        try guarded { try database.checkpoint(.passive) }
    }

    /// Moves what the WAL holds into the file this connection opened and empties the WAL
    /// (waiting, up to the busy timeout, for readers to finish). For a connection to a
    /// file moved away from its path: SQLite's own close leaves such a file's WAL beside
    /// the path, and the file now there would take it for its own.
    package func emptyLog() throws {
        try guarded { try database.checkpoint(.truncate) }
    }
}
