import Foundation
import Testing

/// Mistakes in `midiccio remote set gdrive` are usage errors (exit 64) that say what to
/// do, found before anything is opened or anyone is sent to a browser.
@Suite("Usage of remote set gdrive")
final class GoogleDriveRemoteUsageTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test(
        "a wrong combination is refused with exit 64 and a reason, and no library is made",
        arguments: [
            (["remote", "set", "gdrive", "MiDiccio", "--client-id", "test"], "gdrive takes no location ('MiDiccio')"),
            (
                ["remote", "set", "gdrive", "--user", "ana", "--client-id", "test"],
                "--user and --password-stdin are for webdav remotes only"
            ),
            (
                ["remote", "set", "folder", "/tmp/words", "--folder", "x"],
                "--folder, --client-id and --client-secret-stdin are for gdrive remotes only"
            ),
            (["remote", "set", "webdav", "https://example.com/dav", "--no-browser"], "--no-browser is for gdrive and icloud remotes only"),
            (["remote", "set", "folder"], "missing argument <location>"),
            (["remote", "set", "gdrive", "--folder", "a/b", "--client-id", "test"], "--folder: the folder name contains '/' ('a/b')"),
            (["remote", "set", "gdrive", "--folder", " ", "--client-id", "test"], "--folder: the folder name is empty"),
            (["remote", "set", "gdrive", "--client-id", "my client"], "--client-id must be an OAuth client id"),
            (["remote", "set", "gdrive"], "no OAuth client: give your own with --client-id ID (or set MIDICCIO_GDRIVE_CLIENT_ID)"),
            (["remote", "set", "gdrive", "--client-id", "test", "--client-secret-stdin"], "--client-secret-stdin read no secret"),
            (["remote", "set", "dropbox", "x"], "unknown remote kind 'dropbox'; use: folder, webdav, gdrive"),
        ])
    func refused(arguments: [String], message: String) {
        let result = sandbox.run(arguments)
        #expect(result.status == 64, "\(result.output) \(result.errorOutput)")
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Usage: midiccio remote set <kind> [<location>]"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath))
    }

    @Test("without a client the error points to the README's steps for making one")
    func noClientPointsToReadme() {
        let result = sandbox.run(["remote", "set", "gdrive", "--no-browser"])
        #expect(result.errorOutput.contains("\"Sync through Google Drive\" says how to make one in the Google Cloud console"))
    }

    @Test("a client id in the environment that cannot be one is named as the problem")
    func badClientInEnvironment() {
        let result = sandbox.run(
            ["remote", "set", "gdrive"], environment: sandbox.environment.merging(["MIDICCIO_GDRIVE_CLIENT_ID": "my client"]) { $1 })
        #expect(result.status == 64)
        #expect(result.errorOutput.contains("MIDICCIO_GDRIVE_CLIENT_ID must be an OAuth client id"), "\(result.errorOutput)")
    }

    @Test("the help of remote set explains gdrive and its options")
    func help() {
        let help = sandbox.run("help", "remote", "set").output
        for text in [
            "gdrive:", "--folder <name>", "--client-id <id>", "--client-secret-stdin", "--no-browser", "MIDICCIO_GDRIVE_CLIENT_SECRET",
        ] {
            #expect(help.contains(text), "\(text) is not in the help")
        }
    }
}
