import Foundation
import Testing

@Suite("Backup export, restore and undo from the command line")
final class BackupCLITests {
    let sandbox: Sandbox
    /// A second device's library, restoring the first one's backups.
    let laptop: [String]

    init() throws {
        sandbox = try Sandbox()
        laptop = ["--library", sandbox.path("laptop.sqlite")]
    }

    private func word(_ id: String, library: [String] = []) throws -> [String: Any] {
        let result = sandbox.run(["show", id, "--json"] + library)
        try #require(result.status == 0, "show: \(result.errorOutput)")
        return try result.jsonObject()
    }

    @Test("backup export writes every word, Trash included, as a MiDiccio backup file")
    func exportIncludesTrash() throws {
        try sandbox.add("uno")
        let gone = try sandbox.add("dos")
        sandbox.run("delete", gone)
        let file = sandbox.path("backup.json")

        let result = sandbox.run("backup", "export", file)
        #expect(result.status == 0)
        #expect(result.output == "Backed up 2 words to \(file)\n")
        let data = try #require(sandbox.contents(of: file))
        let backup = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(backup["format"] as? String == "midiccio-backup")
        #expect(backup["version"] as? Int == 2)
        #expect(JSONOutputTests.isTime(backup["exportedAt"]))
        let words = try #require(backup["words"] as? [[String: Any]])
        #expect(words.count == 2)
        for word in words {
            // The word object of --json output, and when each field last changed.
            #expect(Set(word.keys) == JSONOutputTests.wordKeys.union(["times"]))
            let times = try #require(word["times"] as? [String: Any])
            #expect(Set(times.keys) == ["term", "meaning", "reading", "examples", "notes", "tags", "deleted"])
            for value in times.values { #expect(JSONOutputTests.isTime(value)) }
        }
    }

    @Test("export, edit, restore (merge), undo, and a second undo has nothing to undo")
    func mergeThenUndo() throws {
        let id = try sandbox.add("perro", "--meaning", "dog")
        try sandbox.add("gato", "--meaning", "cat")
        let first = sandbox.path("first.json")
        #expect(sandbox.run("backup", "export", first).status == 0)
        #expect(
            sandbox.run(["backup", "restore", first] + laptop).output == "Restored: 2 added, 0 updated, 0 unchanged, 0 moved to the Trash\n"
        )

        sandbox.run("edit", id, "--meaning", "dog, hound")
        let second = sandbox.path("second.json")
        #expect(sandbox.run("backup", "export", second).status == 0)

        let restore = sandbox.run(["backup", "restore", second] + laptop)
        #expect(restore.status == 0)
        #expect(restore.output == "Restored: 0 added, 1 updated, 1 unchanged, 0 moved to the Trash\n")

        // A backup that adds a study answer only: said, and the undo above still stands.
        sandbox.run("review", id, "good")
        let third = sandbox.path("third.json")
        #expect(sandbox.run("backup", "export", third).status == 0)
        let answers = sandbox.run(["backup", "restore", third] + laptop)
        #expect(
            answers.output == "Restored: 0 added, 0 updated, 2 unchanged, 0 moved to the Trash, 1 study answer added\n",
            "\(answers.output)")
        #expect(restore.errorOutput.contains("backup undo"))
        #expect(try word(id, library: laptop)["meaning"] as? String == "dog, hound")

        let undo = sandbox.run(["backup", "undo"] + laptop)
        #expect(undo.status == 0, "\(undo.errorOutput)")
        #expect(undo.output == "Undid the last restore: 1 word put back as before the restore, 0 moved to the Trash\n")
        // The restore it undid is named: not the last one run (third.json kept the undo).
        #expect(undo.errorOutput.contains("That was the restore of second.json of "), "\(undo.errorOutput)")
        #expect(try word(id, library: laptop)["meaning"] as? String == "dog")

        let again = sandbox.run(["backup", "undo"] + laptop)
        #expect(again.status == 1)
        #expect(again.output.isEmpty)
        #expect(again.errorOutput == "Error: there is no restore to undo\n")
        #expect(try word(id, library: laptop)["meaning"] as? String == "dog")
    }

    @Test("restoring an older backup keeps the words edited since (the newer word wins)")
    func mergeKeepsNewerLocalWord() throws {
        let id = try sandbox.add("perro", "--meaning", "dog")
        sandbox.run("backup", "export", sandbox.path("backup.json"))
        sandbox.run("edit", id, "--meaning", "hound")

        let result = sandbox.run("backup", "restore", sandbox.path("backup.json"))
        #expect(result.status == 0)
        #expect(result.output == "Restored: 0 added, 0 updated, 1 unchanged, 0 moved to the Trash\n")
        #expect(try word(id)["meaning"] as? String == "hound")
    }

    @Test("undo of a restore that added words moves them to the Trash")
    func undoAddedWords() throws {
        try sandbox.add("uno")
        try sandbox.add("dos")
        sandbox.run("backup", "export", sandbox.path("backup.json"))
        sandbox.run(["add", "propio"] + laptop)
        sandbox.run(["backup", "restore", sandbox.path("backup.json")] + laptop)

        let undo = sandbox.run(["backup", "undo"] + laptop)
        #expect(undo.output == "Undid the last restore: 0 words put back as before the restore, 2 moved to the Trash\n")
        let live = try sandbox.run(["list", "--json"] + laptop).jsonArray()
        #expect(live.compactMap { $0["term"] as? String } == ["propio"])
        #expect(try sandbox.run(["trash", "--json"] + laptop).jsonArray().count == 2)
    }

    @Test("--replace makes the library equal to the backup and reports the counts")
    func replace() throws {
        try sandbox.add("uno")
        let dos = try sandbox.add("dos")
        sandbox.run("backup", "export", sandbox.path("backup.json"))
        sandbox.run("delete", dos)
        let tres = try sandbox.add("tres")

        let result = sandbox.run("backup", "restore", sandbox.path("backup.json"), "--replace")
        #expect(result.status == 0)
        #expect(result.output == "Restored: 0 added, 1 updated, 1 unchanged, 1 moved to the Trash\n")
        #expect(try sandbox.listedTerms() == ["dos", "uno"])
        let trash = try sandbox.run("trash", "--json").jsonArray()
        #expect(trash.compactMap { $0["id"] as? String } == [tres])

        let undo = sandbox.run("backup", "undo")
        #expect(undo.status == 0)
        #expect(try sandbox.listedTerms() == ["tres", "uno"])
    }

    @Test("--dry-run reports what a restore would change and changes nothing", arguments: [false, true])
    func dryRun(replace: Bool) throws {
        try sandbox.add("uno")
        let dos = try sandbox.add("dos")
        sandbox.run("backup", "export", sandbox.path("backup.json"))
        sandbox.run("delete", dos)
        try sandbox.add("tres")
        let listBefore = sandbox.run("list", "--json").output
        let trashBefore = sandbox.run("trash", "--json").output

        let arguments = ["backup", "restore", sandbox.path("backup.json"), "--dry-run"] + (replace ? ["--replace"] : [])
        let result = sandbox.run(arguments)
        #expect(result.status == 0)
        let expected =
            replace ? "0 added, 1 updated, 1 unchanged, 1 moved to the Trash" : "0 added, 0 updated, 2 unchanged, 0 moved to the Trash"
        #expect(result.output == "Would restore: \(expected)\n")
        #expect(!result.errorOutput.contains("undo"), "a dry run has nothing to undo")
        #expect(sandbox.run("list", "--json").output == listBefore)
        #expect(sandbox.run("trash", "--json").output == trashBefore)
        #expect(sandbox.run("backup", "undo").status == 1)
    }

    @Test("a restore after an Empty Trash says the words deleted permanently were left out, and that --replace brings them back")
    func purgedLeftOutIsSaid() throws {
        let id = try sandbox.add("murciélago", "--meaning", "bat")
        let backup = sandbox.path("backup.json")
        #expect(sandbox.run("backup", "export", backup).status == 0)
        #expect(sandbox.run("delete", id).status == 0)
        #expect(sandbox.run("trash", "empty", "--yes").status == 0)

        // The id names what became of the word, not a mistyped id.
        let shown = sandbox.run("show", id)
        #expect(shown.status == 1)
        #expect(shown.errorOutput.contains("was deleted permanently"), "\(shown.errorOutput)")
        #expect(sandbox.run("show", String(id.prefix(8))).errorOutput.contains("was deleted permanently"))

        let merged = sandbox.run("backup", "restore", backup)
        #expect(merged.status == 0)
        #expect(merged.output.contains("1 left out (deleted permanently since the backup; --replace brings them back"), "\(merged.output)")
        #expect(try sandbox.listedTerms().isEmpty)
        #expect(sandbox.run("backup", "restore", backup, "--replace").status == 0)
        #expect(try sandbox.listedTerms() == ["murciélago"])
    }

    @Test("a dry run keeps the previous restore undoable")
    func dryRunKeepsUndo() throws {
        let id = try sandbox.add("perro", "--meaning", "dog")
        sandbox.run("backup", "export", sandbox.path("backup.json"))
        sandbox.run("edit", id, "--meaning", "hound")
        sandbox.run("backup", "restore", sandbox.path("backup.json"), "--replace")
        #expect(try word(id)["meaning"] as? String == "dog")

        sandbox.run("backup", "restore", sandbox.path("backup.json"), "--replace", "--dry-run")
        #expect(sandbox.run("backup", "undo").status == 0)
        #expect(try word(id)["meaning"] as? String == "hound")
    }

    @Test(
        "a backup that is not valid changes nothing and says what is wrong",
        arguments: [
            ("empty", "", "the file is empty"),
            ("broken JSON", #"{"format": "midiccio-backup", "version": 1, "words": [x]}"#, "not valid JSON"),
            ("a CSV export", "term,meaning\nuno,one\n", "this is not a MiDiccio backup (one is JSON text starting with \"{\")"),
            ("version 0", #"{"format": "midiccio-backup", "version": 0, "words": []}"#, "version 0 is not one MiDiccio writes"),
            ("version 1.5", #"{"format": "midiccio-backup", "version": 1.5, "words": []}"#, "\"version\" must be a whole number"),
            ("another format", #"{"format": "other", "version": 1, "words": []}"#, "not a MiDiccio backup"),
            ("a newer version", #"{"format": "midiccio-backup", "version": 99, "words": []}"#, "update MiDiccio"),
            ("a bad entry", #"{"format": "midiccio-backup", "version": 1, "words": [{"id": "x"}]}"#, "entry 1"),
        ])
    func invalidBackup(name: String, text: String, message: String) throws {
        try sandbox.add("uno")
        let file = try sandbox.write(text, to: "bad.json")
        let before = sandbox.run("list", "--json").output

        let result = sandbox.run("backup", "restore", file, "--replace")
        #expect(result.status == 1, "\(name)")
        #expect(result.output.isEmpty)
        #expect(result.errorOutput.contains(message), "\(name): \(result.errorOutput)")
        #expect(result.errorOutput.contains("nothing was changed"))
        #expect(sandbox.run("list", "--json").output == before)
    }

    @Test("a word stamped far in the future (a device's clock set years ahead) restores with its time, and the note says so")
    func wordFromTheFutureRestores() throws {
        let file = try sandbox.write(
            #"{"format": "midiccio-backup", "version": 1, "words": [{"id": "3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b", "term": "casa", "#
                + #""createdAt": "2026-11-29T10:00:00.000Z", "updatedAt": "2999-01-01T00:00:00.000Z"}]}"#, to: "ahead.json")
        let result = sandbox.run("backup", "restore", file)
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.hasPrefix("Restored: 1 added"))
        #expect(result.errorOutput.contains("(2999-01-01T00:00:00.000Z)") && result.errorOutput.contains("1 word keeps its time"))
        #expect(sandbox.run("list").output.contains("casa"))
        let json = sandbox.run("backup", "restore", file, "--json").output
        #expect(json.contains(#""wordsAhead": 1"#) && json.contains(#""latestStrayTime": "2999-01-01T00:00:00.000Z""#), "\(json)")
    }

    @Test(
        "a replace into a library that equals the backup says whether an earlier restore's undo is there, and never promises one that is not"
    )
    func replaceIntoAnEqualLibrarySaysWhatUndoes() throws {
        try sandbox.add("perro", "--meaning", "dog")
        let file = sandbox.path("backup.json")
        #expect(sandbox.run("backup", "export", file).status == 0)
        let first = sandbox.run("backup", "restore", file, "--replace")
        #expect(first.status == 0)
        #expect(first.errorOutput.contains("no restore came before it, and the new times cannot be undone"), "\(first.errorOutput)")
        #expect(!first.errorOutput.contains("still undoes"), "\(first.errorOutput)")
        #expect(sandbox.run("backup", "undo").status != 0, "there is nothing to undo, as it said")

        // After a restore that changed words, the same replace says its undo is there.
        sandbox.run("add", "gato")
        let second = sandbox.path("second.json")
        #expect(sandbox.run("backup", "export", second).status == 0)
        sandbox.run("add", "pato")
        #expect(sandbox.run("backup", "restore", second, "--replace").status == 0)
        let again = sandbox.run("backup", "restore", second, "--replace")
        #expect(again.errorOutput.contains("'midiccio backup undo' still undoes the restore before"), "\(again.errorOutput)")
        #expect(sandbox.run("backup", "undo").status == 0)
    }
}
