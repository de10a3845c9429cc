import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// A Trash page with no term takes its total from the Trash's count that the library keeps,
/// less the entries `trash.hideAfterDays` hides, instead of counting the Trash for each page
/// (issue 12: a million words in the Trash took 44 ms a page). The total must stay the
/// number of entries the pages show, through moves to the Trash, restores, purges and
/// hiding.
@Suite("The Trash page's total stays true")
struct TheTrashPageTotalStaysTrueTests {
    static let day: Int64 = 86_400_000

    /// The total of a Trash page, checked against every entry the pages show; its hidden
    /// count against `hiddenTrashCount()`.
    static func checkedTotal(_ library: WordLibrary, term: String = "", _ comment: Comment) throws -> Int {
        let page = try library.trashPage(term: term, limit: 500)
        #expect(page.total == page.words.count, comment)
        #expect(page.hidden == (try library.hiddenTrashCount()), comment)
        return page.total
    }

    @Test("through deletes, restores, purges and hidden entries, with and without a term")
    func totalFollowsEveryChange() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let ids = try (0..<30).map { try library.add(WordContent(term: "palabra\($0)")).word.id }
            #expect(try Self.checkedTotal(library, "empty") == 0)

            _ = try library.delete(Array(ids[0..<10]))
            fixture.clock.advance(by: 40 * Self.day)
            _ = try library.delete(Array(ids[10..<18]))
            #expect(try Self.checkedTotal(library, "eighteen deleted") == 18)
            #expect(try Self.checkedTotal(library, term: "palabra1", "a term counts its matches") == 9)

            try library.restore([ids[3], ids[12]])
            #expect(try Self.checkedTotal(library, "two restored") == 16)
            _ = try library.purge([ids[4], ids[13]])
            #expect(try Self.checkedTotal(library, "two purged") == 14)

            try library.setSetting(.hideAfterDays, to: "30")
            #expect(try library.hiddenTrashCount() == 8)
            #expect(try Self.checkedTotal(library, "the older ones hidden") == 6)
            #expect(try Self.checkedTotal(library, term: "  ", "a blank term is no term") == 6)

            _ = try library.delete([ids[20]])
            try library.restore([ids[0]])
            #expect(try Self.checkedTotal(library, "one more deleted, one hidden restored") == 7)
            #expect(try library.counts().trash == 14)

            // Asked for, the hidden entries are on the page too (a web page could not show
            // them, and its Empty Trash purged them unseen: round 28A #2).
            let whole = try library.trashPage(limit: 500, includeHidden: true)
            #expect(whole.total == 14 && whole.words.count == 14 && whole.hidden == 0)
            #expect(Set(whole.words.map(\.id)) == Set(try library.trash(includeHidden: true).map(\.id)))
        }
    }
}
