import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioKit

/// A search of an emoji or of punctuation alone (`🐱`, `%`, `.`) holds no word for the
/// search index. The page of matches then took it for no search and listed every word,
/// while the count found the terms starting with it (3 matches); "select all 3 matches"
/// then moved every word of the library to the Trash (found in a browser). The page, the
/// count and a bulk action on all matches now take the same words: the terms starting
/// with what was typed.
@Suite("A search without letters matches only the terms starting with it, everywhere")
struct ASearchWithoutLettersMatchesOnlyItsTermsTests {
    @Test("the page, the count and a bulk action on all matches agree", arguments: ["🐱", "🐱 ", "%", ".", "-", "tag:animal 🐱"])
    func pageCountAndBulkAgree(_ query: String) throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            for term in ["🐱 gato", "🐱 tigre", "🐱 león"] {
                try library.add(WordContent(term: term, meaning: "a cat", tags: ["animal"]))
            }
            for index in 0..<20 { try library.add(WordContent(term: "palabra\(index)", meaning: "a word", tags: ["animal"])) }
            let cats = query.contains("🐱")

            for sort in [nil] + ListSort.allCases.map(Optional.some) {
                let page = try library.find(SearchRequest(query: query, sort: sort, limit: 50))
                #expect(page.words.count == (cats ? 3 : 0), "sort \(String(describing: sort))")
                #expect(page.total == page.words.count)
                #expect(page.words.allSatisfy { $0.term.hasPrefix("🐱") })
            }
            #expect(try library.countMatches(query: query) == (cats ? 3 : 0))

            if cats {
                let result = try library.moveToTrash(.matches(query: query, tag: nil))
                #expect(result.changed == 3)
                #expect(try library.counts().words == 20, "the other words stay")
            } else {
                let result = try library.addTag("marked", to: .matches(query: query, tag: nil))
                #expect(result.changed == 0)
                #expect(try library.tagCount("marked") == 0)
            }
        }
    }

    @Test("a search of tags alone still lists every word carrying them")
    func tagsAloneStillList() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            try library.add(WordContent(term: "gato", meaning: "cat", tags: ["animal"]))
            try library.add(WordContent(term: "mesa", meaning: "table"))
            let page = try library.find(SearchRequest(query: "tag:animal", limit: 50))
            #expect(page.words.map(\.term) == ["gato"])
            #expect(try library.countMatches(query: "tag:animal") == 1)
            #expect(try library.find(SearchRequest(query: "", limit: 50)).total == 2)
        }
    }
}
