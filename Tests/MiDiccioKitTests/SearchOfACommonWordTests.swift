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
}
