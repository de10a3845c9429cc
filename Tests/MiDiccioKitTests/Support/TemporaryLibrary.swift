import Foundation
import MiDiccioTesting

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A fresh folder under the system's temporary directory, removed when `body` returns
/// (or throws), so no test sees another's files or leaves any behind.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("midiccio-kit-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// A library in its own temporary folder, with a clock that only moves when told to.
struct TemporaryLibrary {
    /// The folder that holds the library and any file a test writes beside it.
    let directory: URL
    /// The library's clock; starts at `TemporaryLibrary.start`.
    let clock: ManualClock
    /// The library under test.
    let library: WordLibrary

    /// Where every temporary library's clock starts: an odd millisecond, so a lost or
    /// rounded millisecond shows.
    static let start = Timestamp(milliseconds: 1_764_000_000_123)

    /// The library file.
    var path: String { library.path }

    /// A path for a file named `name` in the library's folder.
    func file(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// A second library in the same folder, with its own clock starting at `start`.
    func sibling(_ name: String, start: Timestamp = TemporaryLibrary.start) throws -> (WordLibrary, ManualClock) {
        let clock = ManualClock(start: start)
        return (try WordLibrary(path: file(name), clock: clock, environment: [:]), clock)
    }
}

/// Runs `body` with a new, empty library in a fresh temporary folder that is removed
/// afterwards. The collation locale is Unicode's root order whatever the machine says.
func withTemporaryLibrary<T>(
    start: Timestamp = TemporaryLibrary.start,
    _ body: (TemporaryLibrary) throws -> T
) throws -> T {
    try withTemporaryDirectory { directory in
        let clock = ManualClock(start: start)
        let library = try WordLibrary(
            path: directory.appendingPathComponent("library.sqlite").path,
            clock: clock, environment: [:])
        return try withExtendedLifetime(library) {
            try body(TemporaryLibrary(directory: directory, clock: clock, library: library))
        }
    }
}

/// Runs `body` with the path of a library file not made yet, in a temporary folder
/// removed afterwards, and a clock at `TemporaryLibrary.start`: for tests that open the
/// same file several times.
func withLibraryFile<T>(_ body: (_ path: String, _ clock: ManualClock) throws -> T) throws -> T {
    try withTemporaryDirectory { directory in
        try body(directory.appendingPathComponent("library.sqlite").path, ManualClock(start: TemporaryLibrary.start))
    }
}

// MARK: - Looking inside a library

/// Everything a library holds that an operation might change: every stored word (Trash
/// and sync state included), the undo data of the last restore and the change counter.
struct LibrarySnapshot: Equatable {
    var words: [StoredWord]
    var undo: [String]
    var changeCounter: String?
}

extension WordLibrary {
    /// Every stored word, Trash included, ordered by id.
    func allStored() throws -> [StoredWord] {
        try database.prepare("SELECT \(Self.columns) FROM words ORDER BY id").rows([], Self.storedWord)
    }

    /// The whole state a failed or dry-run operation must leave alone.
    func snapshot() throws -> LibrarySnapshot {
        let undo = try database.prepare("SELECT word_id, prior FROM restore_undo ORDER BY word_id")
            .rows { "\($0.text(0)) \($0.optionalText(1) ?? "<added>")" }
        return LibrarySnapshot(words: try allStored(), undo: undo, changeCounter: try info("change.counter"))
    }

    /// What sync will do once it has uploaded every change: clear the pending flags, so a
    /// test can see which operation sets them again.
    func markAllUploaded() throws {
        try database.execute("UPDATE words SET pending = 0")
    }

    /// The stored form of the word `id`, which must exist.
    func required(_ id: WordID) throws -> StoredWord {
        guard let stored = try stored(id) else { throw LibraryError.wordNotFound(id.rawValue) }
        return stored
    }
}

extension Timestamp {
    /// This time moved by `milliseconds`.
    func adding(_ milliseconds: Int64) -> Timestamp {
        Timestamp(milliseconds: self.milliseconds + milliseconds)
    }
}

// MARK: - Files

/// The bytes of the file at `path` (empty when it does not exist).
func fileBytes(_ path: String) -> Data {
    FileManager.default.contents(atPath: path) ?? Data()
}

/// Writes `text` as UTF-8 to `path`.
func writeText(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}

/// Runs `sql` on the database at `path` with the `sqlite3` shell, the way another
/// program (or a person) would. Throws when the shell is missing or fails.
func runSQLiteShell(_ path: String, _ sql: String) throws {
    let candidates = ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"]
    guard let shell = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
        throw ShellError(message: "the sqlite3 shell is not installed")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: shell)
    process.arguments = [path, sql]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let message = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw ShellError(message: "sqlite3 failed: " + String(decoding: message, as: UTF8.self))
    }
}

/// A helper program failed.
struct ShellError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

// MARK: - Errors

extension LibraryError {
    /// The validation error inside `invalidWord`, else nil.
    var validationError: WordValidationError? {
        if case .invalidWord(let error) = self { return error }
        return nil
    }
}

// MARK: - Backups

/// Writes a backup file holding exactly `words`, as another device might have exported it.
func writeBackup(
    _ words: [Word], to path: String,
    exportedAt time: Timestamp = Timestamp(milliseconds: 1_800_000_000_000)
) throws {
    try writeText(BackupFile.encode(words, exportedAt: time), to: path)
}

extension Word {
    /// This word as another device edited it at `time`.
    func edited(at time: Timestamp, _ change: (inout Word) -> Void) -> Word {
        var word = self
        change(&word)
        word.updatedAt = time
        return word
    }
}
