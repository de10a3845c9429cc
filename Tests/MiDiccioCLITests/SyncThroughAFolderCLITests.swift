import Foundation
import Testing

/// Two libraries (two devices) syncing through one folder, driven only through the
/// command line, as a person with a laptop and a second computer would.
@Suite("Sync through a folder, end to end through the command line")
final class SyncThroughAFolderCLITests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    /// Runs the tool on `library` ("laptop" or "desktop") and requires success.
    @discardableResult
    private func on(_ library: String, _ arguments: String...) -> ToolRun {
        let result = sandbox.run(["--library", sandbox.path("\(library).sqlite")] + arguments)
        #expect(result.status == 0, "\(library): midiccio \(arguments.joined(separator: " ")) failed: \(result.errorOutput)")
        return result
    }

    private func words(_ library: String, _ command: String = "list") throws -> [String: [String: Any]] {
        let data = Data(on(library, command, "--json", "--offline").output.utf8)
        let list = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: list.map { ($0["term"] as? String ?? "", $0) })
    }

    @Test("add on one, sync both, edit different fields on both, delete on one and restore on the other")
    func twoLibrariesOneFolder() throws {
        // The sync client's folder exists (as ~/Dropbox does); MiDiccio makes its own inside.
        try FileManager.default.createDirectory(atPath: sandbox.path("Dropbox"), withIntermediateDirectories: true)
        let cloud = sandbox.path("Dropbox/MiDiccio")
        on("laptop", "remote", "set", "folder", cloud, "--device-name", "Laptop")
        on("desktop", "remote", "set", "folder", cloud, "--device-name", "Desktop")

        on("laptop", "add", "perro", "--meaning", "dog", "--tag", "animals")
        on("laptop", "add", "gato", "--meaning", "cat")
        on("laptop", "sync")
        let pulled = on("desktop", "sync", "--json")
        #expect(pulled.output.contains("\"pulled\": 2"))
        #expect(Set(try words("desktop").keys) == ["perro", "gato"])

        // Different fields of one word on each device: both edits survive.
        let perro = try #require(try words("laptop")["perro"]?["id"] as? String)
        on("laptop", "edit", perro, "--notes", "from the laptop")
        on("desktop", "edit", perro, "--meaning", "dog (animal)")
        for library in ["laptop", "desktop", "laptop", "desktop"] { on(library, "sync") }
        for library in ["laptop", "desktop"] {
            let word = try #require(try words(library)["perro"])
            #expect(word["notes"] as? String == "from the laptop", "\(library)")
            #expect(word["meaning"] as? String == "dog (animal)", "\(library)")
        }

        // Deleted on the laptop, restored from the desktop's Trash, back on both.
        let gato = try #require(try words("laptop")["gato"]?["id"] as? String)
        on("laptop", "delete", gato)
        on("laptop", "sync")
        on("desktop", "sync")
        #expect(try words("desktop", "trash")["gato"] != nil)
        on("desktop", "restore", gato)
        on("desktop", "sync")
        on("laptop", "sync")
        #expect(try words("laptop")["gato"]?["deletedAt"] is NSNull)
        #expect(try words("laptop", "trash").isEmpty)

        // Both devices report that they agree.
        let status = on("laptop", "status", "--json").output
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
        let devices = try #require(object["devices"] as? [[String: Any]])
        #expect(devices.count == 2)
        #expect(devices.allSatisfy { $0["agrees"] as? Bool == true })
        #expect(object["pending"] as? Int == 0)
    }

    @Test("list syncs first when a remote is set, and --offline skips it")
    func syncOnOpen() throws {
        let cloud = sandbox.path("cloud")
        on("laptop", "remote", "set", "folder", cloud)
        on("desktop", "remote", "set", "folder", cloud)
        on("laptop", "add", "hola")
        on("laptop", "sync")

        let offline = sandbox.run(["--library", sandbox.path("desktop.sqlite"), "list", "--offline"])
        #expect(!offline.output.contains("hola"))
        let online = on("desktop", "list")
        #expect(online.output.contains("hola"))
    }

    @Test("a list that syncs first says what the sync found of the cloud, as sync does: a new cloud at a mistyped path")
    func syncOnOpenSaysWhatItFound() throws {
        let cloud = sandbox.path("cloud")
        on("desktop", "remote", "set", "folder", cloud)
        on("desktop", "add", "hola")
        on("desktop", "sync")
        // The laptop's path is mistyped; its first command is a list.
        on("laptop", "remote", "set", "folder", sandbox.path("clod"))
        on("laptop", "add", "adiós")
        let shown = on("laptop", "list")
        #expect(shown.output.contains("adiós"))
        #expect(shown.errorOutput.contains("There was no MiDiccio data in"), "\(shown.errorOutput)")
        #expect(shown.errorOutput.contains("check the path"))
    }

    @Test("an unreachable cloud only warns, and the words on this device are still shown")
    func unreachableCloudWarns() throws {
        try FileManager.default.createDirectory(atPath: sandbox.path("usb-drive"), withIntermediateDirectories: true)
        let drive = sandbox.path("usb-drive/MiDiccio")
        on("laptop", "remote", "set", "folder", drive)
        on("laptop", "add", "hola")
        // The drive is unplugged: its folder and the mount point are gone.
        try FileManager.default.removeItem(atPath: sandbox.path("usb-drive"))
        let shown = on("laptop", "list")
        #expect(shown.output.contains("hola"))
        #expect(shown.errorOutput.contains("warning:"))
        let sync = sandbox.run(["--library", sandbox.path("laptop.sqlite"), "sync"])
        #expect(sync.status == 1)
        #expect(sync.errorOutput.contains("is not available now: "))
    }
}

/// Choosing the folder to sync through.
@Suite("Setting a folder remote")
final class FolderRemoteCLITests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("remote set folder makes the MiDiccio folder inside an existing one")
    func makesTheFolder() throws {
        try FileManager.default.createDirectory(atPath: sandbox.path("Dropbox"), withIntermediateDirectories: true)
        let result = sandbox.run("remote", "set", "folder", sandbox.path("Dropbox/MiDiccio"))
        #expect(result.status == 0)
        var isDirectory: ObjCBool = false
        #expect(
            FileManager.default.fileExists(atPath: sandbox.path("Dropbox/MiDiccio"), isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    @Test("a folder whose parent is missing is refused with the path named, and no remote is set")
    func missingParentIsRefused() throws {
        let result = sandbox.run("remote", "set", "folder", sandbox.path("NoSuchDrive/MiDiccio"))
        #expect(result.status == 1)
        #expect(result.errorOutput.contains("NoSuchDrive"))
        #expect(result.errorOutput.contains("does not exist"))
        #expect(!sandbox.run("remote", "show").output.contains("NoSuchDrive"))
    }
}
