import Foundation
import Testing

/// `import undo` and `backup undo` keep words edited since, but only edits this device
/// had pulled: undone before a sync, a word another device had edited went to the Trash
/// everywhere, or got its older value back over that device's edit.
@Suite("An undo pulls the other devices' edits first, and keeps them")
final class AnUndoPullsOtherDevicesEditsFirstTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private var other: String { sandbox.path("other.sqlite") }

    /// Connects this sandbox's library and `other` through one folder, both synced.
    private func connect() throws {
        let cloud = sandbox.path("cloud")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", other]).status == 0)
        #expect(sandbox.run(["sync", "--library", other]).status == 0)
    }

    /// Edits the word `term` on the other device and syncs it there.
    private func editElsewhere(_ term: String, meaning: String) throws {
        let listed = sandbox.run(["list", "--json", "--offline", "--library", other])
        let word = try #require(try listed.jsonArray().first { $0["term"] as? String == term })
        let id = try #require(word["id"] as? String)
        #expect(sandbox.run(["edit", id, "--meaning", meaning, "--library", other]).status == 0)
        #expect(sandbox.run(["sync", "--library", other]).status == 0)
    }

    private func meaning(_ term: String) throws -> String? {
        try sandbox.listedWords("--offline").first { $0["term"] as? String == term }?["meaning"] as? String
    }

    @Test("import undo, this device not synced since: the word edited on the other device is kept, edit and all")
    func importUndo() throws {
        let file = try sandbox.write("term,meaning\nhund,dog\nkatze,cat\n", to: "words.csv")
        #expect(sandbox.run("import", file).status == 0)
        try connect()
        try editElsewhere("katze", meaning: "cat, edited on the other device")

        let undo = sandbox.run("import", "undo")
        #expect(undo.status == 0, "\(undo.errorOutput)")
        #expect(undo.errorOutput.contains("1 word was changed since the import"), "\(undo.errorOutput)")
        #expect(try meaning("katze") == "cat, edited on the other device")
        #expect(try meaning("hund") == nil, "the other word went to the Trash")
    }

    @Test("backup undo, this device not synced since: the other device's edit stays, not the value before the restore")
    func backupUndo() throws {
        try sandbox.add("casa", "--meaning", "house")
        let backup = sandbox.path("backup.json")
        #expect(sandbox.run("backup", "export", backup).status == 0)
        let id = try #require(try sandbox.listedWords("--offline").first?["id"] as? String)
        #expect(sandbox.run("edit", id, "--meaning", "home").status == 0)
        #expect(sandbox.run("backup", "restore", backup, "--replace").status == 0)
        try connect()
        try editElsewhere("casa", meaning: "edited on the other device")

        let undo = sandbox.run("backup", "undo")
        #expect(undo.status == 0, "\(undo.errorOutput)")
        #expect(undo.output.contains("1 edited since the restore, their edits kept"), "\(undo.output)")
        #expect(try meaning("casa") == "edited on the other device")
    }
}
