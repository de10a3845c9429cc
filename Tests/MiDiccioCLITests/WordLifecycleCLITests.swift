import Foundation
import Testing

@Suite("A word's life: add, edit, show, delete, Trash, restore")
final class WordLifecycleCLITests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private func shown(_ id: String) throws -> [String: Any] {
        let result = sandbox.run("show", id, "--json")
        try #require(result.status == 0, "show: \(result.errorOutput)")
        return try result.jsonObject()
    }

    @Test("a word is added, edited, shown, deleted, listed in the Trash, restored and listed again")
    func fullLifecycle() throws {
        let add = sandbox.run("add", "perro", "--meaning", "dog", "--tag", "animals", "--tag", "new")
        #expect(add.status == 0)
        let id = try #require(add.output.firstMatch(of: /\(([0-9a-f-]{36})\)/)?.1).description
        #expect(add.output == "Added \"perro\" (\(id))\n")

        let edit = sandbox.run(
            "edit", String(id.prefix(8)), "--meaning", "dog, hound",
            "--add-tag", "A1", "--remove-tag", "NEW")
        #expect(edit.status == 0, "\(edit.errorOutput)")
        #expect(edit.output == "Updated \"perro\" (\(id))\n")

        let word = try shown(id)
        #expect(word["meaning"] as? String == "dog, hound")
        #expect(word["tags"] as? [String] == ["animals", "A1"])

        let show = sandbox.run("show", id)
        #expect(show.status == 0)
        for line in ["term      perro", "meaning   dog, hound", "tags      animals, A1", "id        \(id)"] {
            #expect(show.output.contains(line + "\n"), "missing \(line) in\n\(show.output)")
        }

        let delete = sandbox.run("delete", id)
        #expect(delete.status == 0)
        #expect(delete.output == "Moved \"perro\" to the Trash (\(id))\n")
        #expect(try sandbox.listedWords().isEmpty)
        #expect(sandbox.run("search", "perro", "--json").output == "[]\n")

        let trash = sandbox.run("trash")
        #expect(trash.status == 0)
        #expect(trash.output.hasPrefix(String(id.prefix(8)) + "  perro"), "\(trash.output)")
        #expect(trash.output.contains("deleted "))
        #expect(try shown(id)["deletedAt"] is String)

        let restore = sandbox.run("restore", id)
        #expect(restore.status == 0)
        #expect(restore.output == "Restored \"perro\" (\(id))\n")
        #expect(try sandbox.run("trash", "--json").jsonArray().isEmpty)

        let list = try sandbox.listedWords()
        #expect(list.count == 1)
        #expect(list.first?["id"] as? String == id)
        #expect(list.first?["meaning"] as? String == "dog, hound")
        #expect(list.first?["deletedAt"] is NSNull)
    }

    @Test("only the fields given to edit change")
    func editChangesOnlyGivenFields() throws {
        let id = try sandbox.add(
            "gato", "--meaning", "cat", "--reading", "GA-to", "--example", "El gato duerme.",
            "--notes", "feline", "--tag", "animals")
        let before = try shown(id)
        sandbox.run("edit", id, "--reading", "ˈɡa.to")
        let after = try shown(id)
        #expect(after["reading"] as? String == "ˈɡa.to")
        for key in ["term", "meaning", "notes", "createdAt"] {
            #expect(after[key] as? String == before[key] as? String, "\(key) changed")
        }
        #expect(after["examples"] as? [String] == ["El gato duerme."])
        #expect(after["tags"] as? [String] == ["animals"])
    }

    @Test("--example replaces the examples and --clear-examples removes them")
    func editExamples() throws {
        let id = try sandbox.add("gato", "--example", "Uno.", "--example", "Dos.")
        sandbox.run("edit", id, "--example", "Tres.")
        #expect(try shown(id)["examples"] as? [String] == ["Tres."])
        sandbox.run("edit", id, "--clear-examples")
        #expect(try shown(id)["examples"] as? [String] == [])
    }

    @Test("an edit that changes nothing says so and keeps the word's time")
    func editWithoutChange() throws {
        let id = try sandbox.add("gato", "--meaning", "cat")
        let before = try shown(id)
        let result = sandbox.run("edit", id, "--meaning", "cat")
        #expect(result.status == 0)
        #expect(result.output == "No change to \"gato\"\n")
        #expect(try shown(id)["updatedAt"] as? String == before["updatedAt"] as? String)
    }

    @Test("deleting an unknown id exits 1 and deletes nothing, even the known ids given with it")
    func deleteUnknownChangesNothing() throws {
        let id = try sandbox.add("perro")
        let result = sandbox.run("delete", id, "00000000-0000-4000-8000-000000000000")
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errorOutput.contains("no word with id 00000000-0000-4000-8000-000000000000"))
        #expect(try sandbox.listedWords().count == 1)
        #expect(try sandbox.run("trash", "--json").jsonArray().isEmpty)
    }

    @Test("several words are deleted and restored in one command")
    func deleteAndRestoreSeveral() throws {
        let ids = try ["uno", "dos", "tres"].map { try sandbox.add($0) }
        #expect(sandbox.run(["delete"] + ids).status == 0)
        #expect(try sandbox.listedWords().isEmpty)
        let trash = try sandbox.run("trash", "--json").jsonArray()
        #expect(Set(trash.compactMap { $0["id"] as? String }) == Set(ids))
        #expect(sandbox.run(["restore"] + ids.map { String($0.prefix(6)) }).status == 0)
        #expect(try sandbox.listedTerms() == ["dos", "tres", "uno"])
    }

    @Test("the Trash lists the most recently deleted word first")
    func trashOrder() throws {
        let first = try sandbox.add("primero")
        let second = try sandbox.add("segundo")
        sandbox.run("delete", first)
        sandbox.run("delete", second)
        let trash = try sandbox.run("trash", "--json").jsonArray()
        #expect(trash.compactMap { $0["term"] as? String } == ["segundo", "primero"])
    }

    @Test("a word in the Trash cannot be edited or deleted again, and a live word cannot be restored")
    func trashStateErrors() throws {
        let id = try sandbox.add("perro")
        let live = sandbox.run("restore", id)
        #expect(live.status == 1)
        #expect(live.errorOutput.contains("is not in the Trash"))

        sandbox.run("delete", id)
        let edit = sandbox.run("edit", id, "--meaning", "dog")
        #expect(edit.status == 1)
        #expect(edit.errorOutput.contains("is in the Trash"))
        let again = sandbox.run("delete", id)
        #expect(again.status == 1)
        #expect(again.errorOutput.contains("is already in the Trash"))
    }

    @Test("list filters by tag, sorts by term and pages with --limit and --offset")
    func listFilteringAndPaging() throws {
        for (term, tag) in [("zorro", "animals"), ("árbol", "plants"), ("Búho", "animals"), ("abeja", "animals")] {
            try sandbox.add(term, "--tag", tag)
        }
        let animals = try sandbox.listedWords("--tag", "ANIMALS", "--sort", "term")
        #expect(animals.compactMap { $0["term"] as? String } == ["abeja", "Búho", "zorro"])
        let page = try sandbox.listedWords("--sort", "term", "--limit", "2", "--offset", "1")
        #expect(page.compactMap { $0["term"] as? String } == ["árbol", "Búho"])
        let newest = try sandbox.listedWords("--sort", "created", "--limit", "1")
        #expect(newest.first?["term"] as? String == "abeja")
    }

    @Test(
        "a page past the last word prints nothing and does not claim the library is empty",
        arguments: [["--offset", "5"], ["--limit", "0"]])
    func pagePastTheEnd(options: [String]) throws {
        try sandbox.add("uno")
        try sandbox.add("dos")
        let result = sandbox.run(["list"] + options)
        #expect(result.status == 0)
        #expect(result.output.isEmpty)
        #expect(!result.errorOutput.contains("No words yet"), "\(result.errorOutput)")
    }

    @Test("naming the same word twice in one delete moves it to the Trash once")
    func deleteSameWordTwice() throws {
        let id = try sandbox.add("perro")
        let result = sandbox.run("delete", id, String(id.prefix(8)))
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try sandbox.listedWords().isEmpty)
        #expect(try sandbox.run("trash", "--json").jsonArray().count == 1)
    }

    @Test("search finds words as you type, ignoring case and accents")
    func searchAsYouType() throws {
        try sandbox.add("palabra", "--meaning", "word")
        try sandbox.add("café", "--meaning", "coffee")
        let pal = try sandbox.run("search", "PAL", "--json").jsonArray()
        #expect(pal.compactMap { $0["term"] as? String } == ["palabra"])
        let cafe = try sandbox.run("search", "cafe", "--json").jsonArray()
        #expect(cafe.compactMap { $0["term"] as? String } == ["café"])
        let none = sandbox.run("search", "xyz")
        #expect(none.status == 0)
        #expect(none.output.isEmpty)
        #expect(none.errorOutput.contains("Nothing matches"))
    }
}
