import Foundation
import MiDiccioStore
import MiDiccioTesting
import Testing

@testable import MiDiccioCLI
@testable import MiDiccioCLICore

/// A study session in the terminal lasts as long as a person keeps answering: minutes,
/// or a whole evening with pauses. It kept the library open all along, so a backup put
/// in the library's place meanwhile met the connection to the file that was there
/// before: answers went into the file moved away, or cached pages of the old file were
/// written into the new one. The session now opens the library for each step only.
@Suite("A study session in the terminal answers into the library file as it is now")
final class AStudySessionFollowsTheLibraryFileTests {
    let sandbox: Sandbox
    let uno: String
    let dos: String

    init() throws {
        sandbox = try Sandbox()
        uno = try sandbox.add("uno", "--meaning", "one")
        dos = try sandbox.add("dos", "--meaning", "two")
        try sandbox.add("tres", "--meaning", "three")
    }

    @Test("a backup put in place between two answers takes the next answer, and stays whole", arguments: BackupPutInPlace.allCases)
    func backupPutInPlace(_ how: BackupPutInPlace) throws {
        // The backup: the library before any answer.
        let backup = sandbox.path("backup.sqlite")
        try FileManager.default.copyItem(atPath: sandbox.libraryPath, toPath: backup)
        // Space shows uno, 3 answers it; then, before the next key, the backup is put in
        // place; Space shows dos, 3 answers it, q stops.
        let run = study(" 3 3q") { index in
            if index == 2 { #expect(throws: Never.self) { try how.put(backup, at: self.sandbox.libraryPath) } }
        }
        #expect(run.status == 0, "\(run.output)")
        let check = try Database(path: sandbox.libraryPath, create: false)
        #expect(try check.text("PRAGMA integrity_check") == "ok")
        #expect(try reviews(of: uno) == 0, "uno's answer went with the file the backup replaced")
        #expect(try reviews(of: dos) == 1, "dos's answer is in the backup put in place")
        #expect(try sandbox.listedTerms() == ["dos", "tres", "uno"])
    }

    @Test("a word put in the Trash elsewhere while its card is shown is not recorded, and the session goes on")
    func wordDeletedMeanwhile() throws {
        let run = study(" 3 3q") { index in
            if index == 1 { #expect(self.sandbox.run("delete", self.uno).status == 0) }
        }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("Not recorded: uno is no longer in the library"), "\(run.output)")
        #expect(try reviews(of: dos) == 1)
        #expect(sandbox.run("trash").output.contains("uno"))
    }

    @Test("a word put in the Trash elsewhere before its card is turned over is skipped, not shown as changed and then refused")
    func wordDeletedBeforeTheReveal() throws {
        let run = study(" 3 3q") { index in
            if index == 0 { #expect(self.sandbox.run("delete", self.uno).status == 0) }
        }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("Skipped: uno was deleted meanwhile (elsewhere)."), "\(run.output)")
        #expect(!run.output.contains("changed elsewhere"), "\(run.output)")
        #expect(try reviews(of: dos) == 1)
    }

    @Test("a card answered elsewhere while it is shown here is not answered twice")
    func answeredMeanwhile() throws {
        let run = study(" 3q") { index in
            if index == 1 { #expect(self.sandbox.run("review", self.uno, "easy").status == 0) }
        }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("Not recorded: uno was answered meanwhile elsewhere"), "\(run.output)")
        #expect(try reviews(of: uno) == 1, "the other window's answer alone")
    }

    @Test("a word edited elsewhere while its card is shown has its answer shown as it is now, and says so")
    func wordEditedMeanwhile() throws {
        let run = study(" 3 3q") { index in
            if index == 0 { #expect(self.sandbox.run("edit", self.uno, "--meaning", "one, edited elsewhere").status == 0) }
        }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("(changed elsewhere meanwhile; shown as it is now)"), "\(run.output)")
        #expect(run.output.contains("one, edited elsewhere"), "\(run.output)")
        #expect(try reviews(of: uno) == 1)
    }

    /// Studying --reverse, the card shows the meaning: the meaning edited meanwhile was not
    /// shown at all, only the term, which had not changed (round 20A #1).
    @Test("studying --reverse, a meaning edited elsewhere while its card is shown is shown as it is now")
    func meaningEditedMeanwhileReversed() throws {
        let run = study(" 3 3q", reverse: true) { index in
            if index == 0 { #expect(self.sandbox.run("edit", self.uno, "--meaning", "one, edited elsewhere").status == 0) }
        }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("(changed elsewhere meanwhile; shown as it is now)\n  one, edited elsewhere\n  uno"), "\(run.output)")
        #expect(try reviews(of: uno) == 1)
    }

    /// It said the answer was synced already, with no remote set (round 20A #2).
    @Test("an undo after the word answered was deleted permanently elsewhere says so, and the earlier answer can still be undone")
    func undoAfterThePurge() throws {
        let run = study(" 3 3uuq") { index in
            if index == 4 {
                #expect(self.sandbox.run("delete", self.dos).status == 0)
                #expect(self.sandbox.run("purge", self.dos, "--offline").status == 0)
            }
        }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("Not undone: that word was deleted permanently meanwhile (elsewhere)"), "\(run.output)")
        #expect(!run.output.contains("synced already"), "\(run.output)")
        #expect(run.output.contains("Undone: uno (good)"), "\(run.output)")
        #expect(try reviews(of: uno) == 0)
    }

    @Test("after the last card, a u refused as its word was purged meanwhile asks again, and the answer before it is undone")
    func undoAtTheEndAfterThePurge() throws {
        // All three answered; at the end's prompt, tres is deleted for good elsewhere.
        let run = study(" 3 3 3uu") { index in
            if index == 6 {
                let tres = (try? self.sandbox.listedWords().first { $0["term"] as? String == "tres" }?["id"] as? String) ?? ""
                #expect(self.sandbox.run("delete", tres).status == 0)
                #expect(self.sandbox.run("purge", tres, "--offline").status == 0)
            }
        }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("Not undone: that word was deleted permanently meanwhile (elsewhere)"), "\(run.output)")
        // The prompt came again, and the answer before (dos) was taken back (round 25B #10).
        #expect(run.output.contains("Undone: dos (good)"), "\(run.output)")
        #expect(try reviews(of: dos) == 0)
        #expect(try reviews(of: uno) == 1)
    }

    @Test("a session stopped with Ctrl-Z and brought back with fg reads keys one at a time again")
    func resumedAfterCtrlZ() throws {
        let children = try ChildProcesses(in: sandbox)
        let terminal = try PseudoTerminal()
        func keysRaw() -> Bool {
            var settings = termios()
            return tcgetattr(terminal.terminal, &settings) == 0 && settings.c_lflag & tcflag_t(ICANON) == 0
        }
        func waitFor(_ condition: () -> Bool) -> Bool {
            let deadline = Date(timeIntervalSinceNow: 10)
            while !condition() && Date() < deadline { usleep(20_000) }
            return condition()
        }
        let child = try children.start(["study"], environment: ["TERM": "xterm"], input: terminal.terminal)
        defer { _ = child.killNow() }
        #expect(waitFor(keysRaw), "the session reads keys one at a time")
        // Ctrl-Z: the session stops and the shell puts the terminal back as it keeps it.
        child.send(SIGTSTP)
        usleep(200_000)
        var cooked = termios()
        tcgetattr(terminal.terminal, &cooked)
        cooked.c_lflag |= tcflag_t(ICANON | ECHO)
        tcsetattr(terminal.terminal, TCSANOW, &cooked)
        #expect(!keysRaw())
        // fg: it goes on, and takes its keys one at a time again.
        child.send(SIGCONT)
        #expect(waitFor(keysRaw), "raw again after fg")
    }

    @Test("u after the session's answers were synced meanwhile says so, and so does the next u")
    func undoAfterASyncSaysWhyTwice() throws {
        // Two answers; then, before the first u, another terminal syncs them.
        let run = study(" 3 3uuq") { index in
            guard index == 4 else { return }
            #expect(self.sandbox.run("remote", "set", "folder", self.sandbox.path("cloud")).status == 0)
            #expect(self.sandbox.run("sync").status == 0)
        }
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("Not undone: that answer was synced already"), "\(run.output)")
        #expect(
            run.output.contains("Nothing to undo: the answers given before were synced already, and other devices count them."),
            "\(run.output)")
        #expect(!run.output.contains("no answer was given in this session"), "\(run.output)")
        #expect(try reviews(of: uno) == 1 && reviews(of: dos) == 1)
    }

    /// Runs `midiccio study` in-process with `keys` as the keys typed; `between` runs
    /// before the key at each index is read, as something done elsewhere while a person
    /// looks at a card.
    private func study(
        _ keys: String, reverse: Bool = false, between: @escaping (Int) -> Void
    ) -> (status: Int32, output: String) {
        let io = CapturedIO(input: keys)
        io.beforeKey = between
        let status = Tool.run(["study"] + (reverse ? ["--reverse"] : []), environment: sandbox.environment, io: io)
        return (status, io.output + io.errorOutput)
    }

    /// How many answers the word `id` has, as `show --json` tells.
    private func reviews(of id: String) throws -> Int? {
        let shown = sandbox.run("show", id, "--json")
        try #require(shown.status == 0, "\(shown.errorOutput)")
        return try shown.jsonObject()["study"].flatMap { ($0 as? [String: Any])?["reviews"] as? Int }
    }
}
