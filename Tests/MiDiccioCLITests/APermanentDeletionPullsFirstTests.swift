import Foundation
import Testing

/// `trash empty` and `purge` delete on every device, for good. Run before this device had
/// pulled another device's restore of a word from the Trash (with a note added there), they
/// purged that word and its note everywhere (found by the exploratory helper, round 5).
/// They sync first now, as the undos and a restore do.
@Suite("A permanent deletion pulls the other devices' changes first")
final class APermanentDeletionPullsFirstTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private var phone: String { sandbox.path("phone.sqlite") }

    /// uno and dos here, both in the Trash and synced; the phone then takes dos out of the
    /// Trash, adds a note to it and syncs. Returns the ids of uno and dos. With
    /// `recordLost`, the phone's record of that last sync is put back to the one before it,
    /// as when the record could not be written after the change file went up (a 503, a lock
    /// another WebDAV client held): only the change file says dos left the Trash.
    private func restoredElsewhere(recordLost: Bool = false) throws -> (uno: String, dos: String) {
        let uno = try sandbox.add("uno"), dos = try sandbox.add("dos")
        let cloud = sandbox.path("cloud")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", phone]).status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        #expect(sandbox.run("delete", uno, dos).status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        #expect(sandbox.run(["restore", dos, "--library", phone]).status == 0)
        #expect(sandbox.run(["edit", dos, "--notes", "kept on the phone", "--library", phone]).status == 0)
        let devices = sandbox.path("cloud/devices")
        var records: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: devices) where recordLost && name.hasSuffix(".json") {
            records[name] = try Data(contentsOf: URL(fileURLWithPath: devices + "/" + name))
        }
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        for (name, data) in records { try data.write(to: URL(fileURLWithPath: devices + "/" + name)) }
        return (uno, dos)
    }

    private func notes(_ id: String, library: String) throws -> String? {
        let shown = sandbox.run(["show", id, "--json", "--offline", "--library", library])
        guard shown.status == 0 else { return nil }
        return try shown.jsonObject()["notes"] as? String
    }

    /// With `recordLost`, the sync first reads the phone's change file that its record does
    /// not name yet (round 20B #11: that restore was purged everywhere).
    @Test(
        "trash empty purges only what is still in the Trash once the phone's restore is pulled, named by its record or not yet",
        arguments: [false, true])
    func trashEmpty(recordLost: Bool) throws {
        let (uno, dos) = try restoredElsewhere(recordLost: recordLost)
        let empty = sandbox.run("trash", "empty", "--yes")
        #expect(empty.status == 0, "\(empty.errorOutput)")
        #expect(empty.output.contains("Purged 1 word permanently"), "\(empty.output)")
        #expect(sandbox.run("show", uno, "--offline").status == 1)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        for library in [sandbox.libraryPath, phone] {
            #expect(try notes(dos, library: library) == "kept on the phone", "\(library)")
        }
    }

    @Test(
        "the purge is sent at once: the phone's next sync removes the word, which it can no longer take out of its Trash",
        arguments: ["purge", "trash empty"])
    func sentAtOnce(command: String) throws {
        let (uno, _) = try restoredElsewhere()
        let arguments = command == "purge" ? ["purge", uno] : ["trash", "empty", "--yes"]
        let purged = sandbox.run(arguments)
        #expect(purged.status == 0, "\(purged.errorOutput)")
        // No sync here after the command: the phone syncs, and the purge has reached it.
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        #expect(sandbox.run(["restore", uno, "--library", phone]).status == 1, "uno is gone from the phone")
        #expect(sandbox.run(["show", uno, "--offline", "--library", phone]).status == 1)
    }

    @Test("purge of a word the phone took out of the Trash is refused, since it is not in the Trash any more")
    func purge() throws {
        let (_, dos) = try restoredElsewhere()
        let purge = sandbox.run("purge", dos)
        #expect(purge.status == 1)
        #expect(try notes(dos, library: sandbox.libraryPath) == "kept on the phone")
    }

    /// A word in the Trash here that the phone, before that reached it, gave a note: the
    /// sync before `trash empty --yes` said "restore it to keep it", and the next line said
    /// it was purged (found by the exploratory helper, round 22A #8). `purge ID` did the
    /// same (round 27B #2).
    @Test(
        "trash empty --yes, or purge of the word, that meets a change from elsewhere to a word in the Trash purges nothing, and purges when run again",
        arguments: ["trash empty", "purge"])
    func permanentDeletionMeetsAChangeItHadNotSeen(command: String) throws {
        let uno = try sandbox.add("uno")
        let dos = try sandbox.add("dos")
        let cloud = sandbox.path("cloud")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", phone]).status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        #expect(sandbox.run("delete", uno).status == 0)
        #expect(sandbox.run("delete", dos).status == 0)
        #expect(sandbox.run(["edit", uno, "--notes", "noted on the phone", "--library", phone]).status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)

        let arguments = command == "purge" ? ["purge", uno, dos] : ["trash", "empty", "--yes"]
        let first = sandbox.run(arguments)
        #expect(first.status == 1)
        let said =
            command == "purge"
            ? "found 1 word to purge with a change not seen here before: \u{201C}uno\u{201D}; nothing was purged"
            : "found 1 word in the Trash with a change not seen here before: \u{201C}uno\u{201D}; nothing was purged"
        #expect(first.errorOutput.contains(said), "\(first.errorOutput)")
        #expect(try notes(uno, library: sandbox.libraryPath) == "noted on the phone")
        #expect(sandbox.run("show", dos, "--offline").status == 0, "dos is not purged either")
        let again = sandbox.run(arguments)
        #expect(again.status == 0, "\(again.errorOutput)")
        #expect(again.output.contains(command == "purge" ? "Purged \"uno\"" : "Purged 2 words permanently"), "\(again.output)")
        #expect(sandbox.run("show", uno, "--offline").status == 1)
    }
}
