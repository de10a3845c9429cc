import Foundation
import Testing

/// Setting the sync folder again through another path to it (a symbolic link, a path with
/// `..`) started afresh there: the library found its own files under its id, took itself
/// for a copy, and went on under a new device id with a "give it a name" warning (found by
/// the exploratory helper). The same folder, however it is named, is the same cloud.
@Suite("A sync folder named another way is the same cloud")
final class ASyncFolderNamedAnotherWayIsTheSameCloudTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private func status(_ arguments: String...) throws -> [String: Any] {
        let status = sandbox.run(["status", "--json"] + arguments)
        return try #require(try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any], "\(status.output)")
    }

    private func deviceID() throws -> String {
        try #require(try status()["deviceId"] as? String)
    }

    @Test(
        "a link to the folder, or a path through '..', keeps the device id and syncs as before",
        arguments: ["link", "sub/../cloud"])
    func sameFolderAnotherPath(spelling: String) throws {
        let cloud = sandbox.path("cloud")
        try FileManager.default.createDirectory(atPath: sandbox.path("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: sandbox.path("link"), withDestinationPath: cloud)
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("casa")
        #expect(sandbox.run("sync").status == 0)
        try sandbox.add("perro")
        #expect(sandbox.run("sync").status == 0)
        let before = try deviceID()

        let other = sandbox.path(spelling)
        let set = sandbox.run("remote", "set", "folder", other)
        #expect(set.status == 0, "\(set.errorOutput)")
        #expect(sandbox.run("remote", "show").output.contains(spelling == "link" ? other : cloud))
        try sandbox.add("gato")
        let sync = sandbox.run("sync")
        #expect(sync.status == 0, "\(sync.errorOutput)")
        #expect(!sync.errorOutput.contains("copy"), "\(sync.errorOutput)")
        #expect(!sync.output.contains("uploaded every word"), "\(sync.output)")
        #expect(try deviceID() == before)

        let phone = sandbox.path("phone.sqlite")
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", phone]).status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        let listed = sandbox.run(["list", "--library", phone]).output
        for term in ["casa", "perro", "gato"] { #expect(listed.contains(term), "\(listed)") }
        let devices = try #require(try status("--library", phone)["devices"] as? [[String: Any]])
        let phoneID = try #require(try status("--library", phone)["deviceId"] as? String)
        #expect(devices.compactMap { $0["id"] as? String }.sorted() == [before, phoneID].sorted(), "two devices, no third id")
    }

    @Test("a folder moved elsewhere, its old path gone, is the same cloud: the device id stays and nothing goes up again")
    func movedFolder() throws {
        let cloud = sandbox.path("cloud")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("casa")
        #expect(sandbox.run("sync").status == 0)
        let before = try deviceID()
        let moved = sandbox.path("Dropbox (new)/cloud")
        try FileManager.default.createDirectory(atPath: sandbox.path("Dropbox (new)"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: cloud, toPath: moved)

        #expect(sandbox.run("remote", "set", "folder", moved).status == 0)
        try sandbox.add("perro")
        let sync = sandbox.run("sync")
        #expect(sync.status == 0, "\(sync.errorOutput)")
        #expect(!sync.errorOutput.contains("copy"), "\(sync.errorOutput)")
        #expect(sync.output.contains("1 pushed") && !sync.output.contains("uploaded every word"), "\(sync.output)")
        #expect(try deviceID() == before)
    }

    @Test("a copy of the folder from before the last sync is another cloud: every word goes up there, none is lost")
    func staleCopyOfTheFolder() throws {
        let cloud = sandbox.path("cloud")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("casa")
        #expect(sandbox.run("sync").status == 0)
        let stale = sandbox.path("stale")
        try FileManager.default.copyItem(atPath: cloud, toPath: stale)
        try sandbox.add("perro")
        #expect(sandbox.run("sync").status == 0)

        #expect(sandbox.run("remote", "set", "folder", stale).status == 0)
        let sync = sandbox.run("sync")
        #expect(sync.status == 0, "\(sync.errorOutput)")
        #expect(sync.output.contains("uploaded every word"), "\(sync.output)")
        let phone = sandbox.path("phone.sqlite")
        #expect(sandbox.run(["remote", "set", "folder", stale, "--library", phone]).status == 0)
        #expect(sandbox.run(["sync", "--library", phone]).status == 0)
        let listed = sandbox.run(["list", "--library", phone]).output
        #expect(listed.contains("casa") && listed.contains("perro"), "\(listed)")
    }

    @Test("a link pointed at a new, empty folder since: naming that folder starts a new cloud there, and syncs")
    func linkPointedElsewhere() throws {
        let link = sandbox.path("link")
        for folder in ["cloud", "cloud2"] {
            try FileManager.default.createDirectory(atPath: sandbox.path(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sandbox.path("cloud"))
        #expect(sandbox.run("remote", "set", "folder", link).status == 0)
        try sandbox.add("casa")
        #expect(sandbox.run("sync").status == 0)
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: sandbox.path("cloud2"))

        #expect(sandbox.run("remote", "set", "folder", sandbox.path("cloud2")).status == 0)
        let sync = sandbox.run("sync")
        #expect(sync.status == 0, "\(sync.errorOutput)")
        #expect(sync.errorOutput.contains("There was no MiDiccio data in"), "\(sync.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: sandbox.path("cloud2/midiccio-sync.json")))
        #expect(sandbox.run("sync").status == 0, "and the next sync too")
    }

    @Test("another folder is another cloud: every word goes up there once")
    func anotherFolder() throws {
        #expect(sandbox.run("remote", "set", "folder", sandbox.path("cloud")).status == 0)
        try sandbox.add("casa")
        #expect(sandbox.run("sync").status == 0)
        let before = try deviceID()
        #expect(sandbox.run("remote", "set", "folder", sandbox.path("elsewhere")).status == 0)
        let sync = sandbox.run("sync")
        #expect(sync.status == 0, "\(sync.errorOutput)")
        #expect(try deviceID() == before, "a new cloud is no reason for a new id")
        #expect(FileManager.default.fileExists(atPath: sandbox.path("elsewhere/midiccio-sync.json")))
    }
}
