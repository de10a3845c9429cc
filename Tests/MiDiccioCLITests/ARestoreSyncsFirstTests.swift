import Foundation
import Testing

/// `midiccio restore` syncs first: a word another device deleted permanently meanwhile was
/// "Restored" here, exit 0, until the next sync took it, with any edit made since (found
/// by the exploratory helper, round 18B). It now says the word was deleted permanently.
@Suite("A restore syncs first")
final class ARestoreSyncsFirstTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("a word another device deleted permanently meanwhile is not restored, and the command says why")
    func purgedElsewhereIsNotRestored() throws {
        let cloud = sandbox.path("cloud"), other = sandbox.path("other.sqlite")
        let id = try sandbox.add("palabra")
        #expect(sandbox.run("remote", "set", "folder", cloud, "--device-name", "laptop").status == 0)
        #expect(sandbox.run("delete", id).status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run("--library", other, "remote", "set", "folder", cloud, "--device-name", "phone").status == 0)
        #expect(sandbox.run("--library", other, "sync").status == 0)
        #expect(sandbox.run("--library", other, "purge", id).status == 0)

        let restore = sandbox.run("restore", id)
        #expect(restore.status != 0, "\(restore.output)")
        #expect(!restore.output.contains("Restored"), "\(restore.output)")
        #expect(restore.errorOutput.contains("deleted permanently"), "\(restore.errorOutput)")
        #expect(try sandbox.run("list", "--json", "--offline").jsonArray().isEmpty)
    }

    @Test("with the cloud away it restores the word here, and says it could not sync")
    func cloudAwayRestoresHere() throws {
        let cloud = sandbox.path("cloud")
        let id = try sandbox.add("palabra")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("delete", id).status == 0)
        #expect(sandbox.run("sync").status == 0)
        try FileManager.default.moveItem(atPath: cloud, toPath: sandbox.path("cloud-away"))
        let restore = sandbox.run("restore", id)
        #expect(restore.status == 0, "\(restore.errorOutput)")
        #expect(restore.output.contains("Restored \"palabra\""), "\(restore.output)")
        #expect(restore.errorOutput.contains("restoring on this device as it is"), "\(restore.errorOutput)")
    }
}
