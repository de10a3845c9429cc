import Foundation
import Testing

/// `midiccio search --tag --sort --limit --offset`, meaning what they mean in the web app.
@Suite("Searching from the command line with a tag, an order and pages")
final class SearchWithTagSortAndPagesCLITests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.add("casa", "--meaning", "house", "--tag", "nouns")
        try sandbox.add("hogar", "--meaning", "home, house", "--tag", "nouns", "--tag", "done")
        try sandbox.add("house", "--meaning", "casa", "--tag", "english")
    }

    private func terms(_ arguments: String...) throws -> [String] {
        let result = sandbox.run(["search"] + arguments + ["--json"])
        try #require(result.status == 0, "search \(arguments): \(result.errorOutput)")
        return try result.jsonArray().compactMap { $0["term"] as? String }
    }

    @Test("--tag and --sort term filter and order every match")
    func tagAndSort() throws {
        #expect(try terms("house", "--tag", "NOUNS", "--sort", "term") == ["casa", "hogar"])
        #expect(try terms("house", "--sort", "term") == ["casa", "hogar", "house"])
    }

    @Test("prefixes in the query: meaning:, -tag:, tag:")
    func prefixes() throws {
        #expect(try terms("meaning:house -tag:done") == ["casa"])
        #expect(try terms("tag:english") == ["house"])
    }

    @Test("--limit and --offset page, and stderr says where the next page starts")
    func pages() throws {
        let first = sandbox.run("search", "house", "--sort", "term", "--limit", "2")
        #expect(first.status == 0)
        #expect(first.errorOutput.contains("of 3"))
        #expect(first.errorOutput.contains("--offset 2"))
        #expect(try terms("house", "--sort", "term", "--limit", "2", "--offset", "2") == ["house"])
        #expect(sandbox.run("search", "house", "--sort", "sideways").status == 64)
    }

    @Test("an --offset past the last match says how many there are and where the last page starts")
    func pastTheLastMatch() throws {
        let past = sandbox.run("search", "house", "--limit", "2", "--offset", "50")
        #expect(past.status == 0)
        #expect(past.output.isEmpty)
        #expect(
            past.errorOutput.contains("No matches past --offset 50: \"house\" has 3 (the last page: --offset 1)."), "\(past.errorOutput)")
        let none = sandbox.run("search", "zzz", "--offset", "5")
        #expect(none.errorOutput.contains("Nothing matches \"zzz\"."), "\(none.errorOutput)")
    }
}
