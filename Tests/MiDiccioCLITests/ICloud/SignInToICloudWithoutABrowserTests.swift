import Foundation
import MiDiccioKit
import Testing

/// `midiccio remote set icloud --no-browser`, as someone signed in over SSH uses it: open
/// the printed address in a browser elsewhere, then paste back the callback address the
/// browser ends on (which does not load there).
@Suite("Signing in to iCloud without a browser")
final class SignInToICloudWithoutABrowserTests {
    let sandbox: Sandbox
    let cloud: SignInTestCloudKit
    let processes: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        cloud = try SignInTestCloudKit()
        processes = try ChildProcesses(in: sandbox)
    }

    @Test("the pasted callback address signs the library in; a line that is no address is explained first")
    func pastedAddressSignsIn() throws {
        let input = try InputPipe()
        let child = try processes.start(
            ["remote", "set", "icloud", "--no-browser", "--device-name", "Ana's server"], environment: cloud.environment,
            input: input.readEnd)
        let address = try child.line(containing: "/_signin?")
        let landing = try #require(try LoopbackHTTP.send("GET", address).location)
        input.type("where is the token?")
        input.type(landing)
        input.closeInput()
        let run = processes.finish(child, timeout: 60)

        #expect(run.succeeded, "\(run)")
        #expect(run.output.contains("Signed in to iCloud; remote set to icloud iCloud.app.midiccio.test."), "\(run.output)")
        #expect(run.errorOutput.contains("That is not the address the browser ends on"), "\(run.errorOutput)")
        let stored = try StoredICloudSignIn(libraryPath: sandbox.libraryPath)
        #expect(stored.mode == 0o600)
        #expect(try WordLibrary(path: sandbox.libraryPath, create: false).deviceName() == "Ana's server")
        let database = try #require(CloudKitDatabase(container: cloud.container, environment: .production))
        #expect(try remote(ofLibraryAt: sandbox.libraryPath) == .iCloud(database))
        let json = try processes.run(["remote", "show", "--json"], environment: cloud.environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "icloud" && object["zone"] as? String == "MiDiccio" && object["signedIn"] as? Bool == true)
        for secret in stored.secrets {
            #expect(!(run.output + run.errorOutput + json.output).contains(secret), "a token was printed")
        }
    }
}
