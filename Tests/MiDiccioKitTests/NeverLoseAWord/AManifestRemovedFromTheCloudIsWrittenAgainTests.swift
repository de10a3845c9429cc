import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A sync program (or a person tidying up) removed `midiccio-sync.json` and nothing else.
/// Every device that had synced there stopped on every sync for good, saying "the next
/// sync will try again".
@Suite("A manifest removed from the cloud is written again where the devices' files are")
struct AManifestRemovedFromTheCloudIsWrittenAgainTests {
    @Test("the manifest alone gone: the next sync writes it again, says so, and every device goes on")
    func manifestAloneGone() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            let b = try fixture.device("b")
            _ = try a.add("uno")
            try fixture.syncRounds([a, b])
            _ = try fixture.storage.delete(CloudLayout.manifestPath)

            let word = try b.add("dos")
            let report = try b.sync()
            #expect(report.manifestWrittenAgain)
            #expect(fixture.storage.files[CloudLayout.manifestPath] != nil)
            let again = try a.sync()
            #expect(!again.manifestWrittenAgain)
            #expect(try a.has(word))
        }
    }

    @Test(
        "a manifest one read, or two, did not find is not written over: a newer MiDiccio's still stops this one",
        arguments: [1, 2])
    func passingNotFound(misses: Int) throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            _ = try a.add("uno")
            _ = try a.sync()
            // A newer MiDiccio moved the cloud to a format this build cannot write.
            var newer = CloudManifest.current
            newer.version += 1
            newer.minimumReadVersion = newer.version
            newer.minimumWriteVersion = newer.version
            fixture.storage.plant(CloudLayout.manifestPath, newer.encoded())
            let cloudBefore = fixture.storage.files
            // Then the server answers "not found" for it, once or twice, as a cache would.
            fixture.storage.faults.missingReads[CloudLayout.manifestPath] = misses

            _ = try a.add("dos")
            let error = try #require(throws: SyncError.self) { try a.sync() }
            #expect(error.isCloudTooNew, "\(error)")
            #expect(fixture.storage.files == cloudBefore, "nothing written: the newer manifest stays")
        }
    }

    @Test("the whole cloud gone (a drive not mounted, an empty folder): still no fresh start there")
    func everythingGone() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            _ = try a.add("uno")
            _ = try a.sync()
            for path in fixture.storage.files.keys { _ = try fixture.storage.delete(path) }
            #expect(throws: (any Error).self) { try a.sync() }
            #expect(fixture.storage.files.isEmpty, "nothing written into what may be an unmounted drive's folder")
        }
    }
}
