import Foundation
import MiDiccioTesting
import Testing

/// A library kept in Dropbox, Syncthing or Nextcloud, written on two computers before
/// either had the other's change, ends as two files: the sync program renames one of them
/// ("library (Ana's conflicted copy 2026-12-05).sqlite") and nothing opened it again, so
/// the words written in it were out of sight for good. Every command now names such a
/// file with the command that takes its words in, and `backup restore` reads a library
/// file as it reads a backup (stop 54).
@Suite("A conflict copy beside the library is told, and its words taken in")
final class AConflictCopyBesideTheLibraryIsTakenInTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private func on(_ library: String, _ arguments: String...) -> ToolRun {
        let run = sandbox.run(["--library", library] + arguments)
        #expect(run.status == 0, "midiccio \(arguments.joined(separator: " ")) on \(library): \(run.errorOutput)")
        return run
    }

    private func words(_ library: String) throws -> [String: [String: Any]] {
        let list = try on(library, "list", "--json").jsonArray()
        return Dictionary(uniqueKeysWithValues: list.map { ($0["term"] as? String ?? "", $0) })
    }

    /// The words of the command a warning suggests, as a POSIX shell splits them.
    private func suggestedCommand(in warning: String) throws -> [String] {
        let start = try #require(warning.range(of: "Take them in with: midiccio "))
        let end = try #require(warning.range(of: " (the newer of each field wins;"))
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", "printf '%s\\0' " + warning[start.upperBound..<end.lowerBound]]
        let pipe = Pipe()
        shell.standardOutput = pipe
        try shell.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        return output.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("Dropbox's conflict copy is named on every command, and the command it gives takes in its words, newer fields winning")
    func dropboxConflictCopy() throws {
        let library = sandbox.path("library.sqlite")
        _ = on(library, "add", "hola", "--meaning", "hi")
        _ = on(library, "add", "perro", "--meaning", "dog")
        // The other computer's file, set aside: it gained a word and a newer meaning.
        let copy = sandbox.path("library (Ana's conflicted copy 2026-12-05).sqlite")
        try FileManager.default.copyItem(atPath: library, toPath: copy)
        let hola = try #require(try words(library)["hola"]?["id"] as? String)
        let perro = try #require(try words(library)["perro"]?["id"] as? String)
        _ = on(copy, "add", "adiós", "--meaning", "goodbye")
        _ = on(copy, "edit", hola, "--meaning", "hello")
        Thread.sleep(forTimeInterval: 0.01)
        // This computer then changed another word, later than the copy did.
        _ = on(library, "edit", perro, "--meaning", "dog (animal)")
        let copyBefore = try Data(contentsOf: URL(fileURLWithPath: copy))

        let listed = on(library, "list")
        #expect(listed.errorOutput.contains("conflict copy of it that a sync program set aside: \(copy)"), "\(listed.errorOutput)")
        let command = try suggestedCommand(in: listed.errorOutput)
        #expect(command == ["--library", library, "backup", "restore", copy])

        let restored = sandbox.run(command)
        #expect(restored.status == 0, "\(restored.errorOutput)")
        #expect(restored.output.contains("1 added, 1 updated"), "\(restored.output)")
        let now = try words(library)
        #expect(now["adiós"]?["meaning"] as? String == "goodbye")
        #expect(now["hola"]?["meaning"] as? String == "hello")
        #expect(now["perro"]?["meaning"] as? String == "dog (animal)", "the newer field here stays")
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == copyBefore, "the conflict copy is left as it was")
        let temporary = try FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path)
        #expect(!temporary.contains { $0.hasPrefix(".midiccio-library-") }, "no copy left in the temporary folder")
        // Its words in, the copy is no longer named; a preview alone did not end the warning.
        #expect(!on(library, "list").errorOutput.contains("conflict copy"), "the warning ends once the words are in")

        // The undo names the file, and puts the words back: the copy is named again.
        let undone = on(library, "backup", "undo")
        #expect(undone.errorOutput.contains("That was the restore of library (Ana's conflicted copy 2026-12-05).sqlite"))
        #expect(try words(library)["hola"]?["meaning"] as? String == "hi")
        #expect(try words(library)["adiós"] == nil)
        #expect(on(library, "list").errorOutput.contains("set aside: \(copy)."), "named again after the undo")
        _ = on(library, "backup", "restore", copy, "--dry-run")
        #expect(on(library, "list").errorOutput.contains("set aside: \(copy)."), "a dry run takes nothing in")

        // Taken in, then written again by the sync program: named again.
        _ = on(library, "backup", "restore", copy)
        #expect(!on(library, "list").errorOutput.contains("conflict copy"))
        _ = on(copy, "add", "gato", "--meaning", "cat")
        #expect(on(library, "list").errorOutput.contains("set aside: \(copy)."), "a copy changed since is named again")

        // Moved away, it is no longer named.
        try FileManager.default.createDirectory(atPath: sandbox.path("kept"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: copy, toPath: sandbox.path("kept/copy.sqlite"))
        #expect(!on(library, "list").errorOutput.contains("conflict copy"))
    }

    @Test("each program's way of naming a conflict copy is found; a note named like one, the log and another library are not")
    func namesFound() throws {
        let library = sandbox.path("words.db")
        _ = on(library, "add", "hola")
        let copies = [
            "words (conflicted copy 2026-12-05 101010).db",  // Nextcloud
            "words_conflict-20261205-101010.db",  // ownCloud
            "words.sync-conflict-20261205-101010-ABCDEFG.db",  // Syncthing
            "words 2.db",  // iCloud Drive
            "words (1).db",  // Google Drive for desktop
            "words-LAPTOP-7QK2.db",  // OneDrive: the computer's name
        ]
        for name in copies { try FileManager.default.copyItem(atPath: library, toPath: sandbox.path(name)) }
        // Not copies: a text file named like one, a copy of the log, another library.
        _ = try sandbox.write("not a library", to: "words (conflicted copy notes).db")
        try FileManager.default.copyItem(atPath: library, toPath: sandbox.path("words (conflicted copy).db-wal"))
        try FileManager.default.copyItem(atPath: library, toPath: sandbox.path("other (conflicted copy).db"))
        // Nor copies kept by hand under a name of one's own, nor a year.
        for name in ["words-old.db", "words 2024.db", "words (copy).db", "words-.db", "words 2 old.db"] {
            try FileManager.default.copyItem(atPath: library, toPath: sandbox.path(name))
        }
        let warning = on(library, "list").errorOutput
        for name in copies { #expect(warning.contains("set aside: \(sandbox.path(name))."), "\(name)") }
        #expect(warning.components(separatedBy: "Warning: beside the library").count - 1 == copies.count, "\(warning)")
    }

    @Test("another program's database, a torn library file, or the library itself is refused, and nothing changes")
    func badLibraryFiles() throws {
        let library = sandbox.path("library.sqlite")
        _ = on(library, "add", "hola", "--meaning", "hi")
        for term in (1...300).map({ "palabra\($0)" }) { _ = on(library, "add", term, "--meaning", String(repeating: "x", count: 200)) }
        let before = try words(library)

        // Kindle's vocabulary database: an SQLite file, not a library.
        let kindle = sandbox.path("vocab.db")
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: try BuiltTool.sqliteShell())
        sqlite.arguments = [kindle, "CREATE TABLE WORDS (id TEXT); CREATE TABLE LOOKUPS (id TEXT); CREATE TABLE BOOK_INFO (id TEXT);"]
        try sqlite.run()
        sqlite.waitUntilExit()
        let notOurs = sandbox.run(["--library", library, "backup", "restore", kindle])
        #expect(notOurs.status != 0)
        #expect(
            notOurs.errorOutput.contains("backup \(kindle): not a MiDiccio library (it is another application's SQLite database)"),
            "\(notOurs.errorOutput)")
        #expect(notOurs.errorOutput.contains("midiccio import"))

        // A copy cut short, as a sync program still delivering it leaves it.
        let torn = sandbox.path("library (conflicted copy).sqlite")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: library))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: torn))
        let cut = sandbox.run(["--library", library, "backup", "restore", torn])
        #expect(cut.status != 0)
        #expect(cut.errorOutput.contains("backup \(torn): "), "\(cut.errorOutput)")
        #expect(cut.errorOutput.contains("nothing was changed"))
        #expect(!cut.errorOutput.contains(".midiccio-library-"), "the message names the file given, not its temporary copy")

        let itself = sandbox.run(["--library", library, "backup", "restore", library])
        #expect(itself.status != 0)
        #expect(itself.errorOutput.contains("that is this library itself"), "\(itself.errorOutput)")

        let after = try words(library)
        #expect(after.count == before.count)
        #expect(after["hola"]?["meaning"] as? String == "hi")
        #expect(try ChildProcesses(in: sandbox).integrityCheck(library) == "ok")
    }

    @Test("the copies a killed restore of a library file left in the temporary folder are removed by the next one")
    func killedRestoreLeftoversRemoved() throws {
        let children = try ChildProcesses(in: sandbox)
        let temporary = sandbox.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let left = ".midiccio-library-\(try endedProcessID())-AbC123"
        for suffix in ["", ".sqlite", ".json"] { _ = try sandbox.write("someone's words", to: "tmp/" + left + suffix) }
        let running = ".midiccio-library-\(getpid())-XyZ789.sqlite"
        _ = try sandbox.write("a restore running now", to: "tmp/" + running)

        let library = sandbox.path("library.sqlite"), other = sandbox.path("old laptop.sqlite")
        #expect(try children.run(["add", "uno", "--library", other]).succeeded)
        let restored = try children.run(["backup", "restore", other, "--library", library], environment: ["TMPDIR": temporary])
        #expect(restored.succeeded, "\(restored)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [running])
    }
}
