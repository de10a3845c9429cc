import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioKit

/// A MiDiccio backup given to import (an easy slip: both are "bring words in") was read as
/// a list without a header, and every line of its JSON became a word: 21 words of braces
/// and quotes from a backup of one word (found in a browser and by hand). A JSON file is
/// now refused, and a backup is pointed to restore.
@Suite("A JSON file is not imported as a list")
struct AJSONFileIsNotImportedAsAListTests {
    @Test("a MiDiccio backup is refused and pointed to restore; nothing is imported")
    func backupPointedToRestore() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.add(WordContent(term: "casa", meaning: "house"))
            let backup = fixture.file("backup.json")
            _ = try library.exportBackup(to: backup)
            let error = #expect(throws: LibraryError.self) { try library.importWords(from: backup) }
            let message = error?.description ?? ""
            #expect(message.contains("a MiDiccio backup, which is restored, not imported"), "\(message)")
            #expect(message.contains("midiccio backup restore"))
            #expect(try library.counts().words == 1)
        }
    }

    @Test(
        "other JSON is refused, naming what is read",
        arguments: ["[{\"term\": \"casa\"}]\n", "{\n  \"words\": []\n}\n", "\u{FEFF}  [\n1]\n"])
    func otherJSON(_ text: String) throws {
        try withTemporaryLibrary { fixture in
            let file = fixture.file("words.json")
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            let error = #expect(throws: LibraryError.self) { try fixture.library.importWords(from: file) }
            #expect(error?.description.contains("a JSON file") == true, "\(String(describing: error))")
            #expect(try fixture.library.counts().words == 0)
        }
    }

    @Test("a list whose first term starts with a brace or a bracket is still a list")
    func bracesInTerms() throws {
        try withTemporaryLibrary { fixture in
            let file = fixture.file("words.tsv")
            try "{sic}\tthus\n[nota]\tnote\n".write(toFile: file, atomically: true, encoding: .utf8)
            let report = try fixture.library.importWords(from: file)
            #expect(report.added == 2)
        }
    }
}
