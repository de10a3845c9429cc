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
