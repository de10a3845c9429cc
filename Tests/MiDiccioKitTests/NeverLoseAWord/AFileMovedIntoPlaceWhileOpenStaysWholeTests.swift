import Foundation
import MiDiccioStore
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// Another file moved into the library's place while MiDiccio has the one that was there
/// open: a sync program resolving a conflict (it renames the file here and moves another
/// computer's version in), or a backup moved into place. SQLite finds a file's log by its
/// path, so the connection to the file moved away shared its log with the file moved in:
/// its writes landed in the wrong file, and its close left its last words in a log the
/// file moved in then took for its own (found by the exploratory helper, round 21B #3).
@Suite("A file moved into the library's place while it is open keeps both files whole")
struct AFileMovedIntoPlaceWhileOpenStaysWholeTests {
    /// Makes a library at `path` holding one word, `term`, and closes it.
    private func libraryHolding(_ term: String, at path: String) throws {
        let library = try WordLibrary(path: path, environment: [:])
        _ = try library.add(WordContent(term: term, meaning: "from \(path)"))
    }

    /// How the file moved away left the library's place.
    enum MovedAway: String, CustomStringConvertible, CaseIterable {
        /// Renamed beside it, as Syncthing names a conflict copy.
        case renamed = "the file there is renamed beside it"
        /// Replaced by the move, as `mv backup library.sqlite` does.
        case replaced = "the file there is replaced"
        var description: String { rawValue }
    }

    @Test("a change written after another file was moved in is refused, and saved in neither file", arguments: MovedAway.allCases)
    func writeAfterTheMoveIsRefused(_ how: MovedAway) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            let other = directory.appendingPathComponent("other.sqlite").path
            let aside = directory.appendingPathComponent("library.sync-conflict-20261206-101010-ABCDEFG.sqlite").path
            try libraryHolding("deOtro", at: other)
            var library: WordLibrary? = try WordLibrary(path: path, environment: [:])
            _ = try library?.add(WordContent(term: "antes", meaning: "written before the move"))

            if how == .renamed { #expect(rename(path, aside) == 0) }
            let moved = try Data(contentsOf: URL(fileURLWithPath: other))
            #expect(rename(other, path) == 0)

            #expect {
                _ = try library?.add(WordContent(term: "después", meaning: "written after the move"))
            } throws: { error in
                guard case LibraryError.fileReplaced(let named) = error else { return false }
                return named == path && "\(error)".contains("saved in neither file")
            }
            library = nil

            // The file moved in is as it came, and opens with its own word alone.
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == moved)
            let now = try WordLibrary(path: path, environment: [:])
            #expect(try now.list().map(\.content.term) == ["deOtro"])
            #expect(try now.database.text("PRAGMA integrity_check") == "ok")
            if how == .renamed {
                // The file renamed away holds what was written to it before the move, in
                // the file itself: the log it had at the path was emptied into it.
                #expect(try termsOfLibraryFileAlone(aside) == ["antes"])
            }
        }
    }

    @Test("closing a library whose file was moved away leaves its last words in that file, and the log at the path empty")
    func closingEmptiesTheLogIntoTheFileMovedAway() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            let aside = directory.appendingPathComponent("moved.sqlite").path
            var library: WordLibrary? = try WordLibrary(path: path, environment: [:])
            for term in ["uno", "dos", "tres"] { _ = try library?.add(WordContent(term: term, meaning: "m")) }
            #expect(rename(path, aside) == 0)
            library = nil

            #expect(try termsOfLibraryFileAlone(aside) == ["dos", "tres", "uno"])
            let log = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
            #expect(log == 0, "the log at the path still holds the moved file's pages")
        }
    }

    @Test("a change is refused when the log's last writer wrote for another file, and that log is never copied into this one")
    func logOfAnotherFileIsNotTakenIn() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            var library: WordLibrary? = try WordLibrary(path: path, environment: [:])
            _ = try library?.add(WordContent(term: "uno", meaning: "m"))
            // A connection to another file that slipped into this file's log: what it
            // writes notes the file it was written for (another device and inode).
            let stranger = try Database(path: path, create: false)
            try stranger.defineSchemaGuard(newest: Migrations.all.count)
            try stranger.execute("UPDATE library_info SET value = '999:999/1' WHERE key = '\(LibraryFile.identityKey)'")

            try withExtendedLifetime(stranger) {
                #expect(throws: LibraryError.self) { _ = try library?.add(WordContent(term: "dos", meaning: "m")) }
                try library?.moveLogIntoFile()
                library = nil

                let alone = try Database(path: path, create: false, fileAlone: true)
                let noted = try alone.text("SELECT value FROM library_info WHERE key = ?", [.text(LibraryFile.identityKey)])
                #expect(noted?.hasPrefix("999:999") == false, "the other file's page was copied into this one")
                #expect(try alone.integer("SELECT count(*) FROM words WHERE term = 'dos'") == 0)
            }
            // The stranger closes last: it leaves its log as it is too.
            stranger.leaveLogOnClose()
        }
    }

    @Test("a change to a library whose file was deleted is refused as gone")
    func writeAfterDeleteIsRefusedAsGone() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("library.sqlite").path
            let library = try WordLibrary(path: path, environment: [:])
            _ = try library.add(WordContent(term: "antes", meaning: "m"))
            #expect(unlink(path) == 0)
            #expect {
                _ = try library.add(WordContent(term: "después", meaning: "m"))
            } throws: { error in
                guard case LibraryError.libraryGone(let named) = error else { return false }
                return named == path
            }
        }
    }
}
