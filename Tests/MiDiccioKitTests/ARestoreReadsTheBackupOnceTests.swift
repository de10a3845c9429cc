import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore

/// A backup that states its word count before its words (as MiDiccio writes them) is
/// read once: each word is checked and restored as it is read, and a problem found later
/// in the file rolls the whole restore back, reported as the whole-file check reports it.
/// Any other backup is read twice, checked first, with the same outcome.
@Suite("A restore reads the backup once")
struct ARestoreReadsTheBackupOnceTests {
    /// Words of a backup, `count` of them, tagged, one in the Trash.
    private static func words(_ count: Int) -> [Word] {
        let start = Timestamp(milliseconds: 1_790_000_000_000)
        return (0..<count).map { (index: Int) -> Word in
            let at = Int64(index)
            let tags: [String] = index % 3 == 0 ? ["tres"] : []
            let deleted: Timestamp? = index == 4 ? start.adding(at + 20) : nil
            return Word(
                id: WordID.random(), term: "palabra \(index)", meaning: "meaning \(index)", tags: tags,
                createdAt: start.adding(at), updatedAt: start.adding(at + 10), deletedAt: deleted)
        }
    }

    /// The backup's text with its `wordCount` moved after its words, or left out.
    private static func countAfterWords(_ words: [Word], omitted: Bool = false) throws -> String {
        let text = BackupFile.encode(words, exportedAt: CorruptBackup.exported)
        let line = "  \"wordCount\": \(words.count),\n"
        #expect(text.contains(line))
        let without = text.replacingOccurrences(of: line, with: "")
        guard !omitted else { return without }
        let end = try #require(without.range(of: "\n}", options: .backwards))
        return without.replacingCharacters(in: end, with: ",\n  \"wordCount\": \(words.count)\n}")
    }

    /// Runs `body` with a new library that reads backups of `readingAsideFrom` words or
    /// more on a second thread.
    private static func withLibrary(readingAsideFrom: Int, _ body: (WordLibrary, TemporaryLibrary) throws -> Void) throws {
        try withTemporaryLibrary { fixture in
            fixture.library.restoreReadAsideFrom = readingAsideFrom
            try body(fixture.library, fixture)
        }
    }

    /// Where and why restoring `path` into `library` was refused as an invalid backup;
    /// nil (an issue recorded) when it was not.
    private static func refusal(_ library: WordLibrary, _ path: String, replace: Bool = false) -> (location: String?, message: String)? {
        let error = #expect(throws: LibraryError.self) { _ = try library.restoreBackup(from: path, replace: replace) }
        guard case .invalidBackup(_, let location, let message) = error else {
            Issue.record("expected invalidBackup, got \(String(describing: error))")
            return nil
        }
        return (location, message)
    }

    /// The text of every stored word and of the undo data, for comparing two libraries.
    private static func contents(_ library: WordLibrary) throws -> [String] {
        let snapshot = try library.snapshot()
        return snapshot.words.map { "\($0.word) \($0.pending)" } + snapshot.undo
    }

    @Test(
        "a backup stating its count after its words, or not at all, restores as one stating it first, with the same progress",
        arguments: [1, Int.max])
    func countElsewhere(readAsideFrom: Int) throws {
        try withTemporaryLibrary { fixture in
            let words = Self.words(40)
            let first = fixture.file("first.json"), after = fixture.file("after.json"), none = fixture.file("none.json")
            try writeBackup(words, to: first, exportedAt: CorruptBackup.exported)
            try writeText(try Self.countAfterWords(words), to: after)
            try writeText(try Self.countAfterWords(words, omitted: true), to: none)
            #expect(BackupFile.statedWordCount(pieces: try filePieces(first)) == 40)
            #expect(BackupFile.statedWordCount(pieces: try filePieces(after)) == nil)
            var results: [[String]] = []
            for (index, path) in [first, after, none].enumerated() {
                let (library, _) = try fixture.sibling("copy\(index).sqlite")
                library.restoreReadAsideFrom = readAsideFrom
                var calls: [[Int]] = []
                let report = try library.restoreBackup(from: path) { calls.append([$0, $1]) }
                #expect(report.added == 40)
                #expect(calls.first == [0, 40] && calls.last == [40, 40])
                results.append(try Self.contents(library))
            }
            #expect(results[0].count == 80)
            #expect(results[1] == results[0])
            #expect(results[2] == results[0])
        }
    }

    @Test(
        "a bad word early and a file cut short: the cut is reported, as a whole-file check finds it, and nothing changes",
        arguments: [1, Int.max], [false, true])
    func syntaxErrorComesFirst(readAsideFrom: Int, intoEmpty: Bool) throws {
        try Self.withLibrary(readingAsideFrom: readAsideFrom) { library, fixture in
            if !intoEmpty { _ = try library.add(WordContent(term: "local", meaning: "here")) }
            var words = Self.words(300)
            words[1].term = ""
            let text = BackupFile.encode(words, exportedAt: CorruptBackup.exported)
            try writeText(String(text.prefix(text.count - 40)), to: fixture.file("cut.json"))
            let before = try library.snapshot()
            let refusal = Self.refusal(library, fixture.file("cut.json"))
            #expect(refusal?.message.contains("not valid JSON") == true, "message: \(String(describing: refusal))")
            #expect(try library.snapshot() == before)
        }
    }

    @Test(
        "a bad word after many restored ones undoes them all, the indexes of an empty library included, then a good backup restores",
        arguments: [1, Int.max], [false, true])
    func lateBadWordUndoesAll(readAsideFrom: Int, replace: Bool) throws {
        try Self.withLibrary(readingAsideFrom: readAsideFrom) { library, fixture in
            library.deferredIndexesFrom = 1
            let schema = try library.database.prepare("SELECT name FROM sqlite_master ORDER BY name").rows { $0.text(0) }
            var words = Self.words(3_000)
            let good = words
            words[2_998].tags = ["two words"]
            try writeBackup(words, to: fixture.file("late.json"), exportedAt: CorruptBackup.exported)
            #expect(Self.refusal(library, fixture.file("late.json"), replace: replace)?.location == "entry 2999, field \"tags\"")
            #expect(try library.allStored().isEmpty)
            #expect(try library.snapshot().undo.isEmpty)
            #expect(try library.database.prepare("SELECT name FROM sqlite_master ORDER BY name").rows { $0.text(0) } == schema)
            #expect(try library.database.text("PRAGMA integrity_check") == "ok")
            try writeBackup(good, to: fixture.file("good.json"), exportedAt: CorruptBackup.exported)
            #expect(try library.restoreBackup(from: fixture.file("good.json"), replace: replace).added == 3_000)
            #expect(try library.search("palabra 2998").map(\.term) == ["palabra 2998"])
        }
    }
}
