import Foundation
import Testing

/// `backup restore --replace` gives every word of the backup a new time, so it wins on
/// every device. Run before this device had pulled another device's edit of a word it
/// held as the backup does, it said "0 updated, 2 unchanged", offered no undo, and the
/// edit was gone on every device after the next sync. Restored into a new, empty library
/// that then joined the cloud, it undid every edit made since the backup, everywhere
/// (both found by the exploratory helper, round 4).
@Suite("A replace restore sees other devices' edits first, and one into an empty library merges")
final class AReplaceRestoreKeepsOtherDevicesEditsTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private var cloud: String { sandbox.path("cloud") }

    /// This sandbox's library holds casa and perro, synced with `other` through a folder,
    /// and a backup of them; then `other` edits casa and syncs. Returns the backup's path.
    private func backupThenEditElsewhere(other: String) throws -> String {
        try sandbox.add("casa", "--meaning", "house")
        try sandbox.add("perro", "--meaning", "dog")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", other]).status == 0)
        #expect(sandbox.run(["sync", "--library", other]).status == 0)
        let backup = sandbox.path("backup.json")
        #expect(sandbox.run("backup", "export", backup).status == 0)
        let listed = sandbox.run(["list", "--json", "--offline", "--library", other])
        let id = try #require(try listed.jsonArray().first { $0["term"] as? String == "casa" }?["id"] as? String)
        #expect(sandbox.run(["edit", id, "--meaning", "home, edited later", "--library", other]).status == 0)
        #expect(sandbox.run(["sync", "--library", other]).status == 0)
        return backup
    }

    private func meaning(_ term: String, library: String) throws -> String? {
        let listed = sandbox.run(["list", "--json", "--offline", "--library", library])
        return try listed.jsonArray().first { $0["term"] as? String == term }?["meaning"] as? String
    }

    @Test("the edit is pulled first: the restore counts the word as updated, and its undo puts the edit back everywhere")
    func pullsFirst() throws {
        let other = sandbox.path("other.sqlite")
        let backup = try backupThenEditElsewhere(other: other)

        let restore = sandbox.run("backup", "restore", backup, "--replace")
        #expect(restore.status == 0, "\(restore.errorOutput)")
        #expect(restore.output.contains("0 added, 1 updated, 1 unchanged"), "\(restore.output)")
        #expect(restore.errorOutput.contains("got a new time, so it wins on every device"), "\(restore.errorOutput)")
        #expect(try meaning("casa", library: sandbox.libraryPath) == "house")

        let undo = sandbox.run("backup", "undo")
        #expect(undo.status == 0, "\(undo.errorOutput)")
        #expect(try meaning("casa", library: sandbox.libraryPath) == "home, edited later")
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["sync", "--library", other]).status == 0)
        #expect(try meaning("casa", library: other) == "home, edited later")
    }

    @Test("into a new library that holds no words it merges: the later edit wins once that library joins the cloud")
    func intoAnEmptyLibrary() throws {
        let other = sandbox.path("other.sqlite")
        let backup = try backupThenEditElsewhere(other: other)
        let laptop = sandbox.path("laptop.sqlite")

        let restore = sandbox.run(["backup", "restore", backup, "--replace", "--library", laptop])
        #expect(restore.status == 0, "\(restore.errorOutput)")
        #expect(restore.output.contains("2 added"), "\(restore.output)")
        #expect(restore.errorOutput.contains("held no words, so the backup was merged, not replacing"), "\(restore.errorOutput)")
        let json = sandbox.run(["backup", "restore", backup, "--replace", "--dry-run", "--json", "--library", laptop])
        #expect(json.output.contains("\"mergedIntoEmpty\": false"), "it holds words now: \(json.output)")

        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", laptop]).status == 0)
        #expect(sandbox.run(["sync", "--library", laptop]).status == 0)
        #expect(sandbox.run(["sync", "--library", other]).status == 0)
        #expect(try meaning("casa", library: laptop) == "home, edited later")
        #expect(try meaning("casa", library: other) == "home, edited later")
        #expect(try meaning("perro", library: laptop) == "dog")
    }
}
