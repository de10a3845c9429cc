import Foundation
import MiDiccioKit
import Testing

/// `midiccio remote set gdrive --no-browser`, as someone signed in over SSH uses it: open
/// the printed address in a browser elsewhere, then paste back the address the browser
/// ends on (`http://127.0.0.1:PORT/?code=...`, which does not load there).
@Suite("Signing in to Google Drive without a browser")
final class SignInToGoogleDriveWithoutABrowserTests {
    let sandbox: Sandbox
    let drive: SignInTestDrive
    let processes: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        drive = try SignInTestDrive()
        processes = try ChildProcesses(in: sandbox)
    }

    @Test("the pasted address signs the library in: the sign-in is kept 0600 with a refresh token, and no token is printed")
    func pastedAddressSignsIn() throws {
        let input = try InputPipe()
        let child = try processes.start(
            ["remote", "set", "gdrive", "--client-id", "test", "--no-browser", "--device-name", "Ana's server"],
            environment: drive.environment, input: input.readEnd)
        let address = try child.line(containing: "/oauth/authorize?")
        let consent = try LoopbackHTTP.send("GET", address)
        #expect(consent.status == 302)
        let landing = try #require(consent.location)
        #expect(landing.hasPrefix("http://127.0.0.1:"))
        // What a hurried user pastes first: a line that is no address, then the address of
        // an earlier attempt. Both are explained, and the command waits for the right one.
        input.type("where do I find the code?")
        input.type(try withOtherState(landing))
        input.type(landing)
        input.closeInput()
        let run = processes.finish(child, timeout: 60)

        #expect(run.succeeded, "\(run)")
        #expect(
            run.output.contains("Signed in to Google Drive; remote set to google drive (app data folder)."), "\(run.output)")
        #expect(run.output.contains("Run 'midiccio sync' to sync now."))
        #expect(run.output.contains("\(sandbox.libraryPath).google-drive, readable only by you"))
        #expect(run.errorOutput.contains("That is not the address the browser ends on"), "\(run.errorOutput)")
        #expect(run.errorOutput.contains("That address belongs to another sign-in"), "\(run.errorOutput)")

        let stored = try StoredGoogleSignIn(libraryPath: sandbox.libraryPath)
        #expect(stored.mode == 0o600)
        #expect(!stored.refreshToken.isEmpty)
        #expect(stored.object["clientId"] as? String == "test")
        #expect(try remote(ofLibraryAt: sandbox.libraryPath) == .googleDrive(.appData))
        #expect(try WordLibrary(path: sandbox.libraryPath, create: false).deviceName() == "Ana's server")

        let shown = sandbox.run(["remote", "show"], environment: sandbox.environment.merging(drive.environment) { $1 })
        #expect(shown.output.contains("google drive (app data folder) (this device: Ana's server)"), "\(shown.output)")
        #expect(shown.output.contains("sign-in   stored in \(sandbox.libraryPath).google-drive"))
        let json = try sandbox.run(["remote", "show", "--json"]).jsonObject()
        #expect(json["kind"] as? String == "gdrive" && json["space"] as? String == "appdata" && json["signedIn"] as? Bool == true)
        for output in [run.output + run.errorOutput, shown.output + shown.errorOutput] {
            for secret in stored.secrets { #expect(!output.contains(secret), "a token was printed") }
        }
        let library = try Data(contentsOf: URL(fileURLWithPath: sandbox.libraryPath))
        #expect(library.range(of: Data(stored.refreshToken.utf8)) == nil, "the refresh token is not in the library")
    }

    @Test("with --client-secret-stdin the secret is the first line and the address the next; the secret is kept, never printed")
    func secretThenAddress() throws {
        try drive.setFaults(#"{"clientSecret": "s3cret-of-the-client"}"#)
        let input = try InputPipe()
        input.type("s3cret-of-the-client")
        let child = try processes.start(
            // Pasted with a space after it: the name is the one Settings makes of it (round 19A).
            ["remote", "set", "gdrive", "--client-id", "test", "--client-secret-stdin", "--no-browser", "--folder", "Mis palabras "],
            environment: drive.environment, input: input.readEnd)
        let address = try child.line(containing: "/oauth/authorize?")
        #expect(address.contains("drive.file"), "a visible folder asks for drive.file")
        input.type(try #require(try LoopbackHTTP.send("GET", address).location))
        input.closeInput()
        let run = processes.finish(child, timeout: 60)

        #expect(run.succeeded, "\(run)")
        #expect(run.output.contains("remote set to google drive folder Mis palabras"), "\(run.output)")
        let stored = try StoredGoogleSignIn(libraryPath: sandbox.libraryPath)
        #expect(stored.object["clientSecret"] as? String == "s3cret-of-the-client")
        #expect(stored.object["scope"] as? String == "https://www.googleapis.com/auth/drive.file")
        #expect(!(run.output + run.errorOutput).contains("s3cret-of-the-client"))
        #expect(try remote(ofLibraryAt: sandbox.libraryPath) == .googleDrive(.folder("Mis palabras")))
    }

    @Test("a client secret Google does not accept is reported, and nothing changes")
    func wrongSecret() throws {
        try drive.setFaults(#"{"clientSecret": "the-right-one"}"#)
        let input = try InputPipe()
        let child = try processes.start(
            ["remote", "set", "gdrive", "--client-id", "test", "--no-browser"],
            environment: drive.environment.merging([GoogleOAuthClient.secretVariable: "a-wrong-one"]) { $1 }, input: input.readEnd)
        input.type(try #require(try LoopbackHTTP.send("GET", try child.line(containing: "/oauth/authorize?")).location))
        input.closeInput()
        let run = processes.finish(child, timeout: 60)
        #expect(run.ending == .exited(1))
        #expect(run.errorOutput.contains("Google does not accept this OAuth client (check its id and secret)"), "\(run.errorOutput)")
        #expect(run.errorOutput.contains("nothing was changed"))
        #expect(!run.errorOutput.contains("a-wrong-one"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath + ".google-drive"))
    }

    /// `remote set gdrive --no-browser` given `pasted` (each line typed), then the end of its
    /// input: how it ended. It fails.
    private func signInEndingAfter(_ pasted: [String]) throws -> ChildRun {
        let input = try InputPipe()
        let child = try processes.start(
            ["remote", "set", "gdrive", "--client-id", "test", "--no-browser"], environment: drive.environment, input: input.readEnd)
        _ = try child.line(containing: "/oauth/authorize?")
        for line in pasted { input.type(line) }
        input.closeInput()
        let run = processes.finish(child, timeout: 60)
        #expect(run.ending == .exited(1))
        return run
    }

    @Test("input that ends before an address is pasted changes nothing")
    func nothingPasted() throws {
        let run = try signInEndingAfter([])
        #expect(run.errorOutput.contains("no sign-in address was pasted; nothing was changed"), "\(run.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath))
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath + ".google-drive"))
    }

    @Test("input that ends after an address of another sign-in says so, and changes nothing")
    func anotherSignInsAddressPasted() throws {
        let run = try signInEndingAfter(["http://127.0.0.1:8080/callback?state=an-earlier-attempt&code=abc"])
        #expect(run.errorOutput.contains("That address belongs to another sign-in"), "\(run.errorOutput)")
        #expect(run.errorOutput.contains("the input ended after an address of another sign-in"), "\(run.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath + ".google-drive"))
    }
}
