import Foundation
import MiDiccioCLI
import MiDiccioTesting
import Testing

/// One test's temporary folder, with a library path inside it; removed, with
/// everything in it, when the sandbox goes away.
///
/// Suites hold it as a stored property of a `final class`, so Swift Testing makes a
/// fresh sandbox for every test (and every test case) and removes it after the test.
final class Sandbox {
    /// The temporary folder.
    let directory: String

    /// Makes an empty temporary folder.
    init() throws {
        directory =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("midiccio-cli-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The library every `run` uses unless told otherwise.
    var libraryPath: String { path("library.sqlite") }

    /// A path inside the sandbox.
    func path(_ name: String) -> String { directory + "/" + name }

    /// An environment that never reaches the real home folder: the library, HOME and
    /// XDG_DATA_HOME all point inside the sandbox.
    var environment: [String: String] {
        ["MIDICCIO_LIBRARY": libraryPath, "HOME": path("home"), "XDG_DATA_HOME": path("data"), "LANG": "en_US.UTF-8"]
    }

    /// Runs `midiccio` in-process with `arguments` (without the program name).
    ///
    /// `environment` replaces the sandbox's whole environment when given; `terminal`
    /// and `errorTerminal` say whether standard output and standard error pretend to be
    /// a terminal.
    @discardableResult
    func run(
        _ arguments: [String], environment: [String: String]? = nil,
        terminal: Bool = false, errorTerminal: Bool = false
    ) -> ToolRun {
        let io = CapturedIO()
        io.outputIsTerminal = terminal
        io.errorIsTerminal = errorTerminal
        let status = Tool.run(arguments, environment: environment ?? self.environment, io: io)
        return ToolRun(status: status, output: io.output, errorOutput: io.errorOutput)
    }

    /// Runs `midiccio` in-process with the sandbox's environment.
    @discardableResult
    func run(_ arguments: String...) -> ToolRun {
        run(arguments)
    }

    /// Adds a word through the CLI and returns its full id.
    @discardableResult
    func add(_ term: String, _ options: String...) throws -> String {
        let result = run(["add", term, "--json"] + options)
        try #require(result.status == 0, "add \(term) failed: \(result.errorOutput)")
        return try #require(try result.jsonObject()["id"] as? String)
    }

    /// The words `list --json` prints, in its order.
    func listedWords(_ options: String...) throws -> [[String: Any]] {
        let result = run(["list", "--json"] + options)
        try #require(result.status == 0, "list failed: \(result.errorOutput)")
        return try result.jsonArray()
    }

    /// The terms of the words `list --json --sort term` prints.
    func listedTerms() throws -> [String] {
        try listedWords("--sort", "term").compactMap { $0["term"] as? String }
    }

    /// The whole content of a file, or nil when it does not exist.
    func contents(of path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Writes `text` (UTF-8) to a file in the sandbox and returns its path.
    func write(_ text: String, to name: String) throws -> String {
        let target = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: target))
        return target
    }

    /// True when something exists at `path`.
    func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}

/// What one in-process run of the tool did.
struct ToolRun {
    /// The exit code.
    var status: Int32
    /// Everything written to standard output.
    var output: String
    /// Everything written to standard error.
    var errorOutput: String

    /// Standard output parsed as a JSON object.
    func jsonObject() throws -> [String: Any] {
        try #require(try parsedJSON() as? [String: Any], "not a JSON object: \(output)")
    }

    /// Standard output parsed as a JSON array of objects.
    func jsonArray() throws -> [[String: Any]] {
        try #require(try parsedJSON() as? [[String: Any]], "not a JSON array of objects: \(output)")
    }

    /// Standard output parsed as any JSON value.
    func parsedJSON() throws -> Any {
        try JSONSerialization.jsonObject(with: Data(output.utf8))
    }
}
