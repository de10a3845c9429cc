import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore

/// Defects found while reading the library's code, each with the test that would have
/// caught it.
@Suite("Small library defects that stay fixed")
struct LibraryDefectTests {
    @Test("an upper-case Z in a plain ASCII term folds for search and for duplicates", arguments: ["ZORRO", "Zorro", "zorro"])
    func upperCaseZFolds(query: String) throws {
        try withTemporaryLibrary { fixture in
            try fixture.library.add(WordContent(term: "zorro", meaning: "fox"))
            #expect(TermKey.fold("ZORRO") == "zorro")
            #expect(try fixture.library.search(query).map(\.term) == ["zorro"])
            #expect(try fixture.library.duplicates(of: query).map(\.term) == ["zorro"])
            let added = try fixture.library.add(WordContent(term: "ZORRO"))
            #expect(added.duplicates.map(\.term) == ["zorro"])
        }
    }

    @Test("500 different pages of the list leave a bounded number of prepared statements")
    func statementCacheIsBounded() throws {
        try withTemporaryLibrary { fixture in
            for index in 0..<30 { try fixture.library.add(WordContent(term: "palabra \(index)")) }
            for offset in 0..<500 {
                _ = try fixture.library.list(ListQuery(sort: ListSort.allCases[offset % 3], limit: 1 + offset % 7, offset: offset))
            }
            #expect(fixture.library.database.cachedStatementCount <= Database.statementCacheLimit)
            // Paging with bound values uses one statement per order, whatever the page.
            let before = fixture.library.database.cachedStatementCount
            _ = try fixture.library.list(ListQuery(limit: 3, offset: 9_999))
            #expect(fixture.library.database.cachedStatementCount == before)
        }
    }

    @Test("a word whose stored id is not a UUID is reported as damage, never read as another id")
    func damagedIDIsReported() throws {
        try withTemporaryLibrary { fixture in
            let id = try fixture.library.add(WordContent(term: "palabra")).word.id
            try fixture.library.writing {
                try fixture.library.database.run("UPDATE words SET id = 'not-a-uuid' WHERE id = ?", [.text(id.rawValue)])
            }
            let error = #expect(throws: LibraryError.self) { try fixture.library.list() }
            #expect(error.map { "\($0)" }?.contains("not-a-uuid") == true, "\(String(describing: error))")
            #expect(error.map { "\($0)" }?.contains("is not a UUID") == true)
        }
    }

    @Test("the library file itself is refused as a backup to restore or a file to import, without being opened")
    func libraryIsNotItsOwnInput() throws {
        try withTemporaryLibrary { fixture in
            try fixture.library.add(WordContent(term: "palabra"))
            let restore = #expect(throws: LibraryError.self) { try fixture.library.restoreBackup(from: fixture.library.path) }
            #expect(restore.map { "\($0)" }?.contains("is the library itself") == true)
            let imported = #expect(throws: LibraryError.self) { try fixture.library.importSheet(from: fixture.library.path) }
            #expect(imported.map { "\($0)" }?.contains("is the library itself") == true)
            #expect(try fixture.library.counts().words == 1)
        }
    }
}
