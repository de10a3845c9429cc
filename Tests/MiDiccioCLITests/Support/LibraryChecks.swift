import Foundation
import MiDiccioKit
import Testing

/// What tests that run real processes check on a library once those processes are gone.
extension ChildProcesses {
    /// SQLite's own verdict on the file at `path` ("ok" when it is whole; otherwise its
    /// first problems, on one line), from the sqlite3 shell, as a person investigating a
    /// broken library would ask for it.
    func integrityCheck(_ path: String) throws -> String {
        let check = finish(try launch(try BuiltTool.sqliteShell(), [path, "PRAGMA integrity_check"]))
        guard check.succeeded else { return "sqlite3 failed: \(check)" }
        let lines = check.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.prefix(5).joined(separator: "; ") + (lines.count > 5 ? "; ..." : "")
    }
}

extension Sandbox {
    /// The sandbox's environment for child processes: no colours, and no sync before
    /// `list` and friends, so a process does only what the test asked of it.
    var processEnvironment: [String: String] {
        environment.merging(["NO_COLOR": "1", "MIDICCIO_OFFLINE": "1"]) { _, new in new }
    }
}

/// Every word of the library at `path`, in the Trash or not, by id. The library is
/// opened in this process and closed again before this returns.
func allWords(inLibraryAt path: String) throws -> [String: Word] {
    let library = try WordLibrary(path: path, create: false, environment: ["LANG": "en_US.UTF-8"])
    let words = try library.list() + library.trash(includeHidden: true)
    return Dictionary(words.map { ($0.id.rawValue, $0) }, uniquingKeysWith: { first, _ in first })
}
