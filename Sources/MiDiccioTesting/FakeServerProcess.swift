import Foundation

/// Where a fake server of the tests listens (`FakeGoogleDrive`, `FakeCloudKit`): the one
/// `make test` started and named in an environment variable, or a private one started
/// with the fake's `server.sh`, which `stop()` ends.
package struct FakeServerProcess: Sendable {
    /// The server's base ("http://127.0.0.1:PORT").
    package let url: String
    private let stateDirectory: String?
    private let script: String?

    private init(url: String, stateDirectory: String?, script: String?) {
        self.url = url
        self.stateDirectory = stateDirectory
        self.script = script
    }

    /// The server named in the environment variable `variable`, if any.
    package static func shared(_ variable: String) -> FakeServerProcess? {
        guard let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty else { return nil }
        return FakeServerProcess(url: url, stateDirectory: nil, script: nil)
    }

    /// Starts a private server with `script` (its `server.sh`), in a new temporary state
    /// folder named `prefix` and a random suffix; `noURL` is the error when the script
    /// wrote no `STATE_DIR/url`.
    package static func start(
        script: String, prefix: String, noURL: (_ stateDirectory: String) -> any Error
    ) throws -> FakeServerProcess {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8))").path
        try ServerScript.run(script, ["start", state])
        guard let url = try? String(contentsOfFile: state + "/url", encoding: .utf8) else { throw noURL(state) }
        return FakeServerProcess(url: url.trimmingCharacters(in: .whitespacesAndNewlines), stateDirectory: state, script: script)
    }

    /// Stops a server started by `start(script:prefix:noURL:)`; does nothing for a shared one.
    package func stop() {
        guard let script, let stateDirectory else { return }
        try? ServerScript.run(script, ["stop", stateDirectory])
    }
}
