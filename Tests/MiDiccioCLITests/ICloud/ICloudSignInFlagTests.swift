import Foundation
import MiDiccioKit
import MiDiccioTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `midiccio remote set icloud` with values it cannot use: each error names the flag
/// (or the variable) at fault, or says how to give what is missing, and nothing changes.
@Suite("iCloud sign-in flags")
final class ICloudSignInFlagTests {
    let sandbox: Sandbox
    let processes: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        processes = try ChildProcesses(in: sandbox)
    }

    @Test(
        "a bad value names its flag",
        arguments: [
            (["--container", "app.midiccio"], "--container must be a CloudKit container id"),
            (["--container", "iCloud.a", "--environment", "staging"], "--environment must be development or production"),
            (["--container", "iCloud.a", "--zone", "_defaultZone"], "--zone must be 1 to 64 letters"),
            (["--container", "iCloud.a", "--api-token", "a b"], "--api-token must be the API token"),
            (["--container", "iCloud.a", "--callback-url", "https://127.0.0.1:47297/"], "--callback-url must be an http:// address"),
            (["--container", "iCloud.a", "--callback-url", "http://example.com:47297/"], "--callback-url must be an http:// address"),
            (["--container", "iCloud.a", "--callback-url", "http://127.0.0.1/cb"], "--callback-url must name its port"),
            (["/some/folder"], "icloud takes no location"),
            (["--user", "ana"], "--user and --password-stdin are for webdav remotes only"),
        ])
    func badValue(arguments: [String], message: String) throws {
        let run = try processes.run(["remote", "set", "icloud"] + arguments, environment: ["MIDICCIO_ICLOUD_API_TOKEN": "Token1234"])
        #expect(run.ending == .exited(64), "\(run)")
        #expect(run.errorOutput.contains(message), "\(run.errorOutput)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath))
    }

    @Test("nothing anywhere: the error says how to give the container, then the API token")
    func missingValues() throws {
        let none = try processes.run(["remote", "set", "icloud"])
        #expect(none.ending == .exited(64))
        #expect(none.errorOutput.contains("no CloudKit container: give it with --container"), "\(none.errorOutput)")
        let noToken = try processes.run(["remote", "set", "icloud", "--container", "iCloud.app.midiccio"])
        #expect(noToken.errorOutput.contains("no CloudKit API token: give it with --api-token"), "\(noToken.errorOutput)")
        let badVariable = try processes.run(
            ["remote", "set", "icloud"], environment: ["MIDICCIO_ICLOUD_CONTAINER": "midiccio", "MIDICCIO_ICLOUD_API_TOKEN": "Token1234"])
        #expect(badVariable.errorOutput.contains("MIDICCIO_ICLOUD_CONTAINER must be a CloudKit container id"), "\(badVariable.errorOutput)")
    }

    @Test("the iCloud flags belong to icloud remotes")
    func flagsOfOtherKinds() throws {
        let run = try processes.run(["remote", "set", "folder", sandbox.directory, "--container", "iCloud.a"])
        #expect(run.ending == .exited(64))
        #expect(run.errorOutput.contains("are for icloud remotes only"), "\(run.errorOutput)")
    }

    @Test("a callback port already taken stops before anything changes, and suggests --no-browser")
    func callbackPortTaken() throws {
        let cloud = try SignInTestCloudKit()
        let (socket, port) = try LoopbackPort.hold()
        defer { close(socket) }
        var environment = cloud.environment
        environment["MIDICCIO_ICLOUD_CALLBACK_URL"] = "http://127.0.0.1:\(port)/icloud-callback"
        let run = try processes.run(["remote", "set", "icloud"], environment: environment)
        #expect(run.ending == .exited(1), "\(run)")
        #expect(run.errorOutput.contains("cannot listen on 127.0.0.1:\(port)"), "\(run.errorOutput)")
        #expect(run.errorOutput.contains("--no-browser"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.libraryPath), "the library was not even made")
    }
}
