import Foundation
import Testing

@Suite("Global options and '--' on the whole command line")
final class CommandLineTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("'midiccio add -- -ismo' adds the term -ismo")
    func termAfterDoubleDash() throws {
        let result = sandbox.run("add", "--", "-ismo")
        #expect(result.status == 0, "\(result.errorOutput)")
        #expect(try sandbox.listedTerms() == ["-ismo"])
    }

    @Test("--library before the command still counts when the command's arguments contain '--'")
    func globalOptionBeforeDoubleDash() throws {
        let other = sandbox.path("other.sqlite")
        let result = sandbox.run("--library", other, "add", "--", "-ismo")
        #expect(result.status == 0, "\(result.errorOutput)")
        let listed = sandbox.run("--library", other, "list", "--json")
        #expect(try listed.jsonArray().compactMap { $0["term"] as? String } == ["-ismo"])
        #expect(!sandbox.exists(sandbox.libraryPath))
    }
}
