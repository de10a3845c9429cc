import Foundation
import MiDiccioKit
import Testing

@Suite("Words chosen by id or id prefix")
final class IDPrefixCLITests {
    let sandbox: Sandbox

    static let uno = "abcdef01-0000-4000-8000-000000000001"
    static let dos = "abcdef02-0000-4000-8000-000000000002"
    static let tres = "12345678-0000-4000-8000-000000000003"

    /// A library whose first two words share the prefix "abcdef", made through the
    /// library API with a fixed id generator (random ids would need thousands of words).
    init() throws {
        sandbox = try Sandbox()
        var ids = [Self.uno, Self.dos, Self.tres].compactMap { WordID($0) }
        let library = try WordLibrary(
            path: sandbox.libraryPath, environment: sandbox.environment,
            makeID: { ids.removeFirst() })
        for term in ["uno", "dos", "tres"] {
            try library.add(WordContent(term: term))
        }
    }

    private func term(shownFor id: String) throws -> String? {
        let result = sandbox.run("show", id, "--json")
        try #require(result.status == 0, "show \(id): \(result.errorOutput)")
        return try result.jsonObject()["term"] as? String
    }

    @Test(
        "the full id, in any case, selects the word",
        arguments: [
            (IDPrefixCLITests.uno, "uno"), (IDPrefixCLITests.dos, "dos"), (IDPrefixCLITests.tres.uppercased(), "tres"),
        ])
    func fullID(id: String, term: String) throws {
        #expect(try self.term(shownFor: id) == term)
    }

    @Test(
        "a unique prefix of six or more characters selects the word",
        arguments: [
            ("123456", "tres"), ("1234567", "tres"), ("abcdef01", "uno"), ("ABCDEF02", "dos"), ("abcdef01-0000", "uno"),
        ])
    func uniquePrefix(prefix: String, term: String) throws {
        #expect(try self.term(shownFor: prefix) == term)
    }

    @Test(
        "a prefix shorter than six characters is refused, even when it is unique",
        arguments: [["show", "12345"], ["edit", "12345", "--notes", "n"], ["delete", "12345"], ["show", "1"]])
    func shortPrefixRefused(arguments: [String]) throws {
        let result = sandbox.run(arguments)
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errorOutput.hasPrefix("Error: "))
        #expect(result.errorOutput.contains("at least 6"), "\(result.errorOutput)")
        #expect(try sandbox.listedTerms() == ["dos", "tres", "uno"])
    }

    @Test("an ambiguous prefix is an error that lists every candidate's id and term")
    func ambiguousPrefixListsCandidates() {
        let result = sandbox.run("show", "abcdef")
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errorOutput.hasPrefix("Error: "))
        #expect(result.errorOutput.contains("\(Self.uno)  uno"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("\(Self.dos)  dos"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains(Self.tres))
    }

    @Test(
        "an ambiguous prefix changes nothing",
        arguments: [
            ["delete", "abcdef"], ["edit", "abcdef", "--meaning", "x"], ["delete", "123456", "abcdef"],
        ])
    func ambiguousPrefixChangesNothing(arguments: [String]) throws {
        let before = sandbox.run("list", "--json").output
        let result = sandbox.run(arguments)
        #expect(result.status == 1)
        #expect(sandbox.run("list", "--json").output == before)
        #expect(try sandbox.run("trash", "--json").jsonArray().isEmpty)
    }

    @Test("a prefix that matches no word says so")
    func unknownPrefix() {
        let result = sandbox.run("show", "fedcba")
        #expect(result.status == 1)
        #expect(result.errorOutput.hasPrefix("Error: no word with id fedcba"), "\(result.errorOutput)")
    }

    @Test("delete and restore pick the one candidate that can be deleted or restored")
    func trashStateNarrowsCandidates() throws {
        #expect(sandbox.run("delete", Self.uno).status == 0)

        let delete = sandbox.run("delete", "abcdef", "--json")
        #expect(delete.status == 0, "\(delete.errorOutput)")
        #expect(try delete.jsonArray().first?["id"] as? String == Self.dos)

        #expect(sandbox.run("restore", Self.dos).status == 0)
        let restore = sandbox.run("restore", "abcdef", "--json")
        #expect(restore.status == 0, "\(restore.errorOutput)")
        #expect(try restore.jsonArray().first?["id"] as? String == Self.uno)
        #expect(try sandbox.listedTerms() == ["dos", "tres", "uno"])
    }
}
