import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// A library file whose pages do not agree (torn by a copy taken while it was written, or
/// damaged on disk) is named as damaged, with how that happens and what to do, instead
/// of SQLite's bare "database disk image is malformed" and the statement that met it.
@Suite("A torn library file says it is damaged")
struct ATornLibraryFileSaysSoTests {
    @Test("reading a library with a torn page of its words is refused as damage")
    func tornPageIsDamage() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            do {
                let library = try WordLibrary(path: path, environment: [:])
                let rows = (0..<3_000).map { "palabra\($0)\tmeaning number \($0) with several words" }
                let sheet = directory.appendingPathComponent("words.tsv").path
                try Data(("term\tmeaning\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: sheet))
                _ = try library.importWords(from: sheet)
                // Garbage over the header of one leaf page of the words table.
                let page = try #require(
                    try library.database.integer("SELECT max(pageno) FROM dbstat WHERE name = 'words' AND pagetype = 'leaf'"))
                try library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                let size = try #require(try library.database.integer("PRAGMA page_size"))
                let handle = try #require(FileHandle(forWritingAtPath: path))
                try handle.seek(toOffset: UInt64((page - 1) * size))
                try handle.write(contentsOf: Data(repeating: 0xA5, count: 12))
                try handle.close()
            }
            let library = try WordLibrary(path: path, environment: [:])
            #expect {
                _ = try library.find(SearchRequest(query: "", sort: .term, limit: 5_000))
            } throws: { error in
                guard case LibraryError.damaged(let what) = error else { return false }
                // And the way out when a backup was copied over the library while MiDiccio ran
                // (round 24A #3: it spoke only of a copy taken while MiDiccio wrote).
                return what.contains("copied while MiDiccio was writing") && "\(error)".contains("restore a backup")
                    && what.contains("move it into place (mv) rather than copying over the file")
            }
        }
    }

    @Test("a library whose first pages are torn is refused as damaged as it opens, not with SQLite's words", arguments: [1, 2])
    func tornEarlyPageIsDamage(page: Int) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            var size = 4_096
            do {
                let library = try WordLibrary(path: path, environment: [:])
                try library.add(WordContent(term: "casa", meaning: "house"))
                try library.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                size = Int(try #require(try library.database.integer("PRAGMA page_size")))
            }
            // The page of the table of library settings (2) or the file's first page past
            // its 100-byte header (1): what the opening reads first.
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.seek(toOffset: UInt64((page - 1) * size + (page == 1 ? 100 : 0)))
            try handle.write(contentsOf: Data(repeating: 0xFF, count: page == 1 ? 200 : size))
            try handle.close()
            #expect {
                _ = try WordLibrary(path: path, environment: [:])
            } throws: { error in
                guard case LibraryError.damaged = error else { return false }
                return "\(error)".contains("restore a backup") && "\(error)".contains("a new library to the same remote")
                    && !"\(error)".contains("SELECT")
            }
        }
    }
}
