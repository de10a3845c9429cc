import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// An import makes its random ids first and hands them out in sorted order, so each new
/// entry of the unique id index lands after the last (issue 12): at a million words,
/// random places in that index were most of an import's time. The ids stay random and
/// unique; only their order follows the rows.
@Suite("An import hands out its random ids in the order of its rows")
struct ImportedWordsGetSortedIDsTests {
    @Test("ids rise with the rows of one import, and the undo covers exactly its words")
    func idsRiseWithRows() throws {
        try withTemporaryDirectory { directory in
            let library = try WordLibrary(path: directory.appendingPathComponent("library.sqlite").path, environment: [:])
            _ = try library.add(WordContent(term: "antes", meaning: "before"))
            let path = directory.appendingPathComponent("words.tsv").path
            let rows = (0..<500).map { "palabra\($0)\tword \($0)" }
            try Data(("term\tmeaning\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
            #expect(try library.importWords(from: path).added == 500)

            let imported = try library.database.prepare("SELECT id, term FROM words WHERE term LIKE 'palabra%' ORDER BY seq")
                .rows { (id: $0.text(0), term: $0.text(1)) }
            #expect(imported.map(\.term) == (0..<500).map { "palabra\($0)" })
            #expect(imported.map(\.id) == imported.map(\.id).sorted())
            #expect(Set(imported.map(\.id)).count == 500)
            #expect(imported.allSatisfy { WordID($0.id) != nil })
            #expect(try library.undoImport().trashed == 500)
            #expect(try library.list().map(\.term) == ["antes"])
        }
    }
}
