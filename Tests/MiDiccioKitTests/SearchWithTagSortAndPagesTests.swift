import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// Search as the web app and `midiccio search` do it (issue 13): the query, a tag and an
/// order in one statement, every match counted, and pages past any limit.
@Suite("Search finds, counts and pages every match, with a tag and an order")
struct SearchWithTagSortAndPagesTests {
    /// `count` words whose meaning holds "mean", every tenth tagged "verbs"; then "mean"
    /// itself as a term.
    static func fill(_ library: WordLibrary, _ clock: ManualClock, count: Int) throws {
        for index in 0..<count {
            try library.add(
                WordContent(term: "w\(index)", meaning: "what they mean number \(index)", tags: index % 10 == 9 ? ["verbs"] : []))
            clock.advance(by: 1)
        }
    }

    @Test("the total counts every match, not the first page, and pages reach the last match")
    func totalAndPages() throws {
        try withTemporaryLibrary { temporary in
            try Self.fill(temporary.library, temporary.clock, count: 293)
            let first = try temporary.library.find(SearchRequest(query: "mean", limit: 200))
            #expect(first.total == 293)
            #expect(first.words.count == 200)
            #expect(first.hasMore)
            let second = try temporary.library.find(SearchRequest(query: "mean", limit: 200, offset: 200))
            #expect(second.words.count == 93)
            #expect(!second.hasMore)
            #expect(second.total == 293)
            let all = Set((first.words + second.words).map(\.term))
            #expect(all.count == 293)
            let past = try temporary.library.find(SearchRequest(query: "mean", limit: 10, offset: 500))
            #expect(past.words.isEmpty && past.total == 293 && !past.hasMore)
        }
    }

    @Test("a tag filters before paging: a tagged word ranked 250th is on the first page")
    func tagBeforePaging() throws {
        try withTemporaryLibrary { temporary in
            for index in 0..<300 {
                try temporary.library.add(WordContent(term: "w\(index)", meaning: "mean", tags: index == 49 ? ["rare"] : []))
                temporary.clock.advance(by: 1)
            }
            // Newest first among equal scores: w49 is ranked 251st without the tag.
            let page = try temporary.library.find(SearchRequest(query: "mean", tag: "RARE", limit: 20))
            #expect(page.words.map(\.term) == ["w49"])
            #expect(page.total == 1)
            let prefixed = try temporary.library.find(SearchRequest(query: "mean tag:rare", limit: 20))
            #expect(prefixed.words.map(\.term) == ["w49"])
        }
    }

    @Test("an exact term comes first by relevance; a sort orders every match instead")
    func relevanceAndSort() throws {
        try withTemporaryLibrary { temporary in
            try Self.fill(temporary.library, temporary.clock, count: 30)
            try temporary.library.add(WordContent(term: "zeta", meaning: "a mean letter"))
            temporary.clock.advance(by: 1)
            try temporary.library.add(WordContent(term: "Mean", meaning: "average"))
            let ranked = try temporary.library.find(SearchRequest(query: "mean", limit: 5))
            #expect(ranked.words.first?.term == "Mean")
            let byTerm = try temporary.library.find(SearchRequest(query: "mean", sort: .term, limit: 100))
            #expect(byTerm.words.first?.term == "a mean letter" || byTerm.words.first?.term == "Mean")
            #expect(byTerm.words.last?.term == "zeta")
            #expect(byTerm.total == 32)
            let newest = try temporary.library.find(SearchRequest(query: "mean", sort: .updated, limit: 2))
            #expect(newest.words.map(\.term) == ["Mean", "zeta"])
        }
    }

    @Test("field prefixes: meaning: looks in the meaning only, -tag: leaves a tag out, tag: alone lists a tag")
    func prefixes() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            try library.add(WordContent(term: "casa", meaning: "house", tags: ["nouns"]))
            try library.add(WordContent(term: "house", meaning: "casa", tags: ["english"]))
            try library.add(WordContent(term: "hogar", meaning: "home, house", tags: ["nouns", "done"]))
            #expect(Set(try library.find(SearchRequest(query: "meaning:house")).words.map(\.term)) == ["casa", "hogar"])
            #expect(try library.find(SearchRequest(query: "meaning:house -tag:done")).words.map(\.term) == ["casa"])
            #expect(Set(try library.find(SearchRequest(query: "tag:nouns")).words.map(\.term)) == ["casa", "hogar"])
            #expect(try library.find(SearchRequest(query: "house term:house")).words.map(\.term) == ["house"])
            #expect(try library.find(SearchRequest(query: "-tag:nouns -tag:english")).total == 0)
            #expect(try library.find(SearchRequest(query: "meaning:\"home house\"")).words.map(\.term) == ["hogar"])
        }
    }

    @Test(
        "the query's prefixes are read out of what was typed",
        arguments: [
            ("tag:verbs pal", "pal", ["verbs"], [String](), 0),
            ("-tag:done meaning:house", "", [], ["done"], 1),
            ("foo:bar -x", "foo:bar -x", [], [], 0),
            ("notes:\"two words\"", "", [], [], 1),
        ])
    func parsing(typed: String, text: String, tags: [String], excluded: [String], fields: Int) {
        let query = SearchQuery(parsing: typed)
        #expect(query.text == text)
        #expect(query.tags == tags)
        #expect(query.excludedTags == excluded)
        #expect(query.fields.count == fields)
    }
}
