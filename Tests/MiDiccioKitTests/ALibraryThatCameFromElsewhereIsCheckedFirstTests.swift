import Foundation
import MiDiccioTesting
import Synchronization
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// A library file that came to its place from elsewhere is checked before it is read:
/// a copy that arrived without the log MiDiccio keeps beside a library (torn if it was
/// taken while MiDiccio wrote), and a backup or older copy put back beside the log that a
/// killed process left, whose pages would mix with the file's (found by the exploratory
/// helper: both were listed and exported as if whole, and the mix was then written into
/// the file for good).
@Suite("A library that came from elsewhere is checked first")
struct ALibraryThatCameFromElsewhereIsCheckedFirstTests {
    /// Writes `count` words named `prefix0`… into the library at `path` through an import.
    private func importWords(_ count: Int, named prefix: String, into library: WordLibrary, directory: URL) throws {
        let rows = (0..<count).map { "\(prefix)\($0)\tmeaning number \($0) of \(prefix), with some words" }
        let sheet = directory.appendingPathComponent("\(prefix).tsv").path
        try Data(("term\tmeaning\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: sheet))
        _ = try library.importWords(from: sheet)
    }

    private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// A library at `library.sqlite` in `directory` with 500 words, its log moved into the
    /// file and then left to grow (no automatic checkpoint): the library and its path.
    private func libraryKeepingItsLog(in directory: URL) throws -> (library: WordLibrary, path: String) {
        let path = directory.appendingPathComponent("library.sqlite").path
        let library = try WordLibrary(path: path, environment: [:])
        try importWords(500, named: "first", into: library, directory: directory)
        try library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try library.database.execute("PRAGMA wal_autocheckpoint = 0")
        return (library, path)
    }

    /// The bytes of a torn copy of a library of 6,000 words: one that read the file's first
    /// half before a second import's pages were written there, and its second half after.
    private func tornCopy(in directory: URL) throws -> Data {
        let original = directory.appendingPathComponent("library.sqlite").path
        let library = try WordLibrary(path: original, environment: [:])
        try importWords(3_000, named: "first", into: library, directory: directory)
        try library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let before = try bytes(original)
        try importWords(3_000, named: "second", into: library, directory: directory)
        try library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let after = try bytes(original)
        let half = before.count / 2 / 4_096 * 4_096
        return before.prefix(half) + after.dropFirst(half)
    }

    @Test("a torn copy that came without its log is refused before it is read, and nothing is made beside it")
    func tornCopyIsRefused() throws {
        try withTemporaryDirectory { directory in
            let copy = directory.appendingPathComponent("copied.sqlite").path
            let torn = try tornCopy(in: directory)
            try torn.write(to: URL(fileURLWithPath: copy))

            #expect {
                _ = try WordLibrary(path: copy, environment: [:])
            } throws: { error in
                guard case LibraryError.damaged(let what) = error else { return false }
                return what.contains("the log MiDiccio keeps beside a library missing or empty")
                    && "\(error)".contains("nothing was changed")
            }
            #expect(try bytes(copy) == torn)
            #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
            #expect(!FileManager.default.fileExists(atPath: copy + "-shm"))

            // The same torn file with an empty log beside it, as a copy of the library's
            // folder brings along (MiDiccio keeps one beside every library): refused too. It
            // was listed and exported as whole (round 24A #2).
            let folderCopy = directory.appendingPathComponent("folder-copy.sqlite").path
            try torn.write(to: URL(fileURLWithPath: folderCopy))
            try Data().write(to: URL(fileURLWithPath: folderCopy + "-wal"))
            #expect {
                _ = try WordLibrary(path: folderCopy, environment: [:])
            } throws: { error in
                guard case LibraryError.damaged = error else { return false }
                return "\(error)".contains("nothing was changed")
            }
            #expect(try bytes(folderCopy) == torn)
        }
    }

    @Test("a torn copy of a library an earlier MiDiccio wrote is refused too, not brought up to date")
    func tornCopyOfAnOlderSchemaIsRefused() throws {
        try withTemporaryDirectory { directory in
            var torn = try tornCopy(in: directory)
            // An earlier schema, as the file's header says (user_version, at byte 60).
            let older = UInt32(Migrations.all.count - 1)
            torn.replaceSubrange(60..<64, with: withUnsafeBytes(of: older.bigEndian) { Data($0) })
            let copy = directory.appendingPathComponent("older.sqlite").path
            try torn.write(to: URL(fileURLWithPath: copy))
            #expect {
                _ = try WordLibrary(path: copy, environment: [:])
            } throws: { error in
                guard case LibraryError.damaged = error else { return false }
                return "\(error)".contains("nothing was changed")
            }
            #expect(try bytes(copy) == torn, "not brought up to date, nothing written (round 25A #4)")
        }
    }

    @Test("a library copied with a killed process's log, whose file alone cannot be read, opens whole with the log")
    func fileUnreadableAloneOpensWithItsLog() throws {
        try withTemporaryDirectory { directory in
            let (library, original) = try libraryKeepingItsLog(in: directory)
            try importWords(500, named: "second", into: library, directory: directory)
            let page = try #require(try library.database.integer("SELECT rootpage FROM sqlite_schema WHERE name = 'library_info'"))
            let size = try #require(try library.database.integer("PRAGMA page_size"))
            // The process is killed part way through a checkpoint: the log holds every page,
            // and the file's page of library_info is half written. Both are copied elsewhere.
            let copy = directory.appendingPathComponent("copied.sqlite").path
            try FileManager.default.copyItem(atPath: original, toPath: copy)
            try FileManager.default.copyItem(atPath: original + "-wal", toPath: copy + "-wal")
            let handle = try #require(FileHandle(forWritingAtPath: copy))
            try handle.seek(toOffset: UInt64((page - 1) * size))
            try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size)))
            try handle.close()
            // Read with its log the two are whole: they open, every word there. Refused as the
            // log of another file, the file alone then read as damaged (round 25A #1).
            #expect(try WordLibrary(path: copy, environment: [:]).counts().words == 1_000)
        }
    }

    @Test("a log copied before its file, which a checkpoint moved on since, is refused; the file alone opens with every word")
    func logOlderThanItsFileIsRefused() throws {
        try withTemporaryDirectory { directory in
            let (library, original) = try libraryKeepingItsLog(in: directory)
            for number in 0..<20 { try library.add(WordContent(term: "logged \(number)", meaning: "in the log when it was copied")) }
            // A file backup takes the log first...
            let log = try bytes(original + "-wal")
            // ...and the file a moment later, after more words and a checkpoint.
            for number in 0..<30 { try library.add(WordContent(term: "later \(number)", meaning: "in the file only")) }
            try library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            let copy = directory.appendingPathComponent("backup.sqlite").path
            try FileManager.default.copyItem(atPath: original, toPath: copy)
            try log.write(to: URL(fileURLWithPath: copy + "-wal"))
            let file = try bytes(copy)
            #expect {
                _ = try WordLibrary(path: copy, environment: [:])
            } throws: { error in
                guard case LibraryError.logDoesNotFit = error else { return false }
                return "\(error)".contains("the log is older than the file") && "\(error)".contains("Nothing was changed")
            }
            #expect(try bytes(copy) == file, "the file keeps its words")
            #expect(try bytes(copy + "-wal") == log)
            // With the log moved away, as the message says, every word is there.
            try FileManager.default.removeItem(atPath: copy + "-wal")
            try? FileManager.default.removeItem(atPath: copy + "-shm")
            #expect(try WordLibrary(path: copy, environment: [:]).counts().words == 550)
        }
    }

    @Test("a killed program's log is not taken for one older than its file when another program writes and checkpoints while it is checked")
    func leftoverLogCheckedWhileAnotherProgramWrites() throws {
        try withTemporaryDirectory { directory in
            let (library, original) = try libraryKeepingItsLog(in: directory)
            for number in 0..<20 { try library.add(WordContent(term: "logged \(number)", meaning: "in the log only")) }
            // The program is killed: its file and log are as they are now (copied elsewhere,
            // where no connection has them open, so the next open finds the log left over).
            let copy = directory.appendingPathComponent("killed.sqlite").path
            try FileManager.default.copyItem(atPath: original, toPath: copy)
            try FileManager.default.copyItem(atPath: original + "-wal", toPath: copy + "-wal")
            let written = WritesMeanwhile()
            // Another program opens the library as the check goes on, writes (moving the
            // count of writes on, as every write does) and checkpoints its log into the file.
            LibraryFile.afterReadingTheLog.withLock {
                $0[copy] = {
                    guard let other = try? Database(path: copy, create: false) else { return }
                    try? other.defineSchemaGuard(newest: Migrations.all.count)
                    _ = try? other.execute(
                        """
                        UPDATE library_info SET value = substr(value, 1, instr(value, '/')) || (CAST(substr(value, instr(value, '/') + 1) AS INTEGER) + 1)
                        WHERE key = 'file.identity'
                        """)
                    written.count.withLock { $0 += other.changes }
                    _ = try? other.execute("PRAGMA wal_checkpoint(PASSIVE)")
                }
            }
            defer { _ = LibraryFile.afterReadingTheLog.withLock { $0.removeValue(forKey: copy) } }
            // The file alone read after that checkpoint held a later count than the log read
            // before it: a whole library was refused as "the log is older than the file".
            #expect(try WordLibrary(path: copy, environment: [:]).counts().words == 520)
            #expect(written.count.withLock { $0 } == 1, "the other program wrote as the check went on")
        }
    }

    /// How many rows the stand-in for another program changed.
    private final class WritesMeanwhile: Sendable {
        let count = Mutex(0)
    }

    @Test("a whole copy that came without its log opens with every word")
    func wholeCopyOpens() throws {
        try withTemporaryDirectory { directory in
            let original = directory.appendingPathComponent("library.sqlite").path
            let library = try WordLibrary(path: original, environment: [:])
            try importWords(500, named: "palabra", into: library, directory: directory)
            try library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            let copy = directory.appendingPathComponent("copied.sqlite").path
            try FileManager.default.copyItem(atPath: original, toPath: copy)

            let copied = try WordLibrary(path: copy, environment: [:])
            #expect(try copied.counts().words == 500)
        }
    }

    /// What changed the library file between the older copy and the killed process.
    enum Since: String, CustomStringConvertible, CaseIterable {
        /// 2,000 words were added.
        case grew = "2,000 words were added since the copy"
        /// 600 of its 800 words were deleted permanently.
        case shrank = "most of its words were deleted permanently since the copy"
        /// 5 words were added to 20,000, and the killed process added 5 more: a mix whose
        /// pages all read, but whose indexes miss rows (round 10).
        case fewAdded = "a few words were added since the copy, and a few by the killed process"

        var description: String { rawValue }
        /// The words in the older copy.
        var older: Int { [.grew: 50, .shrank: 800, .fewAdded: 20_000][self]! }
        /// The words when the process was killed.
        var atKill: Int { [.grew: 4_050, .shrank: 2_200, .fewAdded: 20_010][self]! }
    }

    /// Makes the files a killed process leaves: `library.sqlite` as it was on disk when it
    /// died and the log holding what it committed since its last checkpoint. Returns the
    /// paths of an older copy (taken before `since` changed the file, each change by a
    /// process of its own, which moves the log into the file as it closes), the file at the
    /// kill, and the log.
    private func killedProcessFiles(in directory: URL, since: Since) throws -> (older: String, atKill: String, log: String) {
        let path = directory.appendingPathComponent("library.sqlite").path
        let older = directory.appendingPathComponent("older.sqlite").path
        let atKill = directory.appendingPathComponent("at-kill.sqlite").path
        let log = directory.appendingPathComponent("at-kill.sqlite-wal").path
        do {
            let library = try WordLibrary(path: path, environment: [:])
            try importWords(since.older, named: "old", into: library, directory: directory)
        }
        try FileManager.default.copyItem(atPath: path, toPath: older)
        do {
            let library = try WordLibrary(path: path, environment: [:])
            switch since {
            case .grew:
                try importWords(2_000, named: "kept", into: library, directory: directory)
            case .shrank:
                let words = try library.find(SearchRequest(query: "", sort: .term, limit: 600)).words
                _ = try library.delete(words.map(\.id))
                _ = try library.emptyTrash()
            case .fewAdded:
                for number in 0..<5 { try library.add(WordContent(term: "between \(number)", meaning: "added since the copy")) }
            }
        }
        let library = try WordLibrary(path: path, environment: [:])
        try library.database.execute("PRAGMA wal_autocheckpoint = 0")
        if since == .fewAdded {
            for number in 0..<5 { try library.add(WordContent(term: "killed \(number)", meaning: "added before the kill")) }
        } else {
            try importWords(2_000, named: "new", into: library, directory: directory)
        }
        // The process dies here: what is on disk is the file and its log as they are.
        try FileManager.default.copyItem(atPath: path, toPath: atKill)
        try FileManager.default.copyItem(atPath: path + "-wal", toPath: log)
        return (older, atKill, log)
    }

    /// Puts `file` at a new library path with `log` beside it and no index of the log, as
    /// after a crash; returns the path.
    private func putBack(_ file: String, beside log: String, in directory: URL, named name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: file, toPath: path)
        try FileManager.default.copyItem(atPath: log, toPath: path + "-wal")
        return path
    }

    @Test("after a killed process, the library opens with what its log held", arguments: Since.allCases)
    func killedProcessLogIsApplied(since: Since) throws {
        try withTemporaryDirectory { directory in
            let files = try killedProcessFiles(in: directory, since: since)
            let path = try putBack(files.atKill, beside: files.log, in: directory, named: "restarted.sqlite")
            let library = try WordLibrary(path: path, environment: [:])
            #expect(try library.counts().words == since.atKill)
        }
    }

    @Test("an older copy put back beside the log of a killed process is refused, and neither is changed", arguments: Since.allCases)
    func olderCopyBesideLeftoverLogIsRefused(since: Since) throws {
        try withTemporaryDirectory { directory in
            let files = try killedProcessFiles(in: directory, since: since)
            let path = try putBack(files.older, beside: files.log, in: directory, named: "put-back.sqlite")
            let (file, log) = (try bytes(path), try bytes(path + "-wal"))
            #expect {
                _ = try WordLibrary(path: path, environment: [:])
            } throws: { error in
                guard case LibraryError.logDoesNotFit = error else { return false }
                return "\(error)".contains("put-back.sqlite-wal and put-back.sqlite-shm") && "\(error)".contains("Nothing was changed")
            }
            #expect(try bytes(path) == file)
            #expect(try bytes(path + "-wal") == log)

            // Once the log is moved away, the file opens as it is: the words of then.
            try FileManager.default.removeItem(atPath: path + "-wal")
            try FileManager.default.removeItem(atPath: path + "-shm")
            let library = try WordLibrary(path: path, environment: [:])
            #expect(try library.counts().words == since.older)
        }
    }

    /// A command wrote into the library (its log held every page it wrote, the whole small
    /// library among them) as another computer's copy was moved into the path, as a sync
    /// program renames its download into place; the command's log stayed beside the path.
    /// The next open applied it to that copy: SQLite's check passed, the copy's words were
    /// gone, and nothing was said (found by the exploratory helper, round 21B #1).
    @Test("another computer's copy moved into the path beside a command's log is refused, and neither is changed")
    func anotherCopyMovedInBesideALogIsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            let other = directory.appendingPathComponent("other.sqlite").path
            do {
                let elsewhere = try WordLibrary(path: other, environment: [:])
                try elsewhere.add(WordContent(term: "from the other computer"))
            }
            let log = directory.appendingPathComponent("log-at-the-move").path
            do {
                let library = try WordLibrary(path: path, environment: [:])
                try library.database.execute("PRAGMA wal_autocheckpoint = 0")
                for number in 0..<3 { try library.add(WordContent(term: "here \(number)")) }
                // The command writes on; its log stays as it was when the copy came.
                try FileManager.default.copyItem(atPath: path + "-wal", toPath: log)
            }
            // The copy is moved into the path (a rename: a file of its own), beside that log.
            let moved = directory.appendingPathComponent("moved-in.sqlite").path
            try FileManager.default.copyItem(atPath: other, toPath: moved)
            try FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + "-shm")
            try FileManager.default.removeItem(atPath: path + "-wal")
            try FileManager.default.moveItem(atPath: moved, toPath: path)
            try FileManager.default.copyItem(atPath: log, toPath: path + "-wal")
            let (file, wal) = (try bytes(path), try bytes(path + "-wal"))
            #expect {
                _ = try WordLibrary(path: path, environment: [:])
            } throws: { error in
                guard case LibraryError.logDoesNotFit = error else { return false }
                return "\(error)".contains("the log was written for another file than the one now there")
            }
            #expect(try bytes(path) == file && bytes(path + "-wal") == wal)

            try FileManager.default.removeItem(atPath: path + "-wal")
            try? FileManager.default.removeItem(atPath: path + "-shm")
            let library = try WordLibrary(path: path, environment: [:])
            #expect(try library.list().map(\.term) == ["from the other computer"])
        }
    }

    @Test("a library and its log copied together to another place (after a crash) open with what the log held")
    func fileAndLogCopiedTogetherOpen() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            do {
                let library = try WordLibrary(path: path, environment: [:])
                try library.add(WordContent(term: "checkpointed"))
            }
            let copy = directory.appendingPathComponent("copied.sqlite").path
            do {
                let library = try WordLibrary(path: path, environment: [:])
                try library.database.execute("PRAGMA wal_autocheckpoint = 0")
                try library.add(WordContent(term: "only in the log"))
                try FileManager.default.copyItem(atPath: path, toPath: copy)
                try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
            }
            let library = try WordLibrary(path: copy, environment: [:])
            #expect(try library.list().map(\.term).sorted() == ["checkpointed", "only in the log"])
        }
    }
}
