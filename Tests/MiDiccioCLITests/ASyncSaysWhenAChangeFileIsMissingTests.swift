import Foundation
import Testing

/// One of a device's change files was put in Google Drive's Trash (a person tidying My
/// Drive). The next sync of another device said "0 pulled" and nothing more, and its status
/// said that device "differs (sync both to agree)": a word of it was missing there in
/// silence, for good had that device never synced again (found by the exploratory helper,
/// round 26A #4). The same with a synced folder whose file was removed or not delivered.
@Suite("A sync says when a change file another device wrote is missing")
final class ASyncSaysWhenAChangeFileIsMissingTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @discardableResult
    private func on(_ library: String, _ arguments: String...) -> ToolRun {
        let run = sandbox.run(["--library", sandbox.path("\(library).sqlite")] + arguments)
        #expect(run.status == 0, "\(library): midiccio \(arguments.joined(separator: " ")): \(run.errorOutput)")
        return run
    }

    private func terms(_ library: String) throws -> [String] {
        try on(library, "list", "--json", "--offline").jsonArray().compactMap { $0["term"] as? String }.sorted()
    }

    @Test("the sync names the device, --json gives unreadFrom, status says so; once it syncs again the word arrives")
    func missingFileIsSaid() throws {
        let cloud = sandbox.path("cloud")
        on("laptop", "remote", "set", "folder", cloud, "--device-name", "Laptop")
        on("phone", "remote", "set", "folder", cloud, "--device-name", "Phone")
        on("laptop", "add", "perro", "--meaning", "dog")
        on("laptop", "sync")
        on("phone", "sync")
        let before = Set(try FileManager.default.subpathsOfDirectory(atPath: cloud).filter { $0.hasSuffix(".chg") })
        on("laptop", "add", "lobo", "--meaning", "wolf")
        on("laptop", "sync")
        let written = try FileManager.default.subpathsOfDirectory(atPath: cloud).filter { $0.hasSuffix(".chg") && !before.contains($0) }
        let lost = try #require(written.first, "the laptop's sync wrote a change file")
        #expect(written.count == 1)
        try FileManager.default.removeItem(atPath: cloud + "/" + lost)

        let synced = on("phone", "sync", "--json")
        #expect(try terms("phone") == ["perro"])
        #expect(try synced.jsonObject()["unreadFrom"] as? [String] == ["Laptop"], "\(synced.output)")
        let notes = try #require(try synced.jsonObject()["notes"] as? [String])
        #expect(notes.contains { $0.contains("not every change of Laptop has arrived here yet") }, "\(notes)")
        #expect(synced.errorOutput.contains("not every change of Laptop has arrived here yet"), "\(synced.errorOutput)")
        let status = on("phone", "status").output
        #expect(status.contains("differs: not every change of it has arrived here yet"), "\(status)")

        // The laptop answers the phone's want with a snapshot that holds the lost file's word.
        on("laptop", "sync")
        let again = on("phone", "sync")
        #expect(try terms("phone") == ["lobo", "perro"])
        #expect(!again.errorOutput.contains("not every change"), "\(again.errorOutput)")
        #expect(on("phone", "status").output.contains("in agreement"))
    }
}
