import Foundation
import Testing

/// Ctrl-C on `serve` while the page's action ran (a bulk action, an import, a restore, a
/// sync) stopped at once: an action in the background was rolled back, one in the
/// foreground done with its answer never sent, and the terminal said only "Stopped."
/// (found by the exploratory helper, round 14C). `serve` now waits for what runs, saying
/// so; a second Ctrl-C stops at once, and what was not finished is undone.
@Suite("Stopping serve finishes what runs, or says it is undone")
final class StoppingServeFinishesWhatRunsTests {
    let sandbox: Sandbox
    let children: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        children = try ChildProcesses(in: sandbox)
    }

    /// A list of `count` words to import, as the page uploads it.
    private func sheet(_ count: Int) -> Data {
        Data((["term\tmeaning"] + (0..<count).map { "palabra\($0)\tmeaning \($0)" }).joined(separator: "\n").utf8)
    }

    /// How many words the library at `path` holds, read by the sqlite3 shell.
    private func wordCount(_ path: String) throws -> String {
        let run = try children.launch(try BuiltTool.sqliteShell(), [path, "SELECT count(*) FROM words; PRAGMA integrity_check;"])
        _ = run.wait(timeout: 30)
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `serve` on a library of one word, importing `count` more in the background.
    private func serveImporting(_ count: Int) throws -> (library: String, server: ChildProcess) {
        let library = sandbox.path("library.sqlite")
        #expect(try children.run(["add", "uno", "--library", library]).succeeded)
        let server = try children.start(["serve", "--port", "0", "--library", library])
        let web = try WebClient(serverOutput: server)
        let started = web.send("POST", "/api/import?async=1&key=stop-\(count)&name=words.tsv", body: sheet(count))
        #expect(started.status == 202, "\(started.text)")
        return (library, server)
    }

    @Test("Ctrl-C while an import runs in the background waits for it, and the words are all there")
    func waitsForTheImport() throws {
        let (library, server) = try serveImporting(40_000)
        server.send(SIGINT)
        let ending = server.wait(timeout: 120)
        #expect(ending?.succeeded == true, "\(String(describing: ending)) \(server.errorOutput)")
        #expect(server.errorOutput.contains("Waiting for what is running to finish: "), "\(server.errorOutput)")
        #expect(server.errorOutput.contains("Finished."), "\(server.errorOutput)")
        #expect(try wordCount(library) == "40001\nok")
    }

    @Test("a second Ctrl-C stops at once: what was running is undone, and the library is whole")
    func secondCtrlCStopsNow() throws {
        let (library, server) = try serveImporting(150_000)
        server.send(SIGINT)
        let deadline = Date(timeIntervalSinceNow: 30)
        while !server.errorOutput.contains("Waiting for what is running") && Date() < deadline { usleep(20_000) }
        server.send(SIGINT)
        let ending = server.wait(timeout: 60)
        #expect(ending?.succeeded == true, "\(String(describing: ending)) \(server.errorOutput)")
        #expect(server.errorOutput.contains("Stopping now: what was running is undone."), "\(server.errorOutput)")
        #expect(try wordCount(library) == "1\nok", "the import undone whole")
    }
}
