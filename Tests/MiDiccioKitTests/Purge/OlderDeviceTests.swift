import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a change of the cloud format is written into the manifest, with the minimum
/// version that may read and write it. Format 2 added purge markers and settings;
/// format 3 gave every change file and snapshot a name with a random part (so two copies
/// of one library never write over each other), which older devices would not find.
/// This version reads every older cloud and moves it to format 3 at its first sync that
/// writes; status never does. A device of an older format then refuses to sync, with a
/// clear message, writes nothing and loses nothing locally.
///
/// The old-format cloud is a fixture committed with the tests (Fixtures/cloud-format1,
/// see `purgeFormat1FixtureFolder`). An older device is played by an engine whose
/// `formatVersion` is 2: it has that version's checks of the manifest.
@Suite("Devices on an older cloud format are kept safe")
struct OlderDeviceTests {
    /// A fixture whose cloud starts as the committed format-1 cloud.
    private func withFormat1Cloud<T>(_ body: (SyncFixture) throws -> T) throws -> T {
        try withSyncFixture { fixture in
            try purgeLoadFormat1Fixture(into: fixture.storage)
            return try body(fixture)
        }
    }

    /// A device running the previous format's checks.
    private func olderDevice(_ fixture: SyncFixture, _ name: String) throws -> TestDevice {
        let device = try fixture.device(name)
        device.engine.formatVersion = 2
        return device
    }

    private func word(_ device: TestDevice, _ term: String) throws -> Word {
        try #require(try device.everyWord().first { $0.term == term }, "\(device.name) has no \(term)")
    }

    @Test("the fixture is a cloud of the previous format: a version 1 manifest, format 1 batches, no purge fields")
    func fixtureIsFormat1() throws {
        let files = try purgeFormat1FixtureFiles()
        #expect(CloudManifest.decode(try #require(files[CloudLayout.manifestPath])) == .base)
        let batches = files.filter { $0.key.hasSuffix(".chg") || $0.key.hasSuffix(".snap") }
        #expect(batches.count >= 2)
        #expect(batches.keys.contains { $0.hasSuffix(".snap") }, "it holds a snapshot")
        for (path, data) in batches {
            let batch = try BatchCodec.decode(data, formatVersion: 1)
            #expect(try BatchFileReader(data, formatVersion: 1).version == 1, "\(path)")
            #expect(batch.markers.isEmpty && batch.settings.isEmpty, "\(path)")
        }
        let records = files.filter { $0.key.hasPrefix(CloudLayout.devicesFolder + "/") }
        #expect(records.count == 2)
        for (path, data) in records {
            #expect(DeviceRecord.decode(data) != nil, "\(path)")
            #expect(!purgeBytes(data, contain: "purgeCleanThrough"), "\(path) was written before version 2")
        }
    }

    @Test("a device of this version reads an old-format cloud; status writes nothing, and its first sync moves the cloud to format 3")
    func readingOldCloudThenUpgrading() throws {
        try withFormat1Cloud { fixture in
            let current = try fixture.device("current")
            let before = fixture.storage.files

            let status = try current.status()
            #expect(status.cloudProblem == nil)
            #expect(Set(status.devices.map(\.name)) == ["current", "laptop", "phone"])
            #expect(fixture.storage.files == before, "status writes nothing")

            try current.sync()
            #expect(Set(try current.library.list().map(\.term)) == ["casa", "perro", "libro"])
            #expect(try current.library.trash().map(\.term) == ["gato"])
            #expect(try word(current, "casa").notes == "edited on the laptop")
            #expect(try purgeManifest(fixture.storage).versions == .current)
            #expect(
                before.keys.allSatisfy { fixture.storage.files[$0] == before[$0] || $0 == CloudLayout.manifestPath },
                "no file of the old format was written over")

            try current.add("nuevo", meaning: "new")
            try current.library.edit(try word(current, "perro").id, WordEdit(meaning: "dog, edited by the new version"))
            try fixture.syncRounds([current], 2)
            // A newcomer reads the old files and the new ones alike.
            let newcomer = try fixture.device("newcomer")
            try fixture.syncRounds([newcomer, current])
            #expect(try newcomer.everyWord() == current.everyWord())
        }
    }

    @Test("after a purge and a sync, the manifest says the current version with the current minimum read and write version")
    func purgeLeavesTheManifestAtTheCurrentFormat() throws {
        try withFormat1Cloud { fixture in
            let current = try fixture.device("current")
            try current.sync()
            let gato = try word(current, "gato")
            try current.library.purge([gato.id])
            _ = try current.status()
            fixture.advanceClocks(by: 1_000)
            try current.sync()
            let manifest = try purgeManifest(fixture.storage)
            // The current format (4 since review events).
            #expect(manifest.version == CloudManifest.currentVersion)
            #expect(manifest.minimumReadVersion == CloudManifest.currentVersion)
            #expect(manifest.minimumWriteVersion == CloudManifest.currentVersion)
        }
    }

    @Test("a device of the previous format refuses to sync with a format-3 cloud, writes nothing and keeps all its local work")
    func olderDeviceRefusesAndKeepsItsWork() throws {
        try withFormat1Cloud { fixture in
            let older = try olderDevice(fixture, "older")
            // The older device works offline: new words, one of them in the Trash.
            try older.add("sin subir", meaning: "not uploaded yet")
            let casa = try older.add("casa propia", notes: "edited on the older device")
            try older.library.delete([casa])
            let olderWords = try older.everyWord()
            let olderPending = try older.pendingCount()
            #expect(olderPending == 2)

            let current = try fixture.device("current")
            try current.sync()
            #expect(try purgeManifest(fixture.storage).versions == .current)

            let cloudBefore = fixture.storage.files
            older.cloud.resetRequests()
            fixture.advanceClocks(by: 1_000)
            let error = try #require(throws: SyncError.self) { try older.sync() }
            #expect(error.isCloudTooNew)
            #expect(error.description.contains("this cloud copy was written by a newer MiDiccio; update to keep syncing"), "\(error)")
            #expect(fixture.storage.files == cloudBefore, "the older device wrote nothing to the cloud")
            #expect(older.cloud.requests("write").isEmpty)
            #expect(older.cloud.requests("delete").isEmpty)
            #expect(try older.everyWord() == olderWords, "every local word is as it was")
            #expect(try older.pendingCount() == olderPending, "its changes are still waiting to be uploaded")

            // Again and again: still refused, still nothing lost.
            for _ in 0..<3 {
                fixture.advanceClocks(by: 1_000)
                #expect(throws: SyncError.self) { try older.sync() }
            }
            #expect(fixture.storage.files == cloudBefore)
            #expect(try older.everyWord() == olderWords)

            // Once updated, its work goes through.
            older.engine.formatVersion = CloudManifest.currentVersion
            try fixture.syncRounds([older, current], 2)
            #expect(try current.word(try word(current, "sin subir").id).meaning == "not uploaded yet")
            #expect(try current.word(casa).isDeleted)
            #expect(try older.everyWord() == current.everyWord())
        }
    }

    @Test("a format-1 reader refuses a batch holding purge markers or settings, and still reads format-1 batches")
    func format1DecoderRefusesFormat2Batches() throws {
        try withFormat1Cloud { fixture in
            let current = try fixture.device("current")
            try current.sync()
            try current.library.purge([try word(current, "gato").id])
            fixture.advanceClocks(by: 1_000)
            try current.sync()
            let written = fixture.storage.files.filter { current.owns($0.key) && $0.key.hasSuffix(".chg") }
            let withMarker = try #require(written.first { (try? BatchCodec.decode($0.value))?.markers.isEmpty == false }?.value)

            #expect(throws: BatchDecodeError.self) { try BatchCodec.decode(withMarker, formatVersion: 1) }
            #expect(try BatchCodec.decode(withMarker).markers.count == 1)

            let settingsOnly = BatchCodec.encode(
                SyncBatch(
                    kind: .changes, device: current.id, seq: 99, records: [],
                    settings: [
                        SettingRecord(
                            key: "trash.hideAfterDays", value: "30",
                            time: SyncFixture.start, writer: current.id)
                    ]))
            let error = try #require(throws: BatchDecodeError.self) { try BatchCodec.decode(settingsOnly, formatVersion: 1) }
            #expect(error.description.contains("newer"), "\(error)")

            for (path, data) in try purgeFormat1FixtureFiles() where path.hasSuffix(".chg") || path.hasSuffix(".snap") {
                #expect(throws: Never.self, "\(path)") { try BatchCodec.decode(data, formatVersion: 1) }
            }
        }
    }
}
