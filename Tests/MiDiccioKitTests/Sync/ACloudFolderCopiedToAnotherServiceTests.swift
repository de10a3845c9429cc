import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A person moving to another sync service copies MiDiccio's folder there while a device
/// still syncs in the old one, then points each device at the copy. The copy holds each
/// device's files as they were then: its own, written at an earlier number. Each device
/// took them for a copy's, said "This library is a copy of another library file" and went
/// on under a new id (found by the exploratory helper, round 15C). They now start afresh
/// there, knowing those files for their own, and upload every word once.
@Suite("A cloud folder copied to another service is the same library's")
struct ACloudFolderCopiedToAnotherServiceTests {
    @Test("devices pointed at a copy of their folder made before their last syncs keep their ids, and agree")
    func copyMadeBeforeTheLastSyncs() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            for device in [a, b] { try device.library.setRemote(.folder(path: fixture.file("Dropbox"))) }
            let word = try a.add("uno", meaning: "one")
            try a.add("dos", meaning: "two")
            try fixture.syncRounds([a, b])
            // The copy, then one more edit synced in the old folder.
            let copy = MemoryStorage()
            for (path, data) in fixture.storage.files { copy.plant(path, data) }
            fixture.advanceClocks(by: 1_000)
            _ = try a.library.edit(word, WordEdit(notes: "after the copy"))
            try fixture.syncRounds([a, b], 1)

            let ids = (a.id, b.id)
            var engines: [SyncEngine] = []
            for device in [a, b] {
                try device.library.setRemote(.folder(path: fixture.file("OneDrive")))
                let engine = SyncEngine(library: device.library, storage: copy, appVersion: "midiccio-tests")
                fixture.advanceClocks(by: 1_000)
                let report = try engine.sync()
                #expect(report.olderCopyOfTheCloud, "\(device.name)")
                #expect(report.newIdentity == nil, "\(device.name): \(String(describing: report.newIdentity))")
                #expect(report.fullUpload)
                engines.append(engine)
            }
            #expect((a.id, b.id) == ids)
            for engine in engines + engines {
                fixture.advanceClocks(by: 1_000)
                try engine.sync()
            }
            #expect(try a.everyWord() == b.everyWord())
            #expect(try b.word(word).notes == "after the copy")
        }
    }
}
