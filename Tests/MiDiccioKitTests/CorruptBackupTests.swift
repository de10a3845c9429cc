import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A broken backup and what the error must say about it.
struct CorruptBackup: Sendable, CustomTestStringConvertible {
    var name: String
    /// Makes the file's text from three valid entries.
    var text: @Sendable ([Word]) -> String
    /// Text the error's location must contain (nil: not checked).
    var location: String?
    /// Text the error's message must contain.
    var message: String

    var testDescription: String { name }

    static let exported = Timestamp(milliseconds: 1_800_000_000_000)

    static func valid(_ words: [Word]) -> String { BackupFile.encode(words, exportedAt: exported) }

    static let all: [CorruptBackup] = [
        CorruptBackup(
            name: "truncated JSON",
            text: { words in
                let text = valid(words)
                return String(text.prefix(text.count * 2 / 3))
            }, location: nil, message: "not valid JSON (the file may be truncated or corrupt)"),
        CorruptBackup(name: "empty file", text: { _ in "" }, location: nil, message: "empty"),
        CorruptBackup(
            name: "wrong format name",
            text: { words in
                valid(words).replacingOccurrences(of: "\"midiccio-backup\"", with: "\"anki-backup\"")
            }, location: nil, message: "\"format\" must be \"midiccio-backup\""),
        CorruptBackup(
            name: "a newer format version",
            text: { words in
                valid(words).replacingOccurrences(of: "\"version\": 2,", with: "\"version\": 3,")
            }, location: nil, message: "version 3 is newer"),
        CorruptBackup(name: "a list at the top level", text: { _ in "[]" }, location: nil, message: "JSON object"),
        CorruptBackup(
            name: "a word count that does not match",
            text: { words in
                valid(words).replacingOccurrences(of: "\"wordCount\": 3", with: "\"wordCount\": 4")
            }, location: nil, message: "holds 4 words but has 3"),
        // More words than the file says is not a file cut short (round 27B #7).
        CorruptBackup(
            name: "more words than the count says",
            text: { words in
                valid(words).replacingOccurrences(of: "\"wordCount\": 3", with: "\"wordCount\": 2")
            }, location: nil, message: "holds 2 words but has 3, more than it says: it was edited or put together by hand"),
        CorruptBackup(
            name: "a word repeated, the count as it was",
            text: { words in
                var twins = words
                twins[2].id = twins[0].id
                return valid(twins).replacingOccurrences(of: "\"wordCount\": 3", with: "\"wordCount\": 2")
            }, location: "entry 3", message: "already used by entry 1"),
        CorruptBackup(
            name: "an invalid id in the middle",
            text: { words in
                valid(words).replacingOccurrences(of: words[1].id.rawValue, with: "not-a-uuid")
            }, location: "entry 2, field \"id\"", message: "is not a UUID"),
        CorruptBackup(
            name: "a 501-character term in the middle",
            text: { words in
                var long = words
                long[1].term = String(repeating: "x", count: 501)
                return valid(long)
            }, location: "entry 2, field \"term\"", message: "501 characters"),
        CorruptBackup(
            name: "an empty term at the end",
            text: { words in
                var blank = words
                blank[2].term = "   "
                return valid(blank)
            }, location: "entry 3, field \"term\"", message: "must not be empty"),
        CorruptBackup(
            name: "1,001 tags",
            text: { words in
                var many = words
                many[2].tags = (1...1_001).map { "t\($0)" }
                return valid(many)
            }, location: "entry 3, field \"tags\"", message: "at most 1000 tags"),
        CorruptBackup(
            name: "duplicate ids",
            text: { words in
                var twins = words
                twins[2].id = twins[0].id
                return valid(twins)
            }, location: "entry 3", message: "already used by entry 1"),
        CorruptBackup(
            name: "a time with four fractional digits",
            text: { words in
                valid(words).replacingOccurrences(
                    of: "\"updatedAt\": \"\(words[1].updatedAt.iso8601)\"",
                    with: "\"updatedAt\": \"\(words[1].updatedAt.iso8601.dropLast())0Z\"")
            }, location: "entry 2, field \"updatedAt\"", message: "at most 3 fractional digits"),
        CorruptBackup(
            name: "updatedAt before createdAt",
            text: { words in
                var backwards = words
                backwards[1].updatedAt = words[1].createdAt.adding(-1)
                return valid(backwards)
            }, location: "entry 2, field \"updatedAt\"", message: "earlier than createdAt"),
        CorruptBackup(
            name: "a missing term",
            text: { words in
                valid(words).replacingOccurrences(of: "\"term\": \"\(words[0].term)\",", with: "")
            }, location: "entry 1, field \"term\"", message: "missing"),
        CorruptBackup(
            name: "tags that are not a list",
            text: { words in
                valid(words).replacingOccurrences(of: "\"tags\": [\"b\"]", with: "\"tags\": \"b\"")
            }, location: "entry 2, field \"tags\"", message: "must be a list of text"),
        CorruptBackup(
            name: "an entry that is not an object",
            text: { words in
                valid(Array(words.prefix(2))).replacingOccurrences(of: "\"wordCount\": 2", with: "\"wordCount\": 3")
                    .replacingOccurrences(of: "\n  ]\n}", with: ",\n    42\n  ]\n}")
            }, location: "entry 3", message: "expected a word object"),
    ]
}

@Suite("Restoring a corrupt backup")
struct CorruptBackupTests {
    /// A library with history: words, Trash, and undo data from an earlier restore.
    private func prepare(_ fixture: TemporaryLibrary) throws -> [Word] {
        let library = fixture.library
        let a = try library.add(WordContent(term: "a", meaning: "alpha")).word
        let b = try library.add(WordContent(term: "b", tags: ["b"])).word
        let c = try library.add(WordContent(term: "c")).word
        try library.delete([c.id])
        try writeBackup([a.edited(at: a.updatedAt.adding(5)) { $0.meaning = "ALPHA" }], to: fixture.file("earlier.json"))
        _ = try library.restoreBackup(from: fixture.file("earlier.json"))
        fixture.clock.advance(by: 1_000)
        // The corrupt file describes the same words, each edited later, so that a restore
        // that slipped through would change the library.
        let later = fixture.clock.now()
        return try [a.id, b.id, c.id].enumerated().map { index, id in
            try #require(try library.word(id)).edited(at: later.adding(Int64(index))) {
                $0.meaning = "from the corrupt file"
            }
        }
    }

    @Test("a corrupt backup is refused, naming the entry and field, and changes nothing", arguments: CorruptBackup.all)
    func corruptBackupChangesNothing(corrupt: CorruptBackup) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let words = try prepare(fixture)
            // The same three words, intact, would be accepted: the fault is the corruption.
            #expect(throws: Never.self) { try BackupFile.decode(Data(CorruptBackup.valid(words).utf8), file: "ok.json") }

            let path = fixture.file("corrupt.json")
            try writeText(corrupt.text(words), to: path)
            let before = try library.snapshot()
            let listBefore = try library.list(), trashBefore = try library.trash()

            for dryRun in [true, false] {
                for replace in [false, true] {
                    let error = #expect(throws: LibraryError.self) {
                        _ = try library.restoreBackup(from: path, replace: replace, dryRun: dryRun)
                    }
                    guard case .invalidBackup(let file, let location, let message) = error else {
                        Issue.record("expected invalidBackup, got \(String(describing: error))")
                        continue
                    }
                    #expect(file == path)
                    if let expected = corrupt.location {
                        #expect(location?.contains(expected) == true, "location: \(String(describing: location))")
                    }
                    #expect(message.contains(corrupt.message), "message: \(message)")
                    #expect(error?.description.hasSuffix("nothing was changed") == true)
                }
            }
            #expect(try library.snapshot() == before)
            #expect(try library.list() == listBefore)
            #expect(try library.trash() == trashBefore)
            #expect(try library.canUndoRestore())
        }
    }

    @Test("a JSON syntax error in the middle of a backup names its line")
    func syntaxErrorNamesLine() throws {
        try withTemporaryLibrary { fixture in
            let words = try prepare(fixture)
            // A doubled comma after the first entry's id.
            var lines = CorruptBackup.valid(words).components(separatedBy: "\n")
            let index = try #require(lines.firstIndex { $0.hasPrefix("      \"id\"") })
            lines[index] += ","
            try writeText(lines.joined(separator: "\n"), to: fixture.file("broken.json"))
            let before = try fixture.library.snapshot()
            let error = #expect(throws: LibraryError.self) {
                _ = try fixture.library.restoreBackup(from: fixture.file("broken.json"))
            }
            guard case .invalidBackup(_, let location, let message) = error else {
                Issue.record("expected invalidBackup, got \(String(describing: error))")
                return
            }
            #expect(message.contains("not valid JSON"))
            #expect(
                location?.hasPrefix("line \(index + 1),") == true,
                "location: \(String(describing: location)), message: \(message)")
            #expect(try fixture.library.snapshot() == before)
        }
    }

    @Test("a backup saved by Windows Notepad (a byte order mark, CRLF line ends) restores as the file it was")
    func savedByNotepad() throws {
        try withTemporaryLibrary { fixture in
            let word = try fixture.library.add(WordContent(term: "ventana", meaning: "window", tags: ["casa"])).word
            try fixture.library.exportBackup(to: fixture.file("backup.json"))
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: fixture.file("backup.json"))), as: UTF8.self)
            try Data(([0xEF, 0xBB, 0xBF] as [UInt8]) + Array(text.replacingOccurrences(of: "\n", with: "\r\n").utf8))
                .write(to: URL(fileURLWithPath: fixture.file("notepad.json")))
            let (other, _) = try fixture.sibling("other.sqlite")
            let report = try other.restoreBackup(from: fixture.file("notepad.json"))
            #expect(report.added == 1)
            #expect(try other.word(word.id) == word)
        }
    }

    @Test("after a refused restore, undo still reverts the last good restore")
    func undoStillWorks() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let words = try prepare(fixture)
            try writeText("{\"format\": \"midiccio-backup\", \"version\": 1, \"words\": [", to: fixture.file("cut.json"))
            #expect(throws: LibraryError.self) { try library.restoreBackup(from: fixture.file("cut.json")) }
            _ = try library.undoRestore()
            #expect(try library.word(words[0].id)?.meaning == "alpha")
        }
    }

    @Test("a missing backup file is a file error that names it")
    func missingFile() throws {
        try withTemporaryLibrary { fixture in
            let path = fixture.file("nowhere.json")
            let error = #expect(throws: LibraryError.self) { try fixture.library.restoreBackup(from: path) }
            guard case .fileError(let errorPath, let reason) = error else {
                Issue.record("expected fileError, got \(String(describing: error))")
                return
            }
            #expect(errorPath == path)
            #expect(reason == "no such file")
        }
    }
}
