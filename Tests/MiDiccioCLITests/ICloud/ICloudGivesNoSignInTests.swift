import Foundation
import MiDiccioKit
import Testing

/// Apple sends the browser back without a web auth token: the user cancelled, or the
/// account has Advanced Data Protection turned on. Nothing may change.
@Suite("iCloud gives no sign-in")
final class ICloudGivesNoSignInTests {
    let sandbox: Sandbox
    let cloud: SignInTestCloudKit
    let processes: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        cloud = try SignInTestCloudKit()
        processes = try ChildProcesses(in: sandbox)
        try cloud.tenant.configure(deny: true)
    }

    @Test("in the browser: the command stops, names Advanced Data Protection, and leaves the library without a remote")
    func deniedInTheBrowser() throws {
        let child = try processes.start(["remote", "set", "icloud"], environment: cloud.environment)
        let landing = try #require(try LoopbackHTTP.send("GET", try child.line(containing: "/_signin?")).location)
        #expect(!landing.contains("ckWebAuthToken"))
        let page = try LoopbackHTTP.send("GET", landing)
        #expect(page.body.contains("Advanced Data Protection"))
        let run = processes.finish(child, timeout: 60)

        #expect(run.ending == .exited(1), "\(run)")
        #expect(run.errorOutput.contains("accounts with Advanced Data Protection cannot use iCloud from the web"), "\(run.errorOutput)")
        #expect(run.errorOutput.contains("nothing was changed"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath + ".icloud"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath), "the library was not even made")
    }

    @Test("pasted: the callback address without a token says the same, and nothing changes")
    func deniedPasted() throws {
        let made = try processes.run(["remote", "set", "folder", sandbox.directory])
        #expect(made.succeeded, "\(made)")
        let input = try InputPipe()
        let child = try processes.start(["remote", "set", "icloud", "--no-browser"], environment: cloud.environment, input: input.readEnd)
        let landing = try #require(try LoopbackHTTP.send("GET", try child.line(containing: "/_signin?")).location)
        input.type(landing)
        input.closeInput()
        let run = processes.finish(child, timeout: 60)

        #expect(run.ending == .exited(1), "\(run)")
        #expect(run.errorOutput.contains("Advanced Data Protection"), "\(run.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath + ".icloud"))
        #expect(try remote(ofLibraryAt: sandbox.libraryPath) == .folder(path: sandbox.directory))
    }
}
