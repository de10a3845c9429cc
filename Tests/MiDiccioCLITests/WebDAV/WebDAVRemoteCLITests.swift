import Foundation
import MiDiccioCLI
import MiDiccioKit
import MiDiccioTesting
import Testing

/// `midiccio remote set webdav URL [--user NAME] [--password-stdin]`, `remote show` and
/// `sync` through the real WebDAV server `make test` starts.
final class WebDAVRemoteCLITests {
    let sandbox: Sandbox
    static let environment = ProcessInfo.processInfo.environment
    static let serverURL = environment["MIDICCIO_WEBDAV_TEST_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let serverUser = environment["MIDICCIO_WEBDAV_TEST_USER"] ?? ""
    static let serverPassword = environment["MIDICCIO_WEBDAV_TEST_PASSWORD"] ?? ""
    /// Under CI a missing server fails the tests instead of skipping them.
    static let shouldRun = serverURL != nil || ["true", "1", "yes"].contains((environment["CI"] ?? "").lowercased())

    init() throws { sandbox = try Sandbox() }

    /// Runs the tool with `input` as standard input.
    func run(_ arguments: [String], input: String = "", library: String? = nil, environment extra: [String: String] = [:]) -> ToolRun {
        let io = CapturedIO(input: input)
        var environment = sandbox.environment.merging(extra) { $1 }
        environment["MIDICCIO_OFFLINE"] = "1"
        if let library { environment["MIDICCIO_LIBRARY"] = sandbox.path(library) }
        let status = Tool.run(arguments, environment: environment, io: io)
        return ToolRun(status: status, output: io.output, errorOutput: io.errorOutput)
    }

    func server() throws -> String {
        guard let url = Self.serverURL else {
            throw CLIWebDAVSetupError(
                description: "MIDICCIO_WEBDAV_TEST_URL is not set: run the tests with 'make test', which starts the WebDAV server")
        }
        return url
    }

    @Test("remote set webdav stores the password in a 0600 file beside the library, and remote show masks it")
    func setAndShow() throws {
        let secret = "cli-secret-\(UUID().uuidString)"
        let result = run(
            ["remote", "set", "webdav", "https://cloud.example.com/dav/MiDiccio/", "--user", "ana", "--password-stdin"],
            input: secret + "\n")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(result.output.contains("webdav https://cloud.example.com/dav/MiDiccio as ana"))
        let credentials = sandbox.libraryPath + ".credentials"
        let mode = try FileManager.default.attributesOfItem(atPath: credentials)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)

        let shown = run(["remote", "show"])
        #expect(shown.status == 0)
        #expect(shown.output.contains("webdav https://cloud.example.com/dav/MiDiccio"))
        #expect(shown.output.contains("user      ana"))
        #expect(shown.output.contains("password  stored in"))
        let json = run(["remote", "show", "--json"])
        let object = try json.jsonObject()
        #expect(object["kind"] as? String == "webdav" && object["user"] as? String == "ana" && object["password"] as? String == "stored")
        let status = run(["status"])
        for output in [result, shown, json, status] {
            #expect(!(output.output + output.errorOutput).contains(secret))
        }
        let library = try Data(contentsOf: URL(fileURLWithPath: sandbox.libraryPath))
        #expect(library.range(of: Data(secret.utf8)) == nil, "the password is not in the library")
    }

    @Test("a password that cannot be stored leaves the remote as it was (round 12B)")
    func passwordNotStoredChangesNothing() throws {
        let cloud = sandbox.path("cloud")
        #expect(run(["remote", "set", "folder", cloud]).status == 0)
        // Something that is not a file where the password goes: it cannot be written there.
        try FileManager.default.createDirectory(atPath: sandbox.libraryPath + ".credentials", withIntermediateDirectories: false)
        let result = run(
            ["remote", "set", "webdav", "https://cloud.example.com/dav/MiDiccio/", "--user", "ana", "--password-stdin"], input: "pw\n")
        #expect(result.status == 1, "\(result.output)")
        #expect(result.errorOutput.contains(".credentials"), "\(result.errorOutput)")
        let shown = try run(["remote", "show", "--json"]).jsonObject()
        #expect(shown["kind"] as? String == "folder", "\(shown)")
    }

    @Test("--password-stdin takes the first line whatever ends it: a file saved on Windows, an old Mac, or no line end at all")
    func passwordLineEnds() throws {
        for input in ["pw-line\r\nsecond", "pw-line\rsecond", "pw-line\n", "pw-line"] {
            let result = run(
                ["remote", "set", "webdav", "https://cloud.example.com/dav/MiDiccio/", "--user", "ana", "--password-stdin"], input: input)
            #expect(result.status == 0, "\(result.errorOutput)")
            let stored = try WebDAVCredentials.load(from: sandbox.libraryPath + ".credentials")
            let kept = String(describing: stored?.password).debugDescription
            #expect(stored?.password == "pw-line", "\(input.debugDescription) stored \(kept)")
        }
    }

    @Test("a password written into the URL is moved to the credentials file, never kept in the URL")
    func passwordInURL() throws {
        let result = run(["remote", "set", "webdav", "https://ana:in-the-url@cloud.example.com/dav"])
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(!result.output.contains("in-the-url"))
        #expect(run(["remote", "show"]).output.contains("user      ana"))
        #expect(!run(["remote", "show", "--json"]).output.contains("in-the-url"))
    }

    @Test(
        "a bad WebDAV remote is a usage error (exit 64) that says why",
        arguments: [
            (["remote", "set", "webdav", "ftp://host/dav"], "https:// or http://"),
            (["remote", "set", "webdav", "not a url"], "not a URL"),
            (["remote", "set", "webdav", "https://host/dav?x=1"], "query"),
            (["remote", "set", "webdav", "https://host/dav", "--password-stdin"], "needs a user name"),
            (["remote", "set", "folder", "/tmp/x", "--user", "ana"], "webdav remotes only"),
            (["remote", "set", "webdav", "https://host/dav", "--user", "ana", "--password-stdin"], "no password"),
            (["remote", "set", "gopher", "x"], "use: folder, webdav"),
        ])
    func usageErrors(arguments: [String], message: String) {
        let result = run(arguments)
        #expect(result.status == 64)
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        #expect(result.errorOutput.contains("Usage: midiccio remote set"))
    }

    @Test("a remote that cannot be reached only warns before list, and the words are shown")
    func syncOnOpenWarns() throws {
        _ = run(["add", "palabra"], library: "a.sqlite")
        // Port 9 (discard) on the loopback address: nothing listens there.
        #expect(
            run(
                ["remote", "set", "webdav", "http://127.0.0.1:9/MiDiccio", "--user", "ana", "--password-stdin"],
                input: "x\n", library: "a.sqlite"
            ).status == 0)
        let io = CapturedIO()
        var environment = sandbox.environment
        environment["MIDICCIO_LIBRARY"] = sandbox.path("a.sqlite")
        let status = Tool.run(["list"], environment: environment, io: io)
        #expect(status == 0)
        #expect(io.output.contains("palabra"))
        #expect(io.errorOutput.contains("warning:"), "\(io.errorOutput)")
        #expect(!io.errorOutput.contains("x@"))
    }

    @Test(
        "two libraries sync through the WebDAV server with the CLI: add, edit, delete and restore across them",
        .enabled(if: WebDAVRemoteCLITests.shouldRun, "needs the WebDAV test server: run 'make test'"))
    func twoLibraries() throws {
        let base = try server() + "/cli-\(UUID().uuidString.prefix(8))"
        let password = Self.serverPassword + "\n"
        #expect(
            run(
                ["remote", "set", "webdav", base, "--user", Self.serverUser, "--password-stdin", "--device-name", "one"],
                input: password, library: "one.sqlite"
            ).status == 0)
        #expect(
            run(
                ["remote", "set", "webdav", base, "--user", Self.serverUser, "--device-name", "two"],
                library: "two.sqlite", environment: ["MIDICCIO_WEBDAV_PASSWORD": Self.serverPassword]
            ).status == 0)
        let two = ["MIDICCIO_WEBDAV_PASSWORD": Self.serverPassword]

        let added = run(["add", "ventana", "--meaning", "window", "--json"], library: "one.sqlite")
        let id = try #require(try added.jsonObject()["id"] as? String)
        let first = run(["sync", "--json"], library: "one.sqlite")
        #expect(first.status == 0, "\(first.errorOutput)")
        #expect(try first.jsonObject()["pushed"] as? Int == 1)
        let pulled = run(["sync", "--json"], library: "two.sqlite", environment: two)
        #expect(pulled.status == 0, "\(pulled.errorOutput)")
        #expect(try pulled.jsonObject()["pulled"] as? Int == 1)

        #expect(run(["edit", id, "--notes", "from two"], library: "two.sqlite").status == 0)
        #expect(run(["sync"], library: "two.sqlite", environment: two).status == 0)
        #expect(run(["delete", id], library: "one.sqlite").status == 0)
        #expect(run(["sync"], library: "one.sqlite").status == 0)
        #expect(run(["sync"], library: "two.sqlite", environment: two).status == 0)
        #expect(run(["trash"], library: "two.sqlite").output.contains("ventana"))
        #expect(run(["restore", id], library: "two.sqlite").status == 0)
        #expect(run(["sync"], library: "two.sqlite", environment: two).status == 0)
        #expect(run(["sync"], library: "one.sqlite").status == 0)
        let shown = try run(["show", id, "--json"], library: "one.sqlite").jsonObject()
        #expect(shown["notes"] as? String == "from two")
        #expect(shown["deletedAt"] is NSNull)

        let status = run(["status"], library: "one.sqlite")
        #expect(status.output.contains("webdav \(base)"))
        #expect(status.output.contains("two"))
        #expect(!status.output.contains(Self.serverPassword))

        // A wrong password: a clear error, exit 1, and the password in no output.
        let wrong = run(["sync"], library: "two.sqlite", environment: ["MIDICCIO_WEBDAV_PASSWORD": "wrong-\(Self.serverPassword)"])
        #expect(wrong.status == 1)
        // It came from MIDICCIO_WEBDAV_PASSWORD: the error names the variable, and does not
        // send the person to store the password again, which the variable overrides (round 13C).
        #expect(wrong.errorOutput.contains("the password in MIDICCIO_WEBDAV_PASSWORD, which is used instead of the stored one"))
        #expect(!wrong.errorOutput.contains("set the user name and password again"), "\(wrong.errorOutput)")
        #expect(!wrong.errorOutput.contains(Self.serverPassword))
    }
}

/// The WebDAV test server is missing.
struct CLIWebDAVSetupError: Error, CustomStringConvertible {
    var description: String
}
