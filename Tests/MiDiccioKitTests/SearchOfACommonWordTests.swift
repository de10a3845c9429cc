import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// A word typed into search that matches very many words (issue 12: p99 ≤ 10 ms at a
/// million words): every match is ranked up to `WordLibrary.rankedMatches`; past that,
/// the newest that many are, while terms holding the query are always all ranked.
@Suite("Search for a common word stays fast and finds the words that matter")
struct SearchOfACommonWordTests {
    /// A library with `count` words whose meaning holds "agua" once, added after `first`.
    static func library(_ directory: URL, first: [WordContent], common count: Int) throws -> WordLibrary {
        let library = try WordLibrary(path: directory.appendingPathComponent("library.sqlite").path, environment: [:])
        for content in first { try library.add(content) }
        let path = directory.appendingPathComponent("common.tsv").path
        let rows = (0..<count).map { "comun\($0)\tun poco de agua y mucho de otra cosa número \($0)" }
        try Data(("term\tmeaning\n" + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        _ = try library.importWords(from: path)
        return library
    }

    @Test("below the cap every match is ranked: the best match comes first however old it is")
    func belowTheCapAllAreRanked() throws {
        try withTemporaryDirectory { directory in
            let best = WordContent(term: "viejo", meaning: "agua agua agua")
            let library = try Self.library(directory, first: [best], common: WordLibrary.rankedMatches / 2)
            #expect(try library.search("agua").first?.term == "viejo")
        }
    }

    @Test("above the cap, the newest matches are ranked, and a term holding the word is still found")
    func aboveTheCapNewestAreRanked() throws {
        try withTemporaryDirectory { directory in
            let old = [
                WordContent(term: "viejo", meaning: "agua agua agua"),
                WordContent(term: "río de agua dulce", meaning: "river"),
            ]
            let library = try Self.library(directory, first: old, common: WordLibrary.rankedMatches + 50)
            let found = try library.search("agua", limit: 20)
            #expect(found.count == 20)
            // The term that holds the word comes first, old as it is.
            #expect(found.first?.term == "río de agua dulce")
            // The oldest meaning match is past the cap: the newest matches fill the page.
            #expect(!found.contains { $0.term == "viejo" })
            let newest = Set((WordLibrary.rankedMatches - 450..<WordLibrary.rankedMatches + 50).map { "comun\($0)" })
            #expect(found.dropFirst().allSatisfy { newest.contains($0.term) })
        }
    }

    @Test(
        "below the cap, several words and field prefixes are ranked exactly as SQLite's bm25() ranks them",
        arguments: ["agua fría", "agu fr", "agua meaning:fría", "notes:fría agua"])
    func belowTheCapIsBM25(query: String) throws {
        try withTemporaryDirectory { directory in
            let library = try WordLibrary(path: directory.appendingPathComponent("library.sqlite").path, environment: [:])
            var random = SeededGenerator(seed: 7)
            let fillers = ["casa", "perro", "libro", "mesa", "sol", "luna"]
            for index in 0..<120 {
                // Each word a different number of each query word, in different fields and
                // lengths, so the two words' weights (their IDF) decide between them.
                func text(_ words: [String]) -> String {
                    (words + (0..<Int(random.next() % 6)).map { _ in fillers[Int(random.next() % 6)] }).shuffled(using: &random)
                        .joined(separator: " ")
                }
                let agua = Array(repeating: "agua", count: 1 + Int(random.next() % 3))
                let fria = Array(repeating: "fría", count: Int(random.next() % 3))
                try library.add(
                    WordContent(
                        term: "w\(index)", meaning: text(agua + (index % 4 == 0 ? [] : fria)),
                        examples: [text(index % 5 == 0 ? ["agua"] : [])], notes: text(index % 3 == 0 ? ["fría"] : [])))
            }
            let (_, values) = SearchPlan(query: SearchQuery(parsing: query), tag: nil).fullTextFilter
            let expected = try library.database.prepare(
                """
                SELECT (SELECT id FROM words WHERE seq = m.rowid) FROM
                    (SELECT rowid, bm25(words_fts, \(SearchRanking.bm25Weights)) AS score FROM words_fts WHERE words_fts MATCH ?) m
                ORDER BY m.score, m.rowid DESC
                """
            ).rows([values[0]]) { $0.text(0) }
            #expect(expected.count > 20 && expected.count < WordLibrary.rankedMatches)
            let found = try library.find(SearchRequest(query: query, limit: 1000)).words.map(\.id.rawValue)
            #expect(found == expected)
        }
    }
}
