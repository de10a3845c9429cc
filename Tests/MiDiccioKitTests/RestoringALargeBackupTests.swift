import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// A backup is restored as it streams, read twice a megabyte at a time and never held
/// whole (issue 12: a backup of a million words took 3.9 GB to restore): first every entry
/// is checked, then each is restored as it is read again. What it restores, and what it
/// refuses, is what a whole-file read gave.
@Suite("Restoring a large backup reads it as it streams")
struct RestoringALargeBackupTests {
    /// A library of 3,000 words with long notes (and one in the Trash), its backup's path
    /// and text: over three megabytes, so every read crosses many pieces.
    private func largeBackup(_ fixture: TemporaryLibrary) throws -> (path: String, text: String) {
        let library = fixture.library
        let notes = String(repeating: "una nota larga con acentos, ñ y 漢字; ", count: 30)
        _ = try library.writingInBulk {
            for index in 0..<3_000 {
                _ = try library.add(WordContent(term: "palabra\(index)", meaning: "word \(index)", notes: notes, tags: ["t\(index % 7)"]))
            }
        }
        _ = try library.delete([try library.list(ListQuery(limit: 1))[0].id])
        let path = fixture.file("backup.json")
        try library.exportBackup(to: path)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.utf8.count > 3 << 20)
        return (path, text)
    }

    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Where a restore failed, as `invalidBackup` says it.
    private func failure(_ body: () throws -> Void) -> (location: String?, message: String)? {
        do {
            try body()
        } catch LibraryError.invalidBackup(_, let location, let message) {
            return (location, message)
        } catch {
            Issue.record("expected invalidBackup, got \(error)")
        }
        return nil
    }

    @Test("every word comes back, the Trash included, by merge and by replace")
    func restoresEveryWord() throws {
        try withTemporaryLibrary { fixture in
            let (path, _) = try largeBackup(fixture)
            let expected = try fixture.library.list().sorted { $0.id < $1.id }
            let expectedTrash = try fixture.library.trash().map(\.id)
            for replace in [false, true] {
                let restored = try WordLibrary(path: fixture.file("restored-\(replace).sqlite"), environment: [:])
                let report = try restored.restoreBackup(from: path, replace: replace)
                #expect(report.added == 3_000)
                #expect(try restored.list().sorted { $0.id < $1.id }.map(\.term) == expected.map(\.term))
                #expect(try restored.trash().map(\.id) == expectedTrash)
            }
        }
    }

    @Test("a syntax error past the first megabyte names its line, and nothing is changed")
    func syntaxErrorLate() throws {
        try withTemporaryLibrary { fixture in
            let (path, text) = try largeBackup(fixture)
            var lines = text.components(separatedBy: "\n")
            let index = try #require(lines.lastIndex { $0.hasPrefix("      \"meaning\": \"word 2990\"") })
            lines[index] += ","
            try write(lines.joined(separator: "\n"), to: path)
            let restored = try WordLibrary(path: fixture.file("restored.sqlite"), environment: [:])
            let found = failure { _ = try restored.restoreBackup(from: path) }
            #expect(found?.message.contains("not valid JSON") == true)
            #expect(found?.location?.hasPrefix("line \(index + 1),") == true, "\(String(describing: found))")
            #expect(try restored.counts().words == 0)
        }
    }

    @Test("the last entry reusing the first's id is refused before anything is written")
    func duplicateIdAtTheEnd() throws {
        try withTemporaryLibrary { fixture in
            let (path, text) = try largeBackup(fixture)
            let ids = text.components(separatedBy: "\n").filter { $0.hasPrefix("      \"id\": ") }
            let first = try #require(ids.first), last = try #require(ids.last)
            // The last occurrence of the last id line becomes the first entry's id.
            let range = try #require(text.range(of: last, options: .backwards))
            try write(text.replacingCharacters(in: range, with: first), to: path)
            let restored = try WordLibrary(path: fixture.file("restored.sqlite"), environment: [:])
            let found = failure { _ = try restored.restoreBackup(from: path) }
            #expect(found?.location == "entry 3000")
            #expect(found?.message.contains("already used by entry 1") == true)
            #expect(try restored.counts().words == 0)
        }
    }

    @Test("keys in another order still read: the words before the format and version")
    func keysInAnyOrder() throws {
        try withTemporaryLibrary { fixture in
            let word = try fixture.library.add(WordContent(term: "casa", meaning: "house")).word
            let entry = WordJSON.object(word, indent: 4)
            let reordered = "{\"words\": [\(entry)], \"wordCount\": 1, \"version\": 2, \"format\": \"midiccio-backup\"}"
            let path = fixture.file("reordered.json")
            try write(reordered, to: path)
            let restored = try WordLibrary(path: fixture.file("restored.sqlite"), environment: [:])
            #expect(try restored.restoreBackup(from: path).added == 1)
            // A version too new at the end is still refused before anything is written.
            try write(reordered.replacingOccurrences(of: "\"version\": 2", with: "\"version\": 9"), to: path)
            let other = try WordLibrary(path: fixture.file("other.sqlite"), environment: [:])
            #expect(failure { _ = try other.restoreBackup(from: path) }?.message.contains("version 9 is newer") == true)
            #expect(try other.counts().words == 0)
        }
    }
}
