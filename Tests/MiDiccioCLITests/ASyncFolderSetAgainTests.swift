import Foundation
import Testing

/// Setting a library's sync folder again: after `remote remove`, or a while in another
/// folder, the library started afresh there, found its own files under its id, said it
/// was "a copy of another library file" and went on under a new id; and a folder emptied
/// on purpose stopped every sync ("is the drive or sync folder there?") whatever the user
/// did but `remote remove` (found by the exploratory helper).
@Suite("A sync folder set again is the same cloud, or a new start when it was emptied")
final class ASyncFolderSetAgainTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private func deviceID(_ library: String? = nil) throws -> String {
        let status = sandbox.run(["status", "--json"] + (library.map { ["--library", $0] } ?? []))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any], "\(status.output)")
        return try #require(object["deviceId"] as? String)
    }

    /// A phone with b0 and this library with l1, l2 and l3, each synced with the folder
    /// `cloud` (the library once a word).
    private func phoneAndLaptopIn(_ cloud: String, phone: String) throws {
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", phone]).status == 0)
        #expect(sandbox.run(["add", "b0", "--library", phone]).status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        for term in ["l1", "l2", "l3"] {
            try sandbox.add(term)
            #expect(sandbox.run("sync").status == 0)
        }
    }

    /// The numbers of `device`'s change files and snapshots in the folder `cloud`.
    private func numbers(of device: String, in cloud: String) throws -> [Int] {
        ["changes", "snapshots"].flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: cloud + "/" + folder + "/" + device)) ?? []).compactMap {
                Int($0.prefix(12))
            }
        }
    }

    private func terms(_ library: String? = nil) -> String {
        sandbox.run(["list"] + (library.map { ["--library", $0] } ?? [])).output
    }

    @Test("the same folder set again under another path, after a sync through a symbolic link and remote remove, goes on")
    func setAgainUnderAnotherPath() throws {
        let cloud = sandbox.path("cloud/MiDiccio")
        try FileManager.default.createDirectory(atPath: sandbox.path("cloud"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: sandbox.path("link"), withDestinationPath: sandbox.path("cloud"))
        try sandbox.add("uno")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run("remote", "set", "folder", sandbox.path("link/MiDiccio")).status == 0)
        #expect(sandbox.run("sync").status == 0)
        let id = try deviceID()

        #expect(sandbox.run("remote", "remove").status == 0)
        try sandbox.add("dos")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        let again = sandbox.run("sync")
        #expect(again.status == 0)
        #expect(!again.errorOutput.contains("is a copy of another library file"), "\(again.errorOutput)")
        #expect(again.errorOutput.contains("it went on from where it had got to there"), "\(again.errorOutput)")
        #expect(try deviceID() == id)
    }

    @Test("the same folder set again after a sync whose record could not be written goes on, and blames no copy of it")
    func setAgainAfterRecordFailed() throws {
        let cloud = sandbox.path("cloud")
        try sandbox.add("uno")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("sync").status == 0)
        let id = try deviceID()
        try sandbox.add("dos")
        // The record cannot be replaced at this sync (a folder in its way): the change file
        // goes up, the record stays as the first sync wrote it.
        let record = cloud + "/devices/\(id).json"
        let written = try Data(contentsOf: URL(fileURLWithPath: record))
        try FileManager.default.removeItem(atPath: record)
        try FileManager.default.createDirectory(atPath: record, withIntermediateDirectories: false)
        #expect(sandbox.run("sync").status != 0)
        try FileManager.default.removeItem(atPath: record)
        try written.write(to: URL(fileURLWithPath: record))

        #expect(sandbox.run("remote", "remove").status == 0)
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        let again = sandbox.run("sync")
        #expect(again.status == 0, "\(again.errorOutput)")
        #expect(again.errorOutput.contains("it went on from where it had got to there"), "\(again.errorOutput)")
        #expect(!again.errorOutput.contains("holds an older copy"), "\(again.errorOutput)")
        #expect(try deviceID() == id)
    }

    @Test("a sync folder that is not there at all is named as missing, not as a folder without its manifest")
    func folderGone() throws {
        let cloud = sandbox.path("cloud")
        try sandbox.add("casa")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        #expect(sandbox.run("sync").status == 0)
        try FileManager.default.moveItem(atPath: cloud, toPath: sandbox.path("cloud-moved"))
        let stopped = sandbox.run("sync")
        #expect(stopped.status != 0)
        #expect(stopped.errorOutput.contains("the sync folder \(cloud) is not there"), "\(stopped.errorOutput)")
        #expect(stopped.errorOutput.contains("midiccio remote set folder PATH"), "\(stopped.errorOutput)")
        #expect(!stopped.errorOutput.contains("has no midiccio-sync.json"), "\(stopped.errorOutput)")
    }

    @Test("after 'remote remove', or a while in another folder, the same folder set again keeps the device id")
    func setBackKeepsTheID() throws {
        let cloud = sandbox.path("cloud"), other = sandbox.path("other")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("casa")
        #expect(sandbox.run("sync").status == 0)
        let before = try deviceID()

        #expect(sandbox.run("remote", "remove").status == 0)
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("perro")
        var sync = sandbox.run("sync")
        #expect(sync.status == 0, "\(sync.errorOutput)")
        #expect(!sync.errorOutput.contains("copy"), "\(sync.errorOutput)")
        #expect(sync.errorOutput.contains("went on from where it had got to there"), "\(sync.errorOutput)")
        #expect(try deviceID() == before)
        // `--json` carries the same notes.
        try sandbox.add("pato")
        #expect(sandbox.run("remote", "set", "folder", other).status == 0)
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        let json = sandbox.run("sync", "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any], "\(json.output)")
        let notes = try #require(object["notes"] as? [String])
        #expect(notes.count == 1 && notes.first?.contains("went on from where it had got to there") == true, "\(notes)")

        #expect(sandbox.run("remote", "set", "folder", other).status == 0)
        #expect(sandbox.run("sync").status == 0)
        try sandbox.add("gato")
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        sync = sandbox.run("sync")
        #expect(sync.status == 0, "\(sync.errorOutput)")
        #expect(!sync.errorOutput.contains("copy"), "\(sync.errorOutput)")
        #expect(try deviceID() == before)

        // A new device there gets every word, gato (which went to the other folder first)
        // too, and sees one device.
        let phone = sandbox.path("phone.sqlite")
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", phone]).status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        for term in ["casa", "perro", "gato"] { #expect(terms(phone).contains(term), "\(terms(phone))") }
        let status = sandbox.run(["status", "--library", phone]).output
        #expect(status.components(separatedBy: "last sync").count - 1 == 2, "this device and the laptop: \(status)")
    }

    @Test("a copy of the library file that was set back too, after the original, still goes on as a copy under a new id")
    func aCopySetBackIsStillACopy() throws {
        let cloud = sandbox.path("cloud")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("casa")
        #expect(sandbox.run("sync").status == 0)
        let id = try deviceID()
        #expect(sandbox.run("remote", "remove").status == 0)
        let copy = sandbox.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: sandbox.libraryPath, toPath: copy)

        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("perro")
        #expect(sandbox.run("sync").status == 0)
        #expect(try deviceID() == id)
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", copy]).status == 0)
        #expect(sandbox.run(["add", "gato", "--library", copy]).status == 0)
        let sync = sandbox.run(["sync", "--library", copy])
        #expect(sync.status == 0, "\(sync.errorOutput)")
        #expect(try deviceID(copy) != id, "the cloud's record is the original's newer one: the copy takes a new id")
        #expect(sandbox.run("sync").status == 0)
        for library in [nil, copy] {
            for term in ["casa", "perro", "gato"] { #expect(terms(library).contains(term), "\(terms(library))") }
        }
    }

    @Test("a library that took a new id in another folder, set back, takes its old id over there: its files and record leave")
    func aNewIDTakesTheOldOneOver() throws {
        let cloud = sandbox.path("cloud"), other = sandbox.path("other"), phone = sandbox.path("phone.sqlite")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("casa")
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", phone]).status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        let oldID = try deviceID()

        // A copy of the library file syncs with the other folder first, so the library,
        // set to that folder after it, is the copy there and takes a new id.
        let copy = sandbox.path("copy.sqlite")
        try FileManager.default.copyItem(atPath: sandbox.libraryPath, toPath: copy)
        #expect(sandbox.run(["remote", "set", "folder", other, "--library", copy]).status == 0)
        #expect(sandbox.run(["sync", "--library", copy]).status == 0)
        #expect(sandbox.run("remote", "set", "folder", other).status == 0)
        try sandbox.add("perro")
        #expect(sandbox.run("sync").status == 0)
        let newID = try deviceID()
        #expect(newID != oldID)

        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("gato")
        let back = sandbox.run("sync")
        #expect(back.status == 0, "\(back.errorOutput)")
        #expect(back.errorOutput.contains("as device \(oldID.prefix(8))"), "\(back.errorOutput)")
        #expect(sandbox.run("sync").status == 0)
        let files = FileManager.default
        #expect(!files.fileExists(atPath: cloud + "/devices/\(oldID).json"))
        for folder in ["changes", "snapshots"] {
            #expect(((try? files.contentsOfDirectory(atPath: cloud + "/\(folder)/\(oldID)")) ?? []).isEmpty, "\(folder)")
        }
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        for term in ["casa", "perro", "gato"] { #expect(terms(phone).contains(term), "\(terms(phone))") }
        let status = sandbox.run(["status", "--library", phone]).output
        #expect(status.components(separatedBy: "last sync").count - 1 == 2, "the phone and the library, no third: \(status)")

        // The copy, set back to that folder too, finds its id taken over and goes on
        // under a new one; every word stays.
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", copy]).status == 0)
        #expect(sandbox.run(["add", "pez", "--library", copy]).status == 0)
        let copySync = sandbox.run(["sync", "--library", copy])
        #expect(copySync.status == 0, "\(copySync.errorOutput)")
        #expect(try ![oldID, newID].contains(deviceID(copy)))
        #expect(sandbox.run("sync").status == 0)
        for term in ["casa", "perro", "gato", "pez"] { #expect(terms().contains(term), "\(terms())") }
    }

    @Test(
        "a library set back to a folder that lost its record numbers its files after its old ones: a device that read them gets every word")
    func setBackWithoutItsRecord() throws {
        let cloud = sandbox.path("cloud"), other = sandbox.path("other"), phone = sandbox.path("phone.sqlite")
        try phoneAndLaptopIn(cloud, phone: phone)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0, "the phone has read the laptop's files 1 to 3")
        let id = try deviceID()
        #expect(sandbox.run("remote", "set", "folder", other).status == 0)
        try sandbox.add("ly")
        #expect(sandbox.run("sync").status == 0)
        // The laptop's record leaves the first folder (a person, a sync program).
        try FileManager.default.removeItem(atPath: cloud + "/devices/\(id).json")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        for term in ["n1", "n2", "n3", "n4"] {
            try sandbox.add(term)
            #expect(sandbox.run("sync").status == 0)
        }
        #expect(try deviceID() == id)
        for _ in 1...2 {
            #expect(sandbox.run(["sync", "--library", phone]).status == 0)
            #expect(sandbox.run("sync").status == 0)
        }
        for term in ["b0", "l1", "l2", "l3", "ly", "n1", "n2", "n3", "n4"] {
            #expect(terms(phone).contains(term), "\(terms(phone))")
        }
        #expect(terms(phone) == terms())
    }

    @Test("a library set back to a folder where a copy of it went on under its id leaves the copy's files whole: the takeover ends")
    func setBackWhereACopyWentOn() throws {
        let cloud = sandbox.path("cloud"), other = sandbox.path("other"), phone = sandbox.path("phone.sqlite")
        let copy = sandbox.path("copy.sqlite")
        try phoneAndLaptopIn(cloud, phone: phone)
        let oldID = try deviceID()
        // A copy of the library file goes on in the folder under the same id; the library
        // goes elsewhere a while, then is set back.
        try FileManager.default.copyItem(atPath: sandbox.libraryPath, toPath: copy)
        #expect(sandbox.run("remote", "set", "folder", other).status == 0)
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["add", "c1", "--library", copy]).status == 0)
        #expect(sandbox.run(["sync", "--library", copy]).status == 0)
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("n1")
        #expect(sandbox.run("sync").status == 0)
        for _ in 1...3 {
            for library in [phone, copy, sandbox.libraryPath] { #expect(sandbox.run(["sync", "--library", library]).status == 0) }
        }
        let files = FileManager.default
        #expect(!files.fileExists(atPath: cloud + "/devices/\(oldID).json"), "the old id's takeover ended")
        #expect(((try? files.contentsOfDirectory(atPath: cloud + "/changes/\(oldID)")) ?? []).isEmpty)
        let status = sandbox.run(["status", "--library", phone]).output
        #expect(!status.contains("being taken over"), "\(status)")
        for library in [phone, copy, sandbox.libraryPath] {
            for term in ["b0", "l1", "l2", "l3", "c1", "n1"] { #expect(terms(library).contains(term), "\(terms(library))") }
        }
    }

    @Test(
        "a folder emptied on purpose: the sync says how to start over, and once set again (removed first or not) every device starts over there",
        arguments: [false, true])
    func emptiedFolder(removeFirst: Bool) throws {
        let cloud = sandbox.path("cloud"), phone = sandbox.path("phone.sqlite")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("casa")
        #expect(sandbox.run("sync").status == 0)
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", phone]).status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        #expect(sandbox.run(["add", "pez", "--library", phone]).status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)

        let before = sandbox.path("cloud-before")
        try FileManager.default.copyItem(atPath: cloud, toPath: before)
        let phoneID = try deviceID(phone), laptopID = try deviceID()
        try FileManager.default.removeItem(atPath: cloud)
        try FileManager.default.createDirectory(atPath: cloud, withIntermediateDirectories: false)
        try sandbox.add("perro")
        let stopped = sandbox.run("sync")
        #expect(stopped.status != 0)
        #expect(stopped.errorOutput.contains("is the drive or sync folder there?"), "\(stopped.errorOutput)")
        #expect(
            stopped.errorOutput.contains("If it was emptied on purpose, remove the remote and set it again (midiccio remote remove"),
            "\(stopped.errorOutput)")
        #expect(sandbox.run("sync").status != 0, "the guard holds until the remote is set again")

        if removeFirst { #expect(sandbox.run("remote", "remove").status == 0) }
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        let started = sandbox.run("sync")
        #expect(started.status == 0, "\(started.errorOutput)")
        #expect(started.output.contains("uploaded every word once"), "\(started.output)")

        // The phone, whose place in the old folder counts for nothing now, starts over
        // there by itself: it gets perro, and its own new word reaches the laptop.
        #expect(sandbox.run(["add", "gato", "--library", phone]).status == 0)
        let phoneSync = sandbox.run(["sync", "--library", phone])
        #expect(phoneSync.status == 0, "\(phoneSync.errorOutput)")
        #expect(phoneSync.errorOutput.contains("started over there"), "\(phoneSync.errorOutput)")
        #expect(sandbox.run("sync").status == 0)
        for library in [nil, phone] {
            for term in ["casa", "perro", "gato", "pez"] { #expect(terms(library).contains(term), "\(terms(library))") }
        }
        // Each device numbers its files there after the ones it wrote before, which another
        // device may have read past (found by the exploratory helper, round 3).
        for id in [phoneID, laptopID] {
            #expect(try numbers(of: id, in: cloud).min() ?? 0 > numbers(of: id, in: before).max() ?? 0, "\(id)")
        }

        // A copy of the old folder brings both devices' files from before back: they are
        // each device's own, removed again, and each keeps its id (the laptop set the
        // folder again, the phone started over by itself).
        for (library, id) in [(phone, phoneID), (sandbox.libraryPath, laptopID)] {
            var copiedBack: [String] = []
            for folder in ["changes/\(id)", "snapshots/\(id)"] {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: before + "/" + folder)) ?? [] {
                    let target = cloud + "/" + folder + "/" + name
                    guard !FileManager.default.fileExists(atPath: target) else { continue }
                    try FileManager.default.createDirectory(atPath: cloud + "/" + folder, withIntermediateDirectories: true)
                    try FileManager.default.copyItem(atPath: before + "/" + folder + "/" + name, toPath: target)
                    copiedBack.append(target)
                }
            }
            #expect(!copiedBack.isEmpty)
            // (A sync with something to upload lists the device's own change files; so does
            // every process's first sync, and a look every two days.)
            #expect(sandbox.run(["add", "pulpo \(id.prefix(4))", "--library", library]).status == 0)
            let again = sandbox.run(["sync", "--library", library])
            #expect(again.status == 0, "\(again.errorOutput)")
            #expect(!again.errorOutput.contains("copy"), "\(again.errorOutput)")
            #expect(try deviceID(library) == id)
            for path in copiedBack { #expect(!FileManager.default.fileExists(atPath: path), "\(path)") }
        }
    }
}
