import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCLI

@Suite("Export with the study columns due and state")
final class ExportWithStudyColumnsTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
    }

    @Test("--study-columns adds due and state; without it the columns are as before; import skips them")
    func studyColumns() throws {
        let studied = try sandbox.add("perro", "--meaning", "dog")
        _ = try sandbox.add("gato", "--meaning", "cat")
        #expect(sandbox.run("review", studied, "easy").status == 0)

        #expect(sandbox.run("export", sandbox.path("plain.csv")).status == 0)
        let plain = String(decoding: try #require(sandbox.contents(of: sandbox.path("plain.csv"))), as: UTF8.self)
        #expect(plain.split(separator: "\n").first == "term,meaning,reading,examples,notes,tags")

        #expect(sandbox.run("export", sandbox.path("study.csv"), "--study-columns").status == 0)
        let lines = String(decoding: try #require(sandbox.contents(of: sandbox.path("study.csv"))), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        #expect(lines.first == "term,meaning,reading,examples,notes,tags,due,state")
        let perro = try #require(lines.first { $0.hasPrefix("perro,") })
        let due = try #require(try sandbox.run("show", studied, "--json").jsonObject()["study"] as? [String: Any])["due"] as? String
        #expect(perro.hasSuffix(",\(try #require(due)),review"))
        #expect(lines.contains("gato,cat,,,,,,new"))

        // Read back into another library: the words come, the schedule does not.
        let other = try Sandbox()
        #expect(other.run("import", sandbox.path("study.csv")).status == 0)
        #expect(try other.listedTerms().sorted() == ["gato", "perro"])
        let id = try #require(try other.listedWords().first { $0["term"] as? String == "perro" }?["id"] as? String)
        let study = try #require(try other.run("show", id, "--json").jsonObject()["study"] as? [String: Any])
        #expect(study["state"] as? String == "new")
    }
}
