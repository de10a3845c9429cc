import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: schema migrations can require a one-time full upload; the first sync after it
/// pulls, merges, then uploads every word once; newer cloud data is never overwritten.
@Suite("After an update that needs it, the first sync uploads every word once without overwriting newer cloud data")
struct FullUploadAfterMigrationTests {
    /// Devices a and b holding ten words (one in the Trash), synced and quiet.
    private func tenSharedWords(_ fixture: SyncFixture) throws -> (TestDevice, TestDevice, [WordID]) {
        let a = try fixture.device("a"), b = try fixture.device("b")
        var ids: [WordID] = []
        for index in 0..<10 { ids.append(try a.add("palabra \(index)", meaning: "word \(index)")) }
        try a.library.delete([ids[9]])
        try fixture.syncRounds([a, b])
        #expect(try b.everyWord() == a.everyWord())
        return (a, b, ids)
    }

    /// What a schema migration does when it needs every word uploaded again.
    private func requireFullUpload(_ device: TestDevice) throws {
        try device.library.writing { try device.library.setInfo("sync.fullUpload", "1") }
        #expect(try device.engine.status().fullUploadPending)
    }

    /// The words in the newest snapshot `device` has written.
    private func latestSnapshot(of device: TestDevice, in fixture: SyncFixture) throws -> SyncBatch {
        let folder = CloudLayout.snapshotsFolder(device.id) + "/"
        guard let path = fixture.storage.files.keys.filter({ $0.hasPrefix(folder) }).max(),
            let data = fixture.storage.files[path]
        else {
            throw SyncTestFailure("\(device.name) wrote no snapshot")
        }
        return try BatchCodec.decode(data)
    }

    @Test("the first sync after the update uploads every word once, Trash included")
    func everyWordUploadedOnce() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try tenSharedWords(fixture)
            try requireFullUpload(a)
            fixture.advanceClocks(by: 1_000)
            let report = try a.sync()

            #expect(report.fullUpload)
            #expect(report.pushed == 10, "pushed counts every word uploaded (got \(report.pushed))")
            let snapshot = try latestSnapshot(of: a, in: fixture)
            #expect(snapshot.records.count == 10)
            #expect(Set(snapshot.records.map(\.word.id)) == Set(ids), "each word exactly once")
            #expect(try a.engine.status().fullUploadPending == false)

            fixture.advanceClocks(by: 1_000)
            let next = try a.sync()
            #expect(next.fullUpload == false, "only once")
            #expect(next.pushed == 0)
            try b.sync()
            #expect(try b.everyWord() == a.everyWord())
        }
    }

    @Test("a full upload counts every word as pushed even when some were pending")
    func pushedCountsEveryWord() throws {
        try withSyncFixture { fixture in
            let (a, _, ids) = try tenSharedWords(fixture)
            try a.library.edit(ids[0], WordEdit(notes: "pending edit"))
            try requireFullUpload(a)
            let report = try a.sync()
            #expect(report.fullUpload)
            #expect(report.pushed == 10, "got \(report.pushed)")
            #expect(try a.pendingCount() == 0)
        }
    }

    @Test("a word another device edited later keeps that edit through the full upload, on both devices")
    func newerCloudEditSurvives() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try tenSharedWords(fixture)
            fixture.advanceClocks(by: 5_000)
            try b.library.edit(ids[3], WordEdit(meaning: "edited on b after a's copy"))
            try b.sync()

            try requireFullUpload(a)
            let report = try a.sync()
            #expect(report.fullUpload)
            #expect(try a.word(ids[3]).meaning == "edited on b after a's copy", "pulled and merged before uploading")
            let uploaded = try latestSnapshot(of: a, in: fixture).records.first { $0.word.id == ids[3] }
            #expect(uploaded?.word.meaning == "edited on b after a's copy", "the upload carries the merged word")

            try b.sync()
            #expect(try b.word(ids[3]).meaning == "edited on b after a's copy")
            try a.sync()
            #expect(try a.word(ids[3]).meaning == "edited on b after a's copy")
            #expect(try a.everyWord() == b.everyWord())
        }
    }

    @Test("a word another device edited later but has not uploaded yet keeps that edit after the full upload")
    func newerUnsyncedEditSurvives() throws {
        try withSyncFixture { fixture in
            let (a, b, ids) = try tenSharedWords(fixture)
            fixture.advanceClocks(by: 5_000)
            try b.library.edit(ids[4], WordEdit(meaning: "offline edit on b"))

            try requireFullUpload(a)
            #expect(try a.sync().fullUpload)
            try b.sync()
            try a.sync()
            #expect(try b.word(ids[4]).meaning == "offline edit on b")
            #expect(try a.word(ids[4]).meaning == "offline edit on b")
            #expect(try a.everyWord() == b.everyWord())
        }
    }
}
