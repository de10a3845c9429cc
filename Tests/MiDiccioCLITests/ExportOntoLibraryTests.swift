import Foundation
import Testing

@Suite("An export never overwrites the library it comes from")
final class ExportOntoLibraryTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test(
        "writing a backup or an export onto the library file itself is refused and the library keeps its words",
        arguments: [(["backup", "export"], [String]()), (["export"], []), (["export"], ["--format", "tsv"])])
    func exportOntoLibraryRefused(command: [String], options: [String]) throws {
        try sandbox.add("palabra", "--meaning", "word")
        let before = try #require(sandbox.contents(of: sandbox.libraryPath))

        let result = sandbox.run(command + [sandbox.libraryPath] + options)
        #expect(result.status != 0, "the export overwrote the library: \(result.output)")
        #expect(result.errorOutput.hasPrefix("Error: "))
        let after = sandbox.contents(of: sandbox.libraryPath)
        #expect(after?.prefix(16) == before.prefix(16), "the library file is no longer an SQLite database")
        #expect(try sandbox.listedTerms() == ["palabra"])
    }
}
