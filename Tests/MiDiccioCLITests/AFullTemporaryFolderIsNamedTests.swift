import Foundation
import MiDiccioTesting
import Testing

#if canImport(Glibc)
import Glibc

/// SQLite keeps its temporary files (a large statement's journal, a sort) in the temporary
/// folder (`TMPDIR`, else /var/tmp or /tmp), on many systems a small disk of its own. When
/// that one was full, every command said "the disk the library is on is full", where room
/// made no difference, and each sync uploaded its pending words again and failed (found by
/// the exploratory helper, round 12B). Now the message names the temporary folder. A real
/// process with `TMPDIR` on a full tmpfs, which only root may mount: elsewhere the test is
/// skipped, and says so.
@Suite("A full temporary folder is named")
final class AFullTemporaryFolderIsNamedTests {
    let sandbox: Sandbox
    let children: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        children = try ChildProcesses(in: sandbox)
    }

    @Test("an import that finds the temporary folder full says so, names it, and imports nothing", .enabled(if: SmallDisk.canMount))
    func importNamesTheTemporaryFolder() throws {
        let library = sandbox.path("library.sqlite")
        #expect(try children.run(["add", "uno", "--library", library]).succeeded)
        // A list without a header, as the helper's: its import needs SQLite's temporary files.
        let rows = (0..<1_500).map { "palabra\($0)\tmeaning number \($0) with a longer text to take room\tnote \($0)" }
        let sheet = try sandbox.write(rows.joined(separator: "\n") + "\n", to: "words.tsv")
        let disk = try SmallDisk("tmpdir", size: "64k")
        disk.fill()
        let run = try children.run(["import", sheet, "--library", library], environment: ["TMPDIR": disk.folder, "SQLITE_TMPDIR": ""])
        #expect(!run.succeeded)
        #expect(run.errorOutput.contains("the temporary folder \(disk.folder) is full"), "\(run.errorOutput)")
        let listed = try children.run(["list", "--json", "--library", library])
        #expect(listed.output.contains("\"uno\"") && !listed.output.contains("palabra"))
        // A new library there cannot even be opened: the message names the folder too.
        let opened = try children.run(["add", "x", "--library", sandbox.path("new.sqlite")], environment: ["TMPDIR": disk.folder])
        #expect(opened.errorOutput.contains("the temporary folder \(disk.folder) is full"), "\(opened.errorOutput)")
    }

    @Test(
        "an upload to the web app that its temporary folder cannot hold says so, naming it, and changes nothing",
        .enabled(if: SmallDisk.canMount))
    func webUploadNamesTheTemporaryFolder() throws {
        let library = sandbox.path("library.sqlite")
        #expect(try children.run(["add", "uno", "--library", library]).succeeded)
        let disk = try SmallDisk("webtmp", size: "64k")
        disk.fill()
        let server = try children.start(["serve", "--port", "0", "--library", library], environment: ["TMPDIR": disk.folder])
        let web = try WebClient(serverOutput: server)
        let rows = (0..<2_000).map { "palabra\($0)\tmeaning \($0)" }.joined(separator: "\n")
        let answer = web.send("POST", "/api/import?name=words.tsv", body: Data(("term\tmeaning\n" + rows).utf8))
        #expect(answer.status == 507, "\(answer.text)")
        let message = answer.object["error"] as? String ?? ""
        #expect(message.contains("the temporary folder \(disk.folder)"), "\(message)")
        #expect(!message.contains("NSCocoaErrorDomain"), "\(message)")
        server.send(SIGTERM)
        _ = server.wait(timeout: 30)
        let listed = try children.run(["list", "--json", "--library", library])
        #expect(listed.output.contains("\"uno\"") && !listed.output.contains("palabra"))
    }

    @Test(
        "a restore of another library file, and an Anki package import, that find the temporary folder full name it",
        .enabled(if: SmallDisk.canMount))
    func copiesNameTheTemporaryFolder() throws {
        let library = sandbox.path("library.sqlite"), other = sandbox.path("old laptop.sqlite")
        #expect(try children.run(["add", "uno", "--library", library]).succeeded)
        #expect(try children.run(["add", "dos", "--library", other]).succeeded)
        let disk = try SmallDisk("copytmp", size: "64k")
        disk.fill()
        let restore = try children.run(["backup", "restore", other, "--library", library], environment: ["TMPDIR": disk.folder])
        #expect(!restore.succeeded)
        #expect(restore.errorOutput.contains("into the temporary folder \(disk.folder)"), "\(restore.errorOutput)")
        let anki = try children.run(["import", ankiFixture("words.colpkg"), "--library", library], environment: ["TMPDIR": disk.folder])
        #expect(!anki.succeeded)
        #expect(anki.errorOutput.contains("in the temporary folder \(disk.folder)"), "\(anki.errorOutput)")
        let listed = try children.run(["list", "--json", "--library", library])
        #expect(listed.output.contains("\"uno\"") && !listed.output.contains("\"dos\""))
    }
}
#endif
