import Foundation
import MiDiccioFiles
import MiDiccioTesting
import Testing

@testable import MiDiccioCLI
@testable import MiDiccioCLICore

/// People sync their computers by putting the library file itself in Dropbox or
/// Syncthing. Those programs copy it while it is written, and two computers writing set
/// one file aside as a conflict: words out of sight, or a damaged library. MiDiccio warns.
@Suite("A library inside a folder a sync program copies is warned about")
final class ALibraryInsideASyncedFolderIsWarnedAboutTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test(
        "each program's marker, at the top of the folder or above the library's own folder",
        arguments: [
            (".stfolder", "Syncthing"), (".dropbox", "Dropbox"), (".sync/ID", "Resilio Sync"), (".debris", "MEGA"),
        ])
    func marker(_ name: String, _ program: String) throws {
        let root = sandbox.path("Synced")
        let marker = root + "/" + name
        try FileManager.default.createDirectory(
            atPath: (marker as NSString).deletingLastPathComponent + "/deep/er", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: marker, contents: Data()))
        let found = SyncedFolder.holding(root + "/deep/er/library.sqlite", environment: sandbox.environment)
        let realRoot = try #require(realpath(root, nil))
        defer { free(realRoot) }
        #expect(found == SyncedFolder(program: program, root: String(cString: realRoot)))
        #expect(SyncedFolder.holding(sandbox.path("library.sqlite"), environment: sandbox.environment) == nil, "beside it, not in it")
    }

    @Test("a folder Nextcloud's or ownCloud's desktop client syncs, as its settings list it", arguments: ["Nextcloud", "ownCloud"])
    func desktopClientSettings(_ program: String) throws {
        let home = sandbox.path("home")
        let settings = home + "/.config/\(program)/\(program.lowercased()).cfg"
        try FileManager.default.createDirectory(atPath: home + "/.config/\(program)", withIntermediateDirectories: true)
        let root = sandbox.path("Nube")
        let text = "[Accounts]\n0\\Folders\\1\\localPath=\(root)/\r\n0\\Folders\\1\\paused=false\n"
        #expect(FileManager.default.createFile(atPath: settings, contents: Data(text.utf8)))
        let environment = ["HOME": home]
        #expect(
            SyncedFolder.holding(root + "/MiDiccio/library.sqlite", environment: environment) == SyncedFolder(program: program, root: root))
        #expect(SyncedFolder.holding(root + "-other/library.sqlite", environment: environment) == nil, "a folder beside it")
        #expect(SyncedFolder.holding(root + "/MiDiccio/library.sqlite", environment: ["HOME": sandbox.path("elsewhere")]) == nil)
    }

    @Test("the folder the OneDrive client for Linux syncs once signed in: its sync_dir, or ~/OneDrive")
    func oneDriveClient() throws {
        let home = sandbox.path("home")
        let settings = home + "/.config/onedrive"
        try FileManager.default.createDirectory(atPath: settings, withIntermediateDirectories: true)
        let environment = ["HOME": home]
        let inDefault = home + "/OneDrive/MiDiccio/library.sqlite"
        #expect(SyncedFolder.holding(inDefault, environment: environment) == nil, "not signed in: nothing is synced yet")

        #expect(FileManager.default.createFile(atPath: settings + "/items.sqlite3", contents: Data()))
        #expect(SyncedFolder.holding(inDefault, environment: environment) == SyncedFolder(program: "OneDrive", root: home + "/OneDrive"))

        // The shipped settings keep every default as a comment; a person's own line counts.
        let text = "# sync_dir = \"~/OneDrive\"\n  sync_dir   =  \"~/Nube de trabajo/\"  \n# skip_file = \"~*\"\n"
        #expect(FileManager.default.createFile(atPath: settings + "/config", contents: Data(text.utf8)))
        #expect(SyncedFolder.holding(inDefault, environment: environment) == nil)
        #expect(
            SyncedFolder.holding(home + "/Nube de trabajo/library.sqlite", environment: environment)
                == SyncedFolder(program: "OneDrive", root: home + "/Nube de trabajo"))
        #expect(SyncedFolder.holding(home + "/Nube de trabajo-2/library.sqlite", environment: environment) == nil)
    }

    @Test("a cloud drive mounted through FUSE (rclone, google-drive-ocamlfuse, ...) is known by its mount's type")
    func mountedCloudDrives() {
        let mounts = #"""
            22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw
            61 22 0:52 / /home/ana/Google\040Drive rw,nosuid,nodev,relatime shared:33 - fuse.rclone drive: rw,user_id=1000
            62 61 0:53 / /home/ana/Google\040Drive/backup rw,relatime shared:34 - ext4 /dev/sdb1 rw
            63 22 0:54 / /home/ana/gdrive rw,nosuid,nodev shared:35 - fuse.google-drive-ocamlfuse google-drive-ocamlfuse rw
            64 22 0:55 / /home/ana/secret rw,nosuid,nodev shared:36 - fuse.gocryptfs /home/ana/.secret rw
            65 22 0:56 / /run/user/1000/gvfs rw,nosuid,nodev shared:37 - fuse.gvfsd-fuse gvfsd-fuse rw
            66 22 0:57 / /- rw,relatime - fuse.rclone remote: rw
            67 22 0:58 / /home/ana/pCloudDrive rw,nosuid,nodev shared:38 - fuse.pCloud.fs pCloud.fs rw
            """#
        func found(_ path: String) -> SyncedFolder? { SyncedFolder.cloudMount(holding: path, mountInfo: mounts) }
        #expect(found("/home/ana/Google Drive/MiDiccio/library.sqlite") == SyncedFolder(program: "rclone", root: "/home/ana/Google Drive"))
        #expect(found("/home/ana/Google Drive/backup/library.sqlite") == nil, "a disk mounted inside the drive")
        #expect(found("/home/ana/gdrive/library.sqlite")?.program == "google-drive-ocamlfuse")
        #expect(found("/run/user/1000/gvfs/google-drive:host=example.com,user=ana/library.sqlite")?.root == "/run/user/1000/gvfs")
        #expect(found("/home/ana/secret/library.sqlite") == nil, "an encrypted folder is no cloud")
        #expect(found("/home/ana/Google Drive-old/library.sqlite") == nil)
        #expect(found("/home/ana/.local/share/midiccio/library.sqlite") == nil)
        #expect(found("/home/ana/pCloudDrive/library.sqlite")?.program == "pCloud Drive")
        #expect(found("/-/library.sqlite") == SyncedFolder(program: "rclone", root: "/-"), "a mount point named -, without optional fields")
    }

    @Test("on macOS, iCloud Drive and the File Provider clouds are known by their place")
    func macOSPlaces() {
        let drive = SyncedFolder.holding(
            "/Users/ana/Library/Mobile Documents/com~apple~CloudDocs/MiDiccio/library.sqlite", environment: [:])
        #expect(drive == SyncedFolder(program: "iCloud Drive", root: "/Users/ana/Library/Mobile Documents/com~apple~CloudDocs"))
        let provider = SyncedFolder.holding(
            "/Users/ana/Library/CloudStorage/GoogleDrive-ana@example.com/My Drive/library.sqlite", environment: [:])
        #expect(provider?.program == "GoogleDrive-ana@example.com")
        #expect(provider?.root == "/Users/ana/Library/CloudStorage/GoogleDrive-ana@example.com")
        #expect(SyncedFolder.holding("/Users/ana/Library/Application Support/MiDiccio/library.sqlite", environment: [:]) == nil)
    }

    @Test("on Windows' drives under WSL, OneDrive and iCloud for Windows are known by their folder in the user's own")
    func windowsFoldersUnderWSL() {
        func found(_ path: String) -> SyncedFolder? { SyncedFolder.holding(path, environment: [:]) }
        #expect(
            found("/mnt/c/Users/ana/OneDrive/MiDiccio/library.sqlite")
                == SyncedFolder(program: "OneDrive", root: "/mnt/c/Users/ana/OneDrive"))
        #expect(found("/mnt/d/Users/ana/OneDrive - Contoso/library.sqlite")?.root == "/mnt/d/Users/ana/OneDrive - Contoso")
        #expect(found("/mnt/c/Users/ana/iCloudDrive/library.sqlite")?.program == "iCloud Drive")
        #expect(found("/mnt/c/Users/ana/Documents/library.sqlite") == nil)
        #expect(found("/mnt/c/Users/ana/OneDriveOld/library.sqlite") == nil)
        #expect(found("/mnt/c/Users/OneDrive/library.sqlite") == nil, "a user named OneDrive, the library in the user's folder")
    }

    @Test("the account folders Insync keeps in ~/Insync")
    func insync() {
        let environment = ["HOME": "/home/ana"]
        #expect(
            SyncedFolder.holding("/home/ana/Insync/ana@example.com/Google Drive/library.sqlite", environment: environment)
                == SyncedFolder(program: "Insync", root: "/home/ana/Insync/ana@example.com"))
        #expect(SyncedFolder.holding("/home/ana/Insync/library.sqlite", environment: environment) == nil, "beside the accounts")
        #expect(SyncedFolder.holding("/home/ana/Insync-old/x/library.sqlite", environment: environment) == nil)
    }

    @Test("every command warns once on stderr and goes on; MIDICCIO_SYNCED_FOLDER_OK=1 hides it")
    func commandsWarn() throws {
        let root = sandbox.path("Sync")
        try FileManager.default.createDirectory(atPath: root + "/.stfolder", withIntermediateDirectories: true)
        let library = root + "/library.sqlite"
        var environment = sandbox.environment
        environment["MIDICCIO_LIBRARY"] = library
        let added = sandbox.run(["add", "casa", "--meaning", "house", "--json"], environment: environment)
        #expect(added.status == 0)
        #expect(added.output.contains("\"term\": \"casa\""), "stdout holds only the JSON: \(added.output)")
        #expect(added.errorOutput.components(separatedBy: "Warning: the library").count == 2, "\(added.errorOutput)")
        #expect(added.errorOutput.contains("Syncthing") && added.errorOutput.contains("midiccio remote set folder"))

        // A study session opens the library for each answer: still one warning.
        let io = CapturedIO(input: " 3q")
        #expect(Tool.run(["study"], environment: environment, io: io) == 0)
        #expect(io.errorOutput.components(separatedBy: "Warning: the library").count == 2, "\(io.errorOutput)")

        environment["MIDICCIO_SYNCED_FOLDER_OK"] = "1"
        let listed = sandbox.run(["list"], environment: environment)
        #expect(listed.status == 0 && listed.output.contains("casa"))
        #expect(listed.errorOutput.isEmpty, "\(listed.errorOutput)")
    }
}
