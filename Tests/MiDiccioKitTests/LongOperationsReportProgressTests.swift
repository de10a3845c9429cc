import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Issue 12, "Progress": an import, a restore, a full upload and a first sync tell how
/// far they have come, every thousand words rather than every word, so a progress line
/// costs nothing when nobody shows it.
@Suite("Long operations report how far they have come")
struct LongOperationsReportProgressTests {
    /// A TSV of `count` words, word0 to word(count - 1).
    private func sheet(_ count: Int, at path: String) throws {
        try writeText("term\tmeaning\n" + (0..<count).map { "word\($0)\tmeaning \($0)\n" }.joined(), to: path)
    }

    @Test("an import reports once the file is checked, every thousand rows, and when every row is done")
    func importProgress() throws {
        try withTemporaryLibrary { fixture in
            try sheet(2_500, at: fixture.file("words.tsv"))
            var calls: [[Int]] = []
            let report = try fixture.library.importSheet(from: fixture.file("words.tsv")) { calls.append([$0, $1]) }
            #expect(report.added == 2_500)
            #expect(calls == [[0, 2_500], [1_000, 2_500], [2_000, 2_500], [2_500, 2_500]])
        }
    }

    @Test("a bad row found after progress was reported still imports nothing, and the last report is never 'done'")
    func badImportAfterProgress() throws {
        try withTemporaryLibrary { fixture in
            // A sheet is read while it is written: the bad row comes after 1,500 good ones.
            try writeText(
                "term\tmeaning\n" + (0..<1_500).map { "word\($0)\tmeaning\n" }.joined() + "\tno term\n", to: fixture.file("bad.tsv"))
            var calls: [[Int]] = []
            let error = #expect(throws: LibraryError.self) {
                try fixture.library.importSheet(from: fixture.file("bad.tsv")) { calls.append([$0, $1]) }
            }
            #expect(error.map { "\($0)" }?.contains("line 1502") == true, "\(String(describing: error))")
            #expect(calls == [[0, 1_501], [1_000, 1_501]])
            #expect(try fixture.library.counts().words == 0)
        }
    }

    @Test("a restore, dry run or not, reports every thousand backup words", arguments: [false, true])
    func restoreProgress(dryRun: Bool) throws {
        try withTemporaryLibrary { fixture in
            try sheet(2_100, at: fixture.file("words.tsv"))
            _ = try fixture.library.importSheet(from: fixture.file("words.tsv"))
            _ = try fixture.library.exportBackup(to: fixture.file("backup.json"))
            let other = try WordLibrary(path: fixture.file("other.sqlite"))
            var calls: [[Int]] = []
            let report = try other.restoreBackup(from: fixture.file("backup.json"), dryRun: dryRun) { calls.append([$0, $1]) }
            #expect(report.added == 2_100)
            #expect(calls == [[0, 2_100], [1_000, 2_100], [2_000, 2_100], [2_100, 2_100]])
        }
    }

    @Test("a first sync reports its merge every thousand words")
    func firstSyncMergeProgress() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try sheet(2_500, at: fixture.file("words.tsv"))
            _ = try a.library.importSheet(from: fixture.file("words.tsv"))
            try a.sync()
            let seen = ActivityLog()
            b.engine.onActivity = { seen.append($0) }
            try b.sync()
            let merging = seen.all.filter {
                if case .merging = $0 { return true }
                return false
            }
            #expect(
                merging == [.merging(words: 2_500), .merging(words: 2_500, done: 1_000), .merging(words: 2_500, done: 2_000)])
            #expect(try b.library.counts().words == 2_500)
        }
    }

    @Test(
        "an upload of every word reports the words read into its snapshot, then that all are read; a large push counts the words read into its change file and writes no snapshot",
        arguments: [false, true])
    func snapshotProgress(fullUpload: Bool) throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            try sheet(2_500, at: fixture.file("words.tsv"))
            _ = try a.library.importSheet(from: fixture.file("words.tsv"))
            if fullUpload { try a.library.writing { try a.library.setInfo("sync.fullUpload", "1") } }
            let seen = ActivityLog()
            a.engine.onActivity = { seen.append($0) }
            try a.sync()
            let snapshot = seen.all.filter {
                if case .writingSnapshot = $0 { return true }
                return false
            }
            let uploading = seen.all.filter {
                if case .uploading = $0 { return true }
                return false
            }
            // A push of more than `largeUploadThreshold` words counts them as it reads them.
            #expect(
                uploading
                    == (fullUpload
                        ? [.uploading(words: 2_500)] : [0, 1_000, 2_000, 2_500].map { SyncActivity.uploading(words: 2_500, done: $0) }))
            // A push of many words is a change file of them (`writeLargeChangeFile`).
            #expect(
                snapshot
                    == (fullUpload
                        ? [0, 1_000, 2_000, 2_500].map { SyncActivity.writingSnapshot(words: 2_500, done: $0, fullUpload: true) } : []))
        }
    }
}
