import Foundation
import Testing

@Suite("--json output for scripts")
final class JSONOutputTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    static let wordKeys: Set<String> = [
        "id", "term", "meaning", "reading", "examples", "notes", "tags", "createdAt", "updatedAt", "deletedAt",
    ]

    /// `2026-11-29T10:00:00.123Z`: ISO 8601 UTC with exactly three fractional digits.
    static func isTime(_ value: Any?) -> Bool {
        guard let text = value as? String else { return false }
        return text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil
    }

    /// Checks that `word` has exactly the word fields, each of the right JSON type.
    static func expectWordShape(
        _ word: [String: Any], inTrash: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(Set(word.keys) == wordKeys, sourceLocation: sourceLocation)
        for key in ["id", "term", "meaning", "reading", "notes"] {
            #expect(word[key] is String, "\(key) is not a string", sourceLocation: sourceLocation)
        }
        #expect(word["examples"] is [String], sourceLocation: sourceLocation)
        #expect(word["tags"] is [String], sourceLocation: sourceLocation)
        #expect(isTime(word["createdAt"]), "createdAt: \(String(describing: word["createdAt"]))", sourceLocation: sourceLocation)
        #expect(isTime(word["updatedAt"]), "updatedAt: \(String(describing: word["updatedAt"]))", sourceLocation: sourceLocation)
        if inTrash {
            #expect(isTime(word["deletedAt"]), "deletedAt: \(String(describing: word["deletedAt"]))", sourceLocation: sourceLocation)
        } else {
            #expect(word["deletedAt"] is NSNull, "deletedAt should be null", sourceLocation: sourceLocation)
        }
    }

    @Test("add --json prints the new word as an object with exactly the word's fields")
    func addPrintsObject() throws {
        let result = sandbox.run(
            "add", "palabra", "--meaning", "word", "--reading", "pa-LA-bra",
            "--example", "Una palabra.", "--example", "Dos palabras.",
            "--notes", "from Latin", "--tag", "spanish", "--tag", "A1", "--json")
        #expect(result.status == 0)
        #expect(result.errorOutput.isEmpty)
        let word = try result.jsonObject()
        Self.expectWordShape(word)
        #expect(word["term"] as? String == "palabra")
        #expect(word["meaning"] as? String == "word")
        #expect(word["reading"] as? String == "pa-LA-bra")
        #expect(word["examples"] as? [String] == ["Una palabra.", "Dos palabras."])
        #expect(word["notes"] as? String == "from Latin")
        #expect(word["tags"] as? [String] == ["spanish", "A1"])
        #expect(word["createdAt"] as? String == word["updatedAt"] as? String)
        let id = try #require(word["id"] as? String)
        #expect(id.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil, "id \(id)")
    }

    @Test("show and edit --json print one object; it is the same word add printed")
    func showAndEditPrintObjects() throws {
        let added = try sandbox.run("add", "gato", "--json").jsonObject()
        let id = try #require(added["id"] as? String)

        var shown = try sandbox.run("show", id, "--json").jsonObject()
        // show adds the word's study schedule (issue 15) to the word's own fields.
        #expect((shown.removeValue(forKey: "study") as? [String: Any])?["state"] as? String == "new")
        Self.expectWordShape(shown)
        #expect(NSDictionary(dictionary: shown) == NSDictionary(dictionary: added))

        let edited = try sandbox.run("edit", id, "--meaning", "cat", "--json").jsonObject()
        Self.expectWordShape(edited)
        #expect(edited["meaning"] as? String == "cat")
        #expect(edited["createdAt"] as? String == added["createdAt"] as? String)
        let before = try #require(added["updatedAt"] as? String)
        let after = try #require(edited["updatedAt"] as? String)
        #expect(after > before)
    }

    @Test(
        "list, search, delete, trash and restore --json print arrays of word objects",
        arguments: [["list"], ["list", "--sort", "term"], ["search", "casa"]])
    func listsPrintArrays(arguments: [String]) throws {
        try sandbox.add("casa", "--meaning", "house")
        try sandbox.add("casas", "--meaning", "houses")
        let words = try sandbox.run(arguments + ["--json"]).jsonArray()
        #expect(words.count == 2)
        for word in words { Self.expectWordShape(word) }
    }

    @Test("delete, trash and restore --json print arrays; words in the Trash carry a deletedAt time")
    func trashRoundTripArrays() throws {
        let id = try sandbox.add("perro")

        let deleted = try sandbox.run("delete", id, "--json").jsonArray()
        #expect(deleted.count == 1)
        Self.expectWordShape(deleted[0], inTrash: true)

        let trash = try sandbox.run("trash", "--json").jsonArray()
        #expect(trash.count == 1)
        Self.expectWordShape(trash[0], inTrash: true)
        #expect(trash[0]["id"] as? String == id)

        let restored = try sandbox.run("restore", id, "--json").jsonArray()
        #expect(restored.count == 1)
        Self.expectWordShape(restored[0])
    }

    @Test("an empty list is an empty JSON array, not a message", arguments: [["list"], ["trash"], ["search", "nada"], ["tags"]])
    func emptyListIsEmptyArray(arguments: [String]) throws {
        let result = sandbox.run(arguments + ["--json"])
        #expect(result.status == 0)
        let value = try result.parsedJSON() as? [Any]
        #expect(value?.isEmpty == true, "got \(result.output)")
    }

    @Test("tags --json prints each tag with its count")
    func tagsJSON() throws {
        try sandbox.add("uno", "--tag", "numbers", "--tag", "es")
        try sandbox.add("dos", "--tag", "numbers")
        let tags = try sandbox.run("tags", "--json").jsonArray()
        #expect(tags.count == 2)
        for tag in tags { #expect(Set(tag.keys) == ["tag", "count"]) }
        #expect(tags.first?["tag"] as? String == "numbers")
        #expect(tags.first?["count"] as? Int == 2)
    }

    @Test("awkward text comes back unchanged through JSON: quotes, backslashes, control characters, emoji")
    func awkwardTextSurvivesJSON() throws {
        let term = "say \"hi\" \\ 👋🏽"
        let notes = "line one\nline\ttwo\r\n\u{1}\u{7F} \u{2028} end"
        let id = try sandbox.add(term, "--notes", notes)
        let word = try sandbox.run("show", id, "--json").jsonObject()
        #expect(word["term"] as? String == term)
        #expect(Array((word["notes"] as? String ?? "").unicodeScalars) == Array(notes.unicodeScalars))
    }

    @Test("warnings never mix into --json output")
    func warningsStayOnStderr() throws {
        try sandbox.add("casa")
        let result = sandbox.run("add", "casa", "--json")
        #expect(result.status == 0)
        #expect(!result.errorOutput.isEmpty)
        Self.expectWordShape(try result.jsonObject())
    }

    @Test("backup restore and import --json print their counts as objects")
    func countsAsJSON() throws {
        try sandbox.add("uno")
        sandbox.run("backup", "export", sandbox.path("backup.json"))
        let restore = try sandbox.run("backup", "restore", sandbox.path("backup.json"), "--dry-run", "--json").jsonObject()
        #expect(restore["unchanged"] as? Int == 1)
        #expect(restore["added"] as? Int == 0)
        #expect(restore["dryRun"] as? Bool == true)

        let file = try sandbox.write("term,meaning\ndos,two\ntres,three\n", to: "words.csv")
        let imported = try sandbox.run("import", file, "--json").jsonObject()
        #expect(imported["added"] as? Int == 2)
    }
}
