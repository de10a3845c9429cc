import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// SQLite's count of the memory it takes is off before the first library opens (issue 12):
/// the count takes a process-wide lock on every allocation and free, and without it an
/// import or a new device's first sync takes about 6% less time. The count can be turned off
/// only before SQLite is first used, so this checks that nothing in the library reaches
/// SQLite before `Database` does. (Linux only: on Apple platforms the system's SQLite is
/// left as the system set it.)
@Suite("SQLite skips its memory count")
struct SQLiteSkipsItsMemoryCountTests {
    @Test("a library that opens, writes and searches leaves SQLite's memory count at zero")
    func noMemoryCounted() throws {
        #if canImport(Glibc)
        try withTemporaryDirectory { directory in
            let library = try WordLibrary(path: directory.appendingPathComponent("library.sqlite").path, environment: [:])
            _ = try library.add(WordContent(term: "hola", meaning: "hello", tags: ["saludo"]))
            #expect(try library.search("hol").map(\.term) == ["hola"])
            // With the count on, opening a connection alone takes some kilobytes.
            #expect(!Database.sqliteCountsMemory)
        }
        #endif
    }
}
