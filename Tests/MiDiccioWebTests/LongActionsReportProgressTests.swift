import Foundation
import MiDiccioKit
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// Issue 13, part 5: while an import, restore or sync runs, the page asks how far it has
/// come (`GET api/jobs/KEY`, the key its request carries); a restore preview names the
/// words; Settings knows when there is an import to undo.
@Suite("Long actions report their progress to the page")
final class LongActionsReportProgressTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    /// Polls `api/jobs/KEY` until the job is finished (at most 30 s).
    private func finishedJob(_ key: String) throws -> RawResponse {
        let deadline = Date().addingTimeInterval(30)
        while true {
            let job = try web.send("GET", "/api/jobs/\(key)")
            if job.json["finished"] as? Bool == true || Date() > deadline { return job }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    @Test("an import's job says what it did in rows, and ends finished; an unknown key is 404")
    func importJob() throws {
        #expect(try web.send("GET", "/api/jobs/nothing-here").status == 404)
        let rows = (0..<2_500).map { "palabra\($0)\tword" }.joined(separator: "\n")
        let sheet = Data(("term\tmeaning\n" + rows + "\n").utf8)
        #expect(try web.send("POST", "/api/import?name=w.tsv&key=job1", body: sheet).json["added"] as? Int == 2_500)
        let job = try web.send("GET", "/api/jobs/job1")
        #expect(job.status == 200)
        #expect(job.json["phase"] as? String == "Importing")
        #expect(job.json["unit"] as? String == "rows")
        #expect(job.json["done"] as? Int == 2_500)
        #expect(job.json["total"] as? Int == 2_500)
        #expect(job.json["finished"] as? Bool == true)
        // A preview is no job.
        _ = try web.send("POST", "/api/import?name=w.tsv&key=job2&dryRun=1", body: sheet)
        #expect(try web.send("GET", "/api/jobs/job2").status == 404)
    }

    @Test("a job keyed with a word the Trash's own addresses use (restore, empty, purge) is still found")
    func jobKeysNamedLikeFixedAddresses() throws {
        let sheet = Data("term\tmeaning\nuno\tone\n".utf8)
        for key in ["restore", "empty", "purge"] {
            _ = try web.send("POST", "/api/import?name=w.tsv&key=\(key)", body: sheet)
            let job = try web.send("GET", "/api/jobs/\(key)")
            #expect(job.status == 200, "api/jobs/\(key)")
            #expect(job.json["phase"] as? String == "Importing")
        }
        // The Trash's fixed addresses still answer as themselves, not as a word id.
        #expect(try web.send("GET", "/api/trash/empty").status == 405)
    }

    @Test("with async=1 an import answers 202 at once, and its job holds the answer when finished; the same key again is 409")
    func importInTheBackground() throws {
        let sheet = Data("term\tmeaning\nuno\tone\ndos\ttwo\n".utf8)
        let started = try web.send("POST", "/api/import?name=w.tsv&key=bg1&async=1", body: sheet)
        #expect(started.status == 202)
        #expect(started.json["job"] as? String == "bg1")
        let job = try finishedJob("bg1")
        #expect(job.json["status"] as? Int == 200)
        #expect((job.json["answer"] as? [String: Any])?["added"] as? Int == 2)
        #expect(try web.library().counts().words == 2)
        #expect(try web.send("POST", "/api/import?name=w.tsv&key=bg1&async=1", body: sheet).status == 202)
        // The upload was already submitted: the second job's answer is the refusal.
        let second = try finishedJob("bg1")
        #expect(second.json["status"] as? Int == 409)
        #expect(try web.library().counts().words == 2)
    }

    @Test("a restore's job counts words, and a sync without a remote still ends its job")
    func restoreAndSyncJobs() throws {
        try web.library().add(WordContent(term: "uno"))
        let backup = try web.send("GET", "/api/backup").body
        #expect(try web.send("POST", "/api/backup/restore?key=r1", body: backup).status == 200)
        let job = try web.send("GET", "/api/jobs/r1")
        #expect(job.json["phase"] as? String == "Restoring")
        #expect(job.json["done"] as? Int == 1)
        #expect(job.json["finished"] as? Bool == true)
        #expect(try web.send("POST", "/api/sync?job=s1").status == 200)
        #expect(try web.send("GET", "/api/jobs/s1").json["finished"] as? Bool == true)
    }

    @Test("a restore preview lists the first 50 words it would add, change and move to the Trash")
    func previewLists() throws {
        let library = try web.library()
        let kept = try library.add(WordContent(term: "queda", meaning: "before")).word
        let backup = try web.send("GET", "/api/backup").body
        for index in 0..<60 { try library.add(WordContent(term: "nueva\(index)")) }
        let merge = try web.send("POST", "/api/backup/restore?dryRun=1", body: backup)
        #expect(merge.json["trashed"] as? Int == 0)
        #expect(merge.json["trashedTerms"] as? [String] == [])
        let replace = try web.send("POST", "/api/backup/restore?dryRun=1&replace=1", body: backup)
        #expect(replace.json["trashed"] as? Int == 60)
        let trashed = try #require(replace.json["trashedTerms"] as? [String])
        #expect(trashed.count == 50)
        #expect(Set(trashed).isSubset(of: Set((0..<60).map { "nueva\($0)" })))
        #expect(replace.json["listedTerms"] as? Int == 50)
        #expect(try library.word(kept.id)?.meaning == "before")
        #expect(try library.counts().words == 61)
    }

    @Test("an import's undo and emptying the Trash are jobs that count the words they have gone through")
    func undoAndEmptyJobs() throws {
        let rows = (0..<2_500).map { "deshecha\($0)\tword" }.joined(separator: "\n")
        _ = try web.send("POST", "/api/import?name=w.tsv", body: Data(("term\tmeaning\n" + rows + "\n").utf8))
        let undo = try web.send("POST", "/api/import/undo?key=u1&async=1")
        #expect(undo.status == 202)
        let undone = try finishedJob("u1")
        #expect(undone.json["phase"] as? String == "Undoing the import")
        #expect(undone.json["unit"] as? String == "words")
        #expect(undone.json["done"] as? Int == 2_500 && undone.json["total"] as? Int == 2_500)
        #expect((undone.json["answer"] as? [String: Any])?["trashed"] as? Int == 2_500)
        #expect(try web.library().counts().trash == 2_500)

        #expect(try web.send("POST", "/api/trash/empty?key=e1&async=1").status == 202)
        let emptied = try finishedJob("e1")
        #expect(emptied.json["phase"] as? String == "Deleting permanently")
        #expect(emptied.json["done"] as? Int == 2_500 && emptied.json["total"] as? Int == 2_500)
        #expect((emptied.json["answer"] as? [String: Any])?["purged"] as? Int == 2_500)
        #expect(try web.library().counts().trash == 0)
        #expect(try web.library().purgedCount() == 2_500)
    }

    @Test("the status says whether an import can be undone")
    func canUndoImport() throws {
        #expect(try web.send("GET", "/api/status").json["canUndoImport"] as? Bool == false)
        _ = try web.send("POST", "/api/import?name=w.tsv", body: Data("term\tmeaning\nuno\tone\n".utf8))
        #expect(try web.send("GET", "/api/status").json["canUndoImport"] as? Bool == true)
        let undo = try web.send("POST", "/api/import/undo")
        #expect(undo.json["trashed"] as? Int == 1)
        #expect(undo.json["keptEdited"] as? Int == 0)
        #expect(try web.send("GET", "/api/status").json["canUndoImport"] as? Bool == false)
    }
}
