import Foundation
import Testing

@Suite("Searching from the command line")
final class SearchCLITests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.add("don't", "--meaning", "no hacer")
        try sandbox.add("co-op", "--meaning", "cooperativa")
        try sandbox.add("palabra", "--meaning", "word", "--tag", "basics")
    }

    private func terms(_ query: String) throws -> [String] {
        let result = sandbox.run("search", query, "--json")
        try #require(result.status == 0, "search \(query): \(result.errorOutput)")
        return try result.jsonArray().compactMap { $0["term"] as? String }
    }

    @Test(
        "characters that mean something to the search engine are just text",
        arguments: [
            "\"", "'", "(", ")", "*", "^", "{", ":", "AND", "OR", "NOT", "NEAR(a b)", "term:x", "\"unterminated", "   ",
        ])
    func querySyntaxNeverFails(query: String) throws {
        let result = sandbox.run("search", query)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(!result.errorOutput.hasPrefix("Error"))
    }

    @Test(
        "terms with punctuation are found by typing them",
        arguments: [
            ("don't", "don't"), ("co-op", "co-op"), ("co-", "co-op"), ("DON", "don't"),
        ])
    func punctuationInTerms(query: String, term: String) throws {
        #expect(try terms(query).first == term)
    }

    @Test("search looks at meanings and tags too, and --limit caps the results")
    func otherFieldsAndLimit() throws {
        #expect(try terms("cooperat") == ["co-op"])
        #expect(try terms("basics") == ["palabra"])
        for index in 1...5 { try sandbox.add("pala\(index)") }
        #expect(try sandbox.run("search", "pala", "--limit", "3", "--json").jsonArray().count == 3)
    }

    @Test("an exact term comes before terms that only start with the query")
    func exactTermFirst() throws {
        try sandbox.add("palabras", "--meaning", "words")
        try sandbox.add("pal", "--meaning", "mate")
        #expect(try terms("pal").first == "pal")
        #expect(try terms("palabra").prefix(2) == ["palabra", "palabras"])
    }
}
