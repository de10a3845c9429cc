import Foundation
import Testing

/// `backup undo` of a restore no sync has met yet does not sync first: that sync sent the
/// restore, whose new times then beat, on every device, an edit another device had made
/// before it, offline; the undo could not take them back (found by the exploratory helper,
/// round 22A #3). Undone first, the words go back with their own times, and the next sync
/// keeps that edit.
@Suite("A backup undone before its sync is not sent")
final class ABackupUndoneBeforeItsSyncIsNotSentTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private var other: String { sandbox.path("other.sqlite") }

    private func meaning(_ term: String, library: String? = nil) throws -> String? {
        let listed = sandbox.run(["list", "--json", "--offline"] + (library.map { ["--library", $0] } ?? []))
        return try listed.jsonArray().first { $0["term"] as? String == term }?["meaning"] as? String
    }

    @Test("restore --replace then backup undo: the other device's offline edit made before them stays on both")
    func replaceThenUndo() throws {
        try sandbox.add("casa", "--meaning", "house")
        try sandbox.add("perro", "--meaning", "dog")
        let backup = sandbox.path("backup.json")
        #expect(sandbox.run("backup", "export", backup).status == 0)
        let cloud = sandbox.path("cloud")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", other]).status == 0)
        #expect(sandbox.run(["sync", "--library", other]).status == 0)

        // The other device, offline, edits "casa"; this one edits "perro", then restores.
        let listed = try sandbox.run(["list", "--json", "--offline", "--library", other]).jsonArray()
        let casa = try #require(listed.first { $0["term"] as? String == "casa" }?["id"] as? String)
        #expect(sandbox.run(["edit", casa, "--meaning", "home (the other device, offline)", "--library", other]).status == 0)
        let perro = try #require(try sandbox.listedWords("--offline").first { $0["term"] as? String == "perro" }?["id"] as? String)
        #expect(sandbox.run("edit", perro, "--meaning", "dog!").status == 0)
        #expect(sandbox.run("backup", "restore", backup, "--replace").status == 0)

        let undo = sandbox.run("backup", "undo")
        #expect(undo.status == 0, "\(undo.errorOutput)")
        #expect(undo.output.contains("1 word put back as before the restore"), "\(undo.output)")
        #expect(undo.errorOutput.contains("No sync had sent the restore yet"), "\(undo.errorOutput)")
        let status = try sandbox.run("status", "--json").jsonObject()
        // The restore synced first, which sent "perro"'s edit: nothing is left to send.
        #expect(status["pending"] as? Int == 0, "the restore and its undo never leave: \(status)")

        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["sync", "--library", other]).status == 0)
        #expect(sandbox.run("sync").status == 0)
        for library in [nil, other] {
            #expect(try meaning("casa", library: library) == "home (the other device, offline)")
            #expect(try meaning("perro", library: library) == "dog!")
        }
    }
}
