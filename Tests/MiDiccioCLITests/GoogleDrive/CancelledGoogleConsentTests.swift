import Foundation
import MiDiccioKit
import Testing

/// Someone starts `midiccio remote set gdrive` and then says no on Google's consent
/// screen: the library keeps syncing where it did, and no sign-in is kept.
@Suite("A cancelled Google consent changes nothing")
final class CancelledGoogleConsentTests {
    let sandbox: Sandbox
    let drive: SignInTestDrive
    let processes: ChildProcesses
    let folder: String

    init() throws {
        sandbox = try Sandbox()
        drive = try SignInTestDrive()
        processes = try ChildProcesses(in: sandbox)
        folder = sandbox.path("Dropbox")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let set = sandbox.run("remote", "set", "folder", folder)
        try #require(set.status == 0, "\(set.errorOutput)")
        try drive.setFaults(#"{"denyConsent": true}"#)
    }

    @Test("in the browser: the page and the command say it was cancelled, and the folder remote stays")
    func cancelledInTheBrowser() throws {
        let child = try processes.start(
            ["remote", "set", "gdrive", "--client-id", "test"], environment: drive.environment.merging(["BROWSER": "/bin/true"]) { $1 })
        let landing = try #require(try LoopbackHTTP.send("GET", try child.line(containing: "/oauth/authorize?")).location)
        #expect(landing.contains("error=access_denied"))
        let page = try LoopbackHTTP.send("GET", landing)
        #expect(page.body.contains("Not signed in: the sign-in was cancelled in the browser"))
        let run = processes.finish(child, timeout: 60)

        #expect(run.ending == .exited(1))
        #expect(run.errorOutput.contains("Error: the sign-in was cancelled in the browser; nothing was changed"), "\(run.errorOutput)")
        #expect(try remote(ofLibraryAt: sandbox.libraryPath) == .folder(path: folder))
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath + ".google-drive"))
    }

    @Test("with --no-browser: the pasted address says it was cancelled, and the folder remote stays")
    func cancelledAndPasted() throws {
        let input = try InputPipe()
        let child = try processes.start(
            ["remote", "set", "gdrive", "--client-id", "test", "--no-browser"], environment: drive.environment, input: input.readEnd)
        input.type(try #require(try LoopbackHTTP.send("GET", try child.line(containing: "/oauth/authorize?")).location))
        input.closeInput()
        let run = processes.finish(child, timeout: 60)

        #expect(run.ending == .exited(1))
        #expect(run.errorOutput.contains("Error: the sign-in was cancelled in the browser; nothing was changed"), "\(run.errorOutput)")
        #expect(try remote(ofLibraryAt: sandbox.libraryPath) == .folder(path: folder))
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath + ".google-drive"))
    }
}
