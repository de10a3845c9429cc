import Foundation
import Testing

@testable import MiDiccioLibrary

/// Bringing a library made by an earlier MiDiccio up to date is a one-way step, and the
/// command line says so: on a terminal when it went through, and in the error when it
/// stopped halfway. It said nothing in the first case, and "nothing was changed" in the
/// second while older builds no longer opened the file (round 15A F7, F10).
@Suite("An update of the library is told")
final class AnUpdateOfTheLibraryIsToldTests {
    let sandbox: Sandbox
    let children: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        children = try ChildProcesses(in: sandbox)
    }

    /// What the sqlite3 shell prints for `sql` on the library, trimmed.
    private func sqlite(_ sql: String) throws -> String {
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: try BuiltTool.sqliteShell())
        shell.arguments = [sandbox.libraryPath, sql]
        let output = Pipe()
        shell.standardOutput = output
        try shell.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0, "\(sql)")
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The migration set back: one that can run again (the floor of old tag lists).
    private static let setBackStep = "2026-12-old-lists-floor-at-last-pull"

    /// The schema the library is at once set back.
    private var setBackVersion: Int { Migrations.all.firstIndex { $0.name == Self.setBackStep } ?? 0 }

    /// The library set back as a MiDiccio without `setBackStep` left it, with the sqlite3
    /// shell; `sql` runs there too.
    private func setBackOneStep(_ sql: String = "") throws {
        _ = try sqlite("DELETE FROM schema_migrations WHERE name = '\(Self.setBackStep)'; PRAGMA user_version = \(setBackVersion); \(sql)")
    }

    @Test("on a terminal, the open that brings the library up to date says so, once; in a pipe it says nothing")
    func toldOnATerminal() throws {
        try sandbox.add("uno")
        try setBackOneStep()
        let version = setBackVersion
        let terminal = try PseudoTerminal()
        let child = try children.start(["list"], environment: ["TERM": "xterm"], error: terminal.terminal)
        terminal.closeTerminal()
        let run = children.finish(child, timeout: 60)
        #expect(run.succeeded, "\(run)")
        let shown = terminal.collected()
        #expect(shown.contains("Brought this library, made by an earlier MiDiccio (library schema \(version)), up to date"), "\(shown)")
        #expect(shown.contains("Older MiDiccio builds cannot open it any more"), "\(shown)")
        let again = try PseudoTerminal()
        let second = try children.start(["list"], environment: ["TERM": "xterm"], error: again.terminal)
        again.closeTerminal()
        _ = children.finish(second, timeout: 60)
        #expect(!again.collected().contains("Brought this library"), "told once")

        try setBackOneStep()
        let piped = sandbox.run("list")
        #expect(piped.status == 0 && piped.errorOutput.isEmpty, "\(piped.errorOutput)")
    }

    @Test("an update that stops after its migrations says how far the file got, not 'nothing was changed'")
    func stoppedHalfway() throws {
        try sandbox.add("uno")
        // The terms' keys are computed again after the update (another ICU noted), and a
        // trigger refuses that.
        try setBackOneStep(
            "UPDATE words SET term_key = 'stale'; "
                + "CREATE TRIGGER refuse_for_test BEFORE UPDATE ON words BEGIN SELECT RAISE(ABORT, 'refused for the test'); END;")
        _ = try sqlite("DROP TRIGGER library_info_update_guard; UPDATE library_info SET value = 'another' WHERE key = 'collation.icu'")
        let result = sandbox.run("list")
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("was being brought up to date and reached schema"), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("refused for the test"), "\(result.errorOutput)")
        #expect(!result.errorOutput.contains("nothing was changed"), "\(result.errorOutput)")
    }
}
