import Foundation
import Testing

/// An export is written to a hidden temporary file beside its target, then moved into its
/// place. A killed export left that file, a copy of the words, there for good, one more each
/// time (found by the exploratory helper, round 16C). The next export beside it removes those
/// whose process has ended, and an earlier MiDiccio's (no process id) a day old or more.
@Suite("A killed export leaves nothing behind once another export is made")
final class AKilledExportLeavesNothingBehindTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    /// The id of a process that has ended.
    private func endedProcess() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    @Test(
        "the leftovers of ended exports of the same file go; a running one's and a recent unnamed one stay",
        arguments: ["backup", "csv"])
    func leftoversOfEndedExportsGo(kind: String) throws {
        try sandbox.add("uno")
        let name = kind == "backup" ? "words.json" : "words.csv"
        let ended = ".\(name).\(try endedProcess())-1a2b.tmp", running = ".\(name).\(getpid())-3c4d.tmp"
        let oldUnnamed = ".\(name).5e6f7a.tmp", recentUnnamed = ".\(name).8b9c.tmp", otherFile = ".other.csv.1-77.tmp"
        for leftover in [ended, running, oldUnnamed, recentUnnamed, otherFile] {
            _ = try sandbox.write("the words of an export cut short", to: leftover)
        }
        let twoDaysAgo = Date().addingTimeInterval(-2 * 86_400)
        try FileManager.default.setAttributes([.modificationDate: twoDaysAgo], ofItemAtPath: sandbox.path(oldUnnamed))

        let result = kind == "backup" ? sandbox.run("backup", "export", sandbox.path(name)) : sandbox.run("export", sandbox.path(name))
        #expect(result.status == 0, "\(result.errorOutput)")
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: sandbox.directory).filter { $0.hasSuffix(".tmp") })
        #expect(left == [running, recentUnnamed, otherFile], "\(left)")
    }
}
