import Foundation
import Testing

@testable import MiDiccioCLICore
@testable import MiDiccioKit

/// `trash.autoPurgeDays` purges inside a sync, after its pull. A command that syncs first
/// (`list`, `search`, ...) said nothing of it, though it cannot be undone, and a clock set
/// far ahead sets it off: words moved to the Trash minutes before were gone on every device
/// without a word (found by the exploratory helper, round 8).
@Suite("An automatic purge is told wherever it happens")
final class AnAutomaticPurgeIsToldWhereverItHappensTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("a list that syncs first and purges by trash.autoPurgeDays says so on standard error")
    func aListSaysItPurged() throws {
        let id = try sandbox.add("vieja")
        #expect(sandbox.run("remote", "set", "folder", sandbox.path("cloud")).status == 0)
        #expect(sandbox.run("config", "set", "trash.autoPurgeDays", "30").status == 0)
        #expect(sandbox.run("delete", id).status == 0)
        #expect(sandbox.run("sync").status == 0)
        // Seen in the Trash 40 days ago by this device's clock (or the clock jumped 40 days).
        let library = try WordLibrary(path: sandbox.libraryPath, create: false)
        let fortyDaysAgo = Int64(Date().timeIntervalSince1970 * 1000) - 40 * 86_400_000
        try library.database.run("UPDATE words SET trash_seen_at = ?", [.integer(fortyDaysAgo)])

        let listed = sandbox.run("list")
        #expect(listed.status == 0)
        #expect(listed.errorOutput.contains("Deleted permanently 1 word"), "\(listed.errorOutput)")
        #expect(listed.errorOutput.contains("this computer's clock"), "\(listed.errorOutput)")
    }

    /// The note said "counted by this computer's clock" beside the warning that the
    /// cloud's, behind it, had counted (found by the exploratory helper, round 22A #7).
    @Test("the note names the clock that counted the days: the cloud's when it is behind this computer's")
    func theNoteNamesTheClock() {
        var report = SyncReport()
        report.autoPurged = 1
        let mine = ToolContext.syncNotes(report, cloud: "webdav").filter { $0.hasPrefix("Deleted permanently") }
        #expect(mine.count == 1 && mine[0].contains("(counted by this computer's clock;"), "\(mine)")
        report.aheadOfCloud = 5 * 86_400_000
        let cloud = ToolContext.syncNotes(report, cloud: "webdav").filter { $0.hasPrefix("Deleted permanently") }
        #expect(cloud.count == 1 && cloud[0].contains("(counted by the cloud's clock, which is behind this computer's;"), "\(cloud)")
    }
}
