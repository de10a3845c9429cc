import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// A search ranked by relevance reads its page one tier at a time and counts apart. These
/// tests hold it to what one long page says: pages of any size add up to it, the total is
/// its length, and it holds the same words as the search in any other order.
@Suite("Search pages add up to the whole result, whatever the page size")
struct SearchPagesAddUpToTheWholeResultTests {
    /// 700 words (more than are ranked by BM25, so unranked matches follow) whose terms and meanings share a few syllables, so queries match
    /// in the term (exactly, at its start, inside it) and in other fields, some tagged.
    static func fill(_ temporary: TemporaryLibrary) throws {
        var random = SeededGenerator(seed: 13)
        let syllables = ["ca", "sa", "me", "co", "la", "mi", "to", "ré", "ño"]
        func word(_ count: Int) -> String {
            (0..<count).map { _ in syllables[Int(random.next() % UInt64(syllables.count))] }.joined()
        }
        for index in 0..<700 {
            let term = index % 50 == 0 ? "casa" : index % 7 == 0 ? "la \(word(2))" : word(1 + Int(random.next() % 3))
            let meaning = (0..<3).map { _ in word(2) }.joined(separator: " ")
            let tags = ["t\(random.next() % 3)"] + (index % 5 == 0 ? ["verbs"] : [])
            let notes = index % 3 == 0 ? "casa" : ""
            try temporary.library.add(
                WordContent(term: term, meaning: meaning, examples: ["ejemplo \(index)"], notes: notes, tags: tags))
            temporary.clock.advance(by: 1)
        }
    }

    static let queries = [
        "c", "ca", "casa", "cas", "la ca", "me", "meca", "ca tag:verbs", "co -tag:t1", "meaning:ca", "notes:casa",
        "meaning:sa tag:t2", "ca term:ca", "re", "nothing here", "ejemplo", "ejemplo -tag:t0",
    ]

    @Test("pages of 7 and of 50 are the one long page cut up, each with the same total, counted or not")
    func pagesAddUp() throws {
        try withTemporaryLibrary { temporary in
            try Self.fill(temporary)
            for query in Self.queries {
                let whole = try temporary.library.find(SearchRequest(query: query, limit: 100_000))
                let total = try #require(whole.total)
                #expect(total == whole.words.count, "\(query)")
                #expect(try temporary.library.countMatches(query: query) == total, "\(query)")
                #expect(Set(whole.words.map(\.id)).count == whole.words.count, "\(query): a word is listed twice")
                for size in [7, 50] {
                    var paged: [Word] = []
                    var offset = 0
                    while true {
                        let page = try temporary.library.find(SearchRequest(query: query, limit: size, offset: offset))
                        #expect(page.total == total, "\(query) at \(offset)")
                        // Uncounted, as the web app asks while someone types: the same page.
                        let uncounted = try temporary.library.find(
                            SearchRequest(query: query, limit: size, offset: offset, counted: false))
                        #expect(uncounted.total == nil)
                        #expect(uncounted.words.map(\.id) == page.words.map(\.id), "\(query) at \(offset), uncounted")
                        #expect(uncounted.hasMore == page.hasMore, "\(query) at \(offset), uncounted")
                        paged += page.words
                        offset += size
                        #expect(page.hasMore == (offset < total), "\(query) at \(offset)")
                        if !page.hasMore || page.words.isEmpty { break }
                    }
                    #expect(paged.map(\.id) == whole.words.map(\.id), "\(query), pages of \(size)")
                }
            }
        }
    }

    @Test("ranked and sorted, a search finds the same words; the exact term, then terms starting with the query come first")
    func sameWordsAndTiers() throws {
        try withTemporaryLibrary { temporary in
            try Self.fill(temporary)
            for query in Self.queries {
                let ranked = try temporary.library.find(SearchRequest(query: query, limit: 100_000))
                let sorted = try temporary.library.find(SearchRequest(query: query, sort: .updated, limit: 100_000))
                #expect(Set(ranked.words.map(\.id)) == Set(sorted.words.map(\.id)), "\(query)")
                #expect(ranked.total == sorted.total, "\(query)")
                let byTerm = try temporary.library.find(SearchRequest(query: query, sort: .term, limit: 100_000, counted: false))
                #expect(byTerm.words.map(\.id).sorted() == sorted.words.map(\.id).sorted(), "\(query), by term")
                let free = SearchQuery(parsing: query).text
                guard !free.isEmpty else { continue }
                let key = TermKey.fold(free)
                let tiers = ranked.words.map { word -> Int in
                    let termKey = TermKey.fold(word.term)
                    return termKey == key ? 0 : termKey.hasPrefix(key) ? 1 : 2
                }
                #expect(tiers == tiers.sorted(), "\(query): tiers out of order")
                let starting = ranked.words.map { TermKey.fold($0.term) }.filter { $0 != key && $0.hasPrefix(key) }
                #expect(starting == starting.sorted(), "\(query): terms starting with it are not in term order")
            }
            #expect(try temporary.library.find(SearchRequest(query: "ejemplo", limit: 5)).total == 700)
        }
    }
}
