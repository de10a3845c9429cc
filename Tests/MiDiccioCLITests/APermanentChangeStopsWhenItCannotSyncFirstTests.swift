import Foundation
import Testing

/// A permanent deletion, a replace restore and the undos sync first, so that what other
/// devices did meanwhile is here before it is overridden. When that sync failed (the cloud
/// away) they went on with a warning: `trash empty --yes` purged, on every device, words
/// another device had taken out of the Trash and edited (found by the exploratory helper,
/// round 8). They now stop, change nothing and say why; `--offline` goes on all the same.
@Suite("A permanent change stops when it cannot sync first")
final class APermanentChangeStopsWhenItCannotSyncFirstTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    /// Syncs the library through a folder, then moves the folder away (a drive unplugged).
    private func cloudGoesAway() throws {
        let cloud = sandbox.path("cloud")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("sync").status == 0)
        try FileManager.default.moveItem(atPath: cloud, toPath: sandbox.path("cloud-away"))
    }

    /// Checks that `result` stopped with the message, naming --offline.
    private func stopped(_ result: ToolRun, _ arguments: [String]) {
        #expect(result.status == 1, "\(arguments): \(result.output) \(result.errorOutput)")
        #expect(result.errorOutput.contains("could not sync first"), "\(arguments): \(result.errorOutput)")
        #expect(!result.errorOutput.contains("could not sync ("), "the reason said once: \(result.errorOutput)")
        #expect(result.errorOutput.contains("nothing was changed") && result.errorOutput.contains("--offline"), "\(result.errorOutput)")
    }

    @Test("trash empty --yes and purge stop and purge nothing; with --offline they purge")
    func purges() throws {
        let ids = try ["uno", "dos"].map { try sandbox.add($0) }
        #expect(sandbox.run(["delete"] + ids).status == 0)
        try cloudGoesAway()
        stopped(sandbox.run("trash", "empty", "--yes"), ["trash", "empty"])
        stopped(sandbox.run("purge", ids[0]), ["purge"])
        #expect(try sandbox.run("trash", "--json", "--offline").jsonArray().count == 2, "nothing was purged")
        #expect(sandbox.run("trash", "empty", "--yes", "--offline").status == 0)
        #expect(try sandbox.run("trash", "--json", "--offline").jsonArray().isEmpty)
    }

    @Test("a change another device's record names but that has not arrived yet stops trash empty and purge; it purges once it arrives")
    func changeNotArrivedYet() throws {
        let ids = try ["uno", "dos"].map { try sandbox.add($0) }
        #expect(sandbox.run(["delete"] + ids).status == 0)
        let cloud = sandbox.path("cloud")
        let other = sandbox.path("other.sqlite")
        #expect(sandbox.run("remote", "set", "folder", cloud, "--device-name", "laptop").status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run("--library", other, "remote", "set", "folder", cloud, "--device-name", "phone").status == 0)
        #expect(sandbox.run("--library", other, "sync").status == 0)
        // The phone takes "uno" out of the Trash and syncs; its record is in the folder, its
        // change file not yet (a sync program delivering it later).
        #expect(sandbox.run("--library", other, "restore", ids[0]).status == 0)
        let changes = sandbox.path("cloud/changes")
        let before = Set((try? FileManager.default.subpathsOfDirectory(atPath: changes)) ?? [])
        #expect(sandbox.run("--library", other, "sync").status == 0)
        let file = try #require(
            try FileManager.default.subpathsOfDirectory(atPath: changes).first { !before.contains($0) && $0.hasSuffix(".chg") })
        try FileManager.default.moveItem(atPath: changes + "/" + file, toPath: sandbox.path("arriving.chg"))

        for arguments in [["trash", "empty", "--yes"], ["purge", ids[0]]] {
            let result = sandbox.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.errorOutput)")
            #expect(result.errorOutput.contains("not every change of phone has arrived here yet"), "\(result.errorOutput)")
            #expect(result.errorOutput.contains("nothing was changed") && result.errorOutput.contains("--offline"))
        }
        #expect(try sandbox.run("trash", "--json", "--offline").jsonArray().count == 2, "nothing was purged")

        try FileManager.default.moveItem(atPath: sandbox.path("arriving.chg"), toPath: changes + "/" + file)
        let emptied = sandbox.run("trash", "empty", "--yes")
        #expect(emptied.status == 0 && emptied.output.contains("Purged 1 word"), "\(emptied.output) \(emptied.errorOutput)")
        #expect(try sandbox.listedWords("--offline").compactMap { $0["term"] as? String } == ["uno"])
    }

    @Test("stopped by the guard against mass deletion, it says how to accept the deletions, not to wait for the cloud")
    func massDeletion() throws {
        let ids = try (1...24).map { try sandbox.add("palabra\($0)") }
        let cloud = sandbox.path("cloud")
        let other = sandbox.path("other.sqlite")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run("--library", other, "remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("--library", other, "sync").status == 0)
        #expect(sandbox.run(["--library", other, "delete"] + ids.prefix(20)).status == 0)
        #expect(sandbox.run("--library", other, "sync").status == 0)

        let result = sandbox.run("trash", "empty", "--yes")
        stopped(result, ["trash", "empty"])
        #expect(result.errorOutput.contains("'midiccio sync --allow-mass-delete' first"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("once the cloud can be reached"), "\(result.errorOutput)")
    }

    @Test("a replace restore, backup undo and import undo stop; a merge restore and a dry run go on with a warning")
    func restoresAndUndos() throws {
        try sandbox.add("casa", "--meaning", "house")
        let backup = sandbox.path("backup.json")
        #expect(sandbox.run("backup", "export", backup).status == 0)
        try sandbox.add("perro", "--meaning", "dog")
        #expect(sandbox.run("backup", "restore", backup, "--replace", "--offline").status == 0)
        let file = try sandbox.write("term,meaning\nhund,dog\n", to: "words.csv")
        #expect(sandbox.run("import", file).status == 0)
        try cloudGoesAway()

        stopped(sandbox.run("backup", "restore", backup, "--replace"), ["backup", "restore", "--replace"])
        stopped(sandbox.run("backup", "undo"), ["backup", "undo"])
        stopped(sandbox.run("import", "undo"), ["import", "undo"])
        #expect(try sandbox.listedWords("--offline").compactMap { $0["term"] as? String }.sorted() == ["casa", "hund"], "nothing changed")

        let dryRun = sandbox.run("backup", "restore", backup, "--replace", "--dry-run")
        #expect(dryRun.status == 0 && dryRun.errorOutput.contains("warning: could not sync"), "\(dryRun.errorOutput)")
        let merge = sandbox.run("backup", "restore", backup)
        #expect(merge.status == 0 && merge.errorOutput.contains("warning: could not sync"), "\(merge.errorOutput)")
        #expect(sandbox.run("backup", "undo", "--offline").status == 0)
    }
}
