import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCLI
@testable import MiDiccioCLICore

/// A command given a library path where there is none makes a new, empty library there.
/// With a mistyped `--library`, a person then saw "No words yet" or added words to a
/// second list without being told, and the words seemed lost. A person at a terminal is
/// now told where the new library is; scripts, reading a pipe, are not.
@Suite("A new library says where it was made")
final class ANewLibraryIsNamedWhereItIsMadeTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("the first command at a terminal names the new library; the next one, and any command in a script, do not")
    func namedOnceAtATerminal() throws {
        let path = sandbox.path("typo/library.sqlit")
        let first = CapturedIO()
        first.errorIsTerminal = true
        #expect(Tool.run(["--library", path, "list"], environment: sandbox.environment, io: first) == 0)
        #expect(first.errorOutput.contains("Started a new, empty library at \(path)"), "\(first.errorOutput)")
        #expect(first.errorOutput.contains("--library"))

        let second = CapturedIO()
        second.errorIsTerminal = true
        #expect(Tool.run(["--library", path, "list"], environment: sandbox.environment, io: second) == 0)
        #expect(!second.errorOutput.contains("Started a new"), "\(second.errorOutput)")

        let scripted = sandbox.run(["--library", sandbox.path("other.sqlite"), "add", "casa", "--meaning", "house", "--json"])
        #expect(scripted.status == 0)
        #expect(scripted.errorOutput.isEmpty, "\(scripted.errorOutput)")
    }
}
