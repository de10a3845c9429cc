import Foundation
import MiDiccioKit
import Testing

/// `midiccio remote set icloud` as most people use it: the browser opens (here the test
/// is the browser: `BROWSER` opens nothing), Apple sends it back to the API token's
/// callback address, where midiccio waits, and the command finishes on its own.
@Suite("Signing in to iCloud in the browser")
final class SignInToICloudInTheBrowserTests {
    let sandbox: Sandbox
    let cloud: SignInTestCloudKit
    let processes: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        cloud = try SignInTestCloudKit()
        processes = try ChildProcesses(in: sandbox)
    }

    @Test("Apple's redirect to the callback address completes the sign-in: kept 0600, checked, no token printed")
    func redirectCompletesSignIn() throws {
        let child = try processes.start(
            ["remote", "set", "icloud", "--environment", "development", "--zone", "Palabras"], environment: cloud.environment)
        let address = try child.line(containing: "/_signin?")
        let signInPage = try LoopbackHTTP.send("GET", address)
        #expect(signInPage.status == 302)
        let landing = try #require(signInPage.location)
        #expect(landing.hasPrefix(cloud.callbackURL + "?ckWebAuthToken="))

        // The browser asks for an icon first; that is no answer.
        let receiver = try #require(URLComponents(string: landing))
        #expect(try LoopbackHTTP.send("GET", "http://127.0.0.1:\(receiver.port ?? 0)/favicon.ico").status == 404)
        #expect(child.poll() == nil, "still waiting for the answer")

        let page = try LoopbackHTTP.send("GET", landing)
        #expect(page.status == 200)
        #expect(page.body.contains("Signed in; you can close this tab"))
        let run = processes.finish(child, timeout: 60)

        #expect(run.succeeded, "\(run)")
        #expect(
            run.output.contains("Signed in to iCloud; remote set to icloud iCloud.app.midiccio.test (development) zone Palabras."),
            "\(run.output)")
        #expect(run.output.contains("\(sandbox.libraryPath).icloud, readable only by you"))
        let stored = try StoredICloudSignIn(libraryPath: sandbox.libraryPath)
        #expect(stored.mode == 0o600)
        #expect(stored.object["container"] as? String == cloud.container)
        #expect(stored.object["environment"] as? String == "development")
        #expect((stored.object["userRecordName"] as? String)?.hasPrefix("_") == true, "checked with users/caller")
        let database = try #require(CloudKitDatabase(container: cloud.container, environment: .development, zone: "Palabras"))
        #expect(try remote(ofLibraryAt: sandbox.libraryPath) == .iCloud(database))

        let shown = try processes.run(["remote", "show"], environment: cloud.environment)
        #expect(shown.output.contains("icloud iCloud.app.midiccio.test (development) zone Palabras (this device:"), "\(shown.output)")
        #expect(shown.output.contains("sign-in   stored in \(sandbox.libraryPath).icloud"), "\(shown.output)")
        for output in [run.output + run.errorOutput, shown.output + shown.errorOutput] {
            for secret in stored.secrets { #expect(!output.contains(secret), "a token was printed") }
        }
    }

    @Test("remote remove, or moving to another remote, deletes the sign-in file")
    func removeDeletesTheSignIn() throws {
        for next in [["remote", "remove"], ["remote", "set", "folder", sandbox.directory]] {
            let child = try processes.start(["remote", "set", "icloud"], environment: cloud.environment)
            let landing = try #require(try LoopbackHTTP.send("GET", try child.line(containing: "/_signin?")).location)
            _ = try LoopbackHTTP.send("GET", landing)
            #expect(processes.finish(child, timeout: 60).succeeded)
            #expect(FileManager.default.fileExists(atPath: sandbox.libraryPath + ".icloud"))

            let moved = try processes.run(next, environment: cloud.environment)
            #expect(moved.succeeded, "\(moved)")
            #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath + ".icloud"), "\(next)")
        }
    }
}
