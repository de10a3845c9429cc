import Foundation
import MiDiccioKit
import Testing

/// `midiccio remote set gdrive` as most people use it: the browser opens (here the test
/// is the browser: `BROWSER` opens nothing), Google sends it back to midiccio's loopback
/// address, and the command finishes on its own.
@Suite("Signing in to Google Drive in the browser")
final class SignInToGoogleDriveInTheBrowserTests {
    let sandbox: Sandbox
    let drive: SignInTestDrive
    let processes: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        drive = try SignInTestDrive()
        processes = try ChildProcesses(in: sandbox)
    }

    var environment: [String: String] { drive.environment.merging(["BROWSER": "/bin/true"]) { $1 } }

    @Test("Google's redirect to the loopback address completes the sign-in; a stray request or one of another sign-in does not")
    func redirectCompletesSignIn() throws {
        let child = try processes.start(
            ["remote", "set", "gdrive", "--client-id", "test", "--folder", "MiDiccio"], environment: environment)
        let address = try child.line(containing: "/oauth/authorize?")
        let consent = try LoopbackHTTP.send("GET", address)
        #expect(consent.status == 302)
        let landing = try #require(consent.location)

        // The browser asks for an icon, and an old tab comes back with another state.
        let receiver = try #require(URLComponents(string: landing))
        let icon = try LoopbackHTTP.send("GET", "http://127.0.0.1:\(receiver.port ?? 0)/favicon.ico")
        #expect(icon.status == 404)
        let stale = try LoopbackHTTP.send("GET", try withOtherState(landing))
        #expect(stale.status == 400)
        #expect(stale.body.contains("does not belong to the sign-in MiDiccio is waiting for"))
        #expect(child.poll() == nil, "still waiting for the right answer")

        let page = try LoopbackHTTP.send("GET", landing)
        #expect(page.status == 200)
        #expect(page.body.contains("Signed in; you can close this tab"))
        #expect(
            page.headers["content-security-policy"]
                == "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
        )
        let run = processes.finish(child, timeout: 60)

        #expect(run.succeeded, "\(run)")
        #expect(run.output.contains("Signed in to Google Drive; remote set to google drive folder MiDiccio."), "\(run.output)")
        let stored = try StoredGoogleSignIn(libraryPath: sandbox.libraryPath)
        #expect(stored.mode == 0o600)
        #expect(!stored.refreshToken.isEmpty)
        for secret in stored.secrets { #expect(!(run.output + run.errorOutput).contains(secret), "a token was printed") }
        #expect(try remote(ofLibraryAt: sandbox.libraryPath) == .googleDrive(.folder("MiDiccio")))
    }

    @Test("remote remove ends the sign-in: the file goes and Google is asked to revoke the token")
    func removeRevokes() throws {
        let child = try processes.start(["remote", "set", "gdrive", "--client-id", "test"], environment: environment)
        let landing = try #require(try LoopbackHTTP.send("GET", try child.line(containing: "/oauth/authorize?")).location)
        _ = try LoopbackHTTP.send("GET", landing)
        #expect(processes.finish(child, timeout: 60).succeeded)
        #expect(try drive.requestCounts()["oauth.revoke", default: 0] == 0)

        let removed = try processes.run(["remote", "remove"], environment: environment)
        #expect(removed.succeeded, "\(removed)")
        #expect(removed.output.contains("This library no longer syncs."))
        #expect(removed.errorOutput.contains("Signed out of Google Drive"), "\(removed.errorOutput)")
        #expect(try drive.requestCounts()["oauth.revoke", default: 0] == 1)
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath + ".google-drive"))
        #expect(try remote(ofLibraryAt: sandbox.libraryPath) == nil)
    }
}
