import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a word edited locally while its upload is in flight stays pending.
@Suite("A word edited while its upload is in flight stays pending")
struct InFlightEditTests {
    @Test("a word edited in another window while its change file is being written stays pending, and the next sync uploads the edit")
    func editDuringUploadStaysPending() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("árbol", meaning: "tree")
            let other = try a.secondConnection()
            let edited = SyncFlag()
            fixture.storage.beforeWrite = { path in
                guard path.hasPrefix(CloudLayout.changesFolder(a.id) + "/"), !edited.value else { return }
                edited.value = true
                a.clock.advance(by: 10)
                try other.edit(id, WordEdit(meaning: "tree (edited during the upload)"))
            }

            let first = try a.sync()
            fixture.storage.beforeWrite = nil
            #expect(edited.value, "the edit happened during the upload")
            #expect(first.pushed == 1)
            #expect(try a.stored(id).pending, "the edit made during the upload is not uploaded yet")
            #expect(try a.word(id).meaning == "tree (edited during the upload)")

            a.clock.advance(by: 1_000)
            let second = try a.sync()
            #expect(second.pushed == 1)
            #expect(try a.stored(id).pending == false)

            try b.sync()
            #expect(try b.word(id).meaning == "tree (edited during the upload)")
        }
    }

    @Test("a setting changed while its upload is in flight stays pending and reaches the other devices")
    func settingChangedDuringUploadStaysPending() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.library.setSetting(.hideAfterDays, to: "7")
            let other = try a.secondConnection()
            let changed = SyncFlag()
            fixture.storage.beforeWrite = { path in
                guard path.hasPrefix(CloudLayout.changesFolder(a.id) + "/"), !changed.value else { return }
                changed.value = true
                a.clock.advance(by: 10)
                try other.setSetting(.hideAfterDays, to: "30")
            }
            try a.sync()
            fixture.storage.beforeWrite = nil
            #expect(changed.value, "the setting changed during the upload")
            #expect(try SyncStore(a.library).settings(pendingOnly: true).map(\.value) == ["30"], "the newer value waits")
            a.clock.advance(by: 1_000)
            try a.sync()
            #expect(try SyncStore(a.library).settings(pendingOnly: true).isEmpty)
            try b.sync()
            #expect(try b.library.setting(.hideAfterDays) == "30")
        }
    }

    @Test("a word edited while a full upload is in flight stays pending, and the next sync uploads the edit")
    func editDuringFullUploadStaysPending() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("nube", meaning: "cloud")
            try a.add("lluvia", meaning: "rain")
            try fixture.syncRounds([a, b])
            try a.library.writing { try a.library.setInfo("sync.fullUpload", "1") }
            let other = try a.secondConnection()
            let edited = SyncFlag()
            fixture.storage.beforeWrite = { path in
                guard path.hasPrefix(CloudLayout.snapshotsFolder(a.id) + "/"), !edited.value else { return }
                edited.value = true
                try other.edit(id, WordEdit(meaning: "cloud (edited during the full upload)"))
            }
            let report = try a.sync()
            fixture.storage.beforeWrite = nil
            #expect(edited.value && report.fullUpload)
            #expect(try a.stored(id).pending)

            fixture.advanceClocks(by: 1_000)
            #expect(try a.sync().pushed == 1)
            try b.sync()
            #expect(try b.word(id).meaning == "cloud (edited during the full upload)")
        }
    }

    @Test(
        "many changed words go up as one change file written as they are read; one edited meanwhile stays pending, and the other device pulls only the changed words"
    )
    func editDuringLargeChangeFileStaysPending() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            var ids: [WordID] = []
            for index in 0..<8 { ids.append(try a.add("palabra \(index)", meaning: "word \(index)", tags: ["t"])) }
            try fixture.syncRounds([a, b])
            a.tune = { $0.largeUploadThreshold = 3 }
            fixture.advanceClocks(by: 1_000)
            let tagged = Array(ids[0..<6])
            _ = try a.library.addTag("nuevo", to: .words(tagged))
            let other = try a.secondConnection()
            let edited = SyncFlag()
            var written: [String] = []
            fixture.storage.beforeWrite = { path in
                written.append(path)
                guard path.hasPrefix(CloudLayout.changesFolder(a.id) + "/"), !edited.value else { return }
                edited.value = true
                a.clock.advance(by: 10)
                try other.edit(ids[0], WordEdit(meaning: "edited during the upload"))
            }
            let report = try a.sync()
            fixture.storage.beforeWrite = nil
            #expect(edited.value, "the edit happened during the upload")
            #expect(report.pushed == 6 && !report.snapshotWritten && !report.fullUpload)
            #expect(!written.contains { $0.hasPrefix(CloudLayout.snapshotsFolder(a.id) + "/") }, "\(written)")
            // The file holds the six words as they were read, the edit not among them.
            let path = try #require(written.first { $0.hasPrefix(CloudLayout.changesFolder(a.id) + "/") })
            let batch = try BatchCodec.decode(try #require(try fixture.storage.read(path)))
            #expect(batch.kind == .changes && batch.records.map(\.word.id) == tagged)
            #expect(batch.records.first?.word.meaning == "word 0")
            #expect(try a.stored(ids[0]).pending, "the edit made during the upload waits for the next sync")
            #expect(try ids[1...].map { try a.stored($0).pending } == Array(repeating: false, count: 7))

            let pulled = try b.sync()
            #expect(pulled.pulled == 6)
            #expect(try tagged.allSatisfy { try b.word($0).tags == ["t", "nuevo"] })
            #expect(try b.word(ids[6]).tags == ["t"])
            fixture.advanceClocks(by: 1_000)
            #expect(try a.sync().pushed == 1)
            try b.sync()
            #expect(try b.word(ids[0]).meaning == "edited during the upload")
            #expect(try a.library.libraryDigest() == b.library.libraryDigest())
        }
    }

    @Test("words not touched during the upload stop being pending")
    func untouchedWordsAreDone() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            let touched = try a.add("uno")
            let untouched = try a.add("dos")
            let other = try a.secondConnection()
            let edited = SyncFlag()
            fixture.storage.beforeWrite = { path in
                guard path.hasPrefix(CloudLayout.changesFolder(a.id) + "/"), !edited.value else { return }
                edited.value = true
                try other.edit(touched, WordEdit(notes: "added while uploading"))
            }
            try a.sync()
            fixture.storage.beforeWrite = nil
            #expect(try a.stored(touched).pending)
            #expect(try a.stored(untouched).pending == false)
        }
    }
}
