import Foundation
import Testing

/// `midiccio sync --json` held the cloud's notes only: a script (or an app wrapping the
/// tool) never learnt that an edit made here lost to a later change on another device, or
/// that the sync started a new cloud where the path was mistyped (found by the exploratory
/// helper, round 13A). Its "notes" now hold every note the text mode prints.
@Suite("A sync with --json carries every note")
final class ASyncWithJSONCarriesEveryNoteTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @discardableResult
    private func on(_ library: String, _ arguments: String...) -> ToolRun {
        let run = sandbox.run(["--library", sandbox.path("\(library).sqlite")] + arguments)
        #expect(run.status == 0, "\(library): midiccio \(arguments.joined(separator: " ")): \(run.errorOutput)")
        return run
    }

    private func notes(_ run: ToolRun) throws -> [String] {
        let object = try run.jsonObject()
        return try #require(object["notes"] as? [String], "\(run.output)")
    }

    @Test("a new cloud started, and an edit here that lost to a later one elsewhere, are in the JSON and on standard error")
    func everyNote() throws {
        let cloud = sandbox.path("cloud")
        on("laptop", "remote", "set", "folder", cloud, "--device-name", "Laptop")
        on("phone", "remote", "set", "folder", cloud, "--device-name", "Phone")
        let id = try #require(try on("laptop", "add", "año", "--meaning", "year", "--json").jsonObject()["id"] as? String)
        let first = on("laptop", "sync", "--json")
        #expect(try notes(first).contains { $0.contains("so this sync started it there") }, "\(first.output)")
        on("phone", "sync")

        on("phone", "edit", id, "--meaning", "year (phone)")
        Thread.sleep(forTimeInterval: 0.01)
        on("laptop", "edit", id, "--meaning", "year (laptop, later)")
        on("laptop", "sync")
        let synced = on("phone", "sync", "--json")
        let said = try notes(synced)
        #expect(said.contains { $0.contains("the later change won") && $0.contains("año") }, "\(said)")
        #expect(try synced.jsonObject()["overriddenTerms"] as? [String] == ["año"])
        #expect(synced.errorOutput.contains("the later change won"), "\(synced.errorOutput)")
    }
}
