import Foundation
import Testing

@testable import MiDiccioCLI
@testable import MiDiccioCLICore

/// `status` said "0 words to upload" and `sync` "0 pulled, 0 pushed" while a study answer
/// and a setting were waiting, and then went both ways (found by the exploratory helper,
/// round 6): a person could not tell whether they had synced.
@Suite("Status and sync count study answers and settings, not only words")
final class ASyncCountsStudyAnswersAndSettingsTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    private func on(_ library: String, _ arguments: String...) throws -> ToolRun {
        var environment = sandbox.environment
        environment["MIDICCIO_LIBRARY"] = sandbox.path(library)
        environment["MIDICCIO_OFFLINE"] = "1"
        let result = sandbox.run(arguments, environment: environment)
        try #require(result.status == 0, "\(arguments.joined(separator: " ")): \(result.errorOutput)")
        return result
    }

    @Test("an answer and a setting waiting are counted by status, and sync says it sent them and the other device received them")
    func counted() throws {
        let cloud = sandbox.path("cloud")
        let id = try #require(try on("a.sqlite", "add", "gato", "--json").jsonObject()["id"] as? String)
        _ = try on("a.sqlite", "remote", "set", "folder", cloud)
        _ = try on("b.sqlite", "remote", "set", "folder", cloud)
        _ = try on("a.sqlite", "sync")
        _ = try on("b.sqlite", "sync")

        _ = try on("a.sqlite", "review", id, "good")
        _ = try on("a.sqlite", "config", "set", "study.newPerDay", "3")
        let status = try on("a.sqlite", "status")
        #expect(status.output.contains("Pending      0 words to upload, 1 study answer, 1 setting\n"), "\(status.output)")
        let json = try on("a.sqlite", "status", "--json").jsonObject()
        #expect(json["pendingAnswers"] as? Int == 1 && json["pendingSettings"] as? Int == 1)

        let sent = try on("a.sqlite", "sync")
        #expect(sent.output.hasSuffix(": 0 pulled, 0 pushed, 0 merged; study answers: 1 sent; settings: 1 sent\n"), "\(sent.output)")
        let received = try on("b.sqlite", "sync", "--json").jsonObject()
        #expect(received["answersPulled"] as? Int == 1 && received["settingsPulled"] as? Int == 1, "\(received)")
        #expect(received["answersPushed"] as? Int == 0 && received["settingsPushed"] as? Int == 0)
        let quiet = try on("b.sqlite", "sync")
        #expect(quiet.output.hasSuffix(": 0 pulled, 0 pushed, 0 merged\n"), "nothing moved, nothing said: \(quiet.output)")
        #expect(try on("a.sqlite", "status").output.contains("Pending      0 words to upload\n"))
    }

    /// After a purge whose sync did not happen (or failed), `status` said "0 words to
    /// upload" and nothing of the purge that had not left this device (found by the
    /// exploratory helper, round 21A #7).
    @Test("a permanent deletion not sent yet is counted by status until a sync sends it, and that sync says so")
    func permanentDeletionCounted() throws {
        let cloud = sandbox.path("cloud")
        let id = try #require(try on("a.sqlite", "add", "gato", "--json").jsonObject()["id"] as? String)
        _ = try on("a.sqlite", "remote", "set", "folder", cloud)
        _ = try on("a.sqlite", "sync")
        _ = try on("a.sqlite", "delete", id)
        _ = try on("a.sqlite", "purge", id, "--offline")
        let status = try on("a.sqlite", "status")
        let pending = "Pending      0 words to upload, 1 permanent deletion not sent to the other devices yet\n"
        #expect(status.output.contains(pending), "\(status.output)")
        #expect(try on("a.sqlite", "status", "--json").jsonObject()["pendingPurges"] as? Int == 1)

        let sent = try on("a.sqlite", "sync")
        #expect(sent.output.hasSuffix(": 0 pulled, 0 pushed, 0 merged; permanent deletions: 1 sent\n"), "\(sent.output)")
        #expect(try on("a.sqlite", "status", "--json").jsonObject()["pendingPurges"] as? Int == 0)
    }
}
