import Foundation
import Testing
@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioStore
@testable import MiDiccioSync
import MiDiccioTesting

/// Rule: purge markers need a new cloud format version, and the manifest says which
/// minimum version may read and write. A device of the previous format must refuse to
/// write to such a cloud, with a clear message, and lose nothing locally. A device of
/// this version reading an old-format cloud upgrades the manifest only when the user
/// syncs something that needs it, never silently on read.
///
/// The old-format cloud is a fixture committed with the tests (Fixtures/cloud-format1,
/// see `purgeFormat1FixtureFolder`); the previous format's reader and writer are an
/// engine with `formatVersion = 1`.
@Suite("Devices on the previous cloud format are kept safe from purges")
struct OlderDeviceTests {
    /// A fixture whose cloud starts as the committed format-1 cloud.
    private func withFormat1Cloud<T>(_ body: (SyncFixture) throws -> T) throws -> T {
        try withSyncFixture { fixture in
            try purgeLoadFormat1Fixture(into: fixture.storage)
            return try body(fixture)
        }
    }

    /// A device running the previous format's reader and writer.
    private func olderDevice(_ fixture: SyncFixture, _ name: String) throws -> SyncDevice {
        let device = try fixture.device(name)
        device.engine.formatVersion = 1
        return device
    }

    private func word(_ device: SyncDevice, _ term: String) throws -> Word {
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
            #expect(batch.formatVersion == 1, "\(path)")
            #expect(batch.markers.isEmpty && batch.settings.isEmpty, "\(path)")
        }
        let records = files.filter { $0.key.hasPrefix(CloudLayout.devicesFolder + "/") }
        #expect(records.count == 2)
        for (path, data) in records {
            #expect(DeviceRecord.decode(data) != nil, "\(path)")
            #expect(!purgeBytes(data, contain: "purgeCleanThrough"), "\(path) was written before version 2")
        }
    }

    @Test("a device of this version reads an old-format cloud, and neither status nor a sync without purges upgrades it")
    func readingDoesNotUpgrade() throws {
        try withFormat1Cloud { fixture in
            let manifest = try #require(fixture.storage.files[CloudLayout.manifestPath])
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

            try current.add("nuevo", meaning: "new")
            try current.library.edit(try word(current, "perro").id, WordEdit(meaning: "dog, edited by the new version"))
            try current.library.restore([try word(current, "gato").id])
            try fixture.syncRounds([current], 3)
            #expect(fixture.storage.files[CloudLayout.manifestPath] == manifest, "the manifest is byte for byte the old one")
            #expect(try purgeManifest(fixture.storage) == .base)
            for (path, data) in fixture.storage.files where current.owns(path) && path.hasSuffix(".chg") {
                #expect(try BatchCodec.decode(data, formatVersion: 1).formatVersion == 1, "\(path) stays readable by older devices")
            }

            // An older device still syncs with it, both ways.
            let older = try olderDevice(fixture, "older")
            try older.add("de la versión anterior")
            try fixture.syncRounds([older, current])
            #expect(try older.everyWord() == current.everyWord())
        }
    }

    @Test("after a purge and a sync, the manifest says version 2 with minimum read and write version 2")
    func purgeUpgradesTheManifest() throws {
        try withFormat1Cloud { fixture in
            let current = try fixture.device("current")
            try current.sync()
            let gato = try word(current, "gato")
            try current.library.purge([gato.id])
            _ = try current.status()
            #expect(try purgeManifest(fixture.storage) == .base, "purging is local until the user syncs")

            fixture.advanceClocks(by: 1_000)
            try current.sync()
            let manifest = try purgeManifest(fixture.storage)
            #expect(manifest.version == 2)
            #expect(manifest.minimumReadVersion == 2)
            #expect(manifest.minimumWriteVersion == 2)
            #expect(manifest == .withPurgeMarkers)
        }
    }

    @Test("a synced setting upgrades the manifest too, at the sync that uploads it")
    func settingUpgradesTheManifest() throws {
        try withFormat1Cloud { fixture in
            let current = try fixture.device("current")
            try current.sync()
            try current.library.setSetting(.hideAfterDays, to: "30")
            #expect(try purgeManifest(fixture.storage) == .base)
            fixture.advanceClocks(by: 1_000)
            try current.sync()
            #expect(try purgeManifest(fixture.storage) == .withPurgeMarkers)
        }
    }

    @Test("a device of the previous format refuses to sync with a cloud holding purge markers, writes nothing and keeps all its local work")
    func olderDeviceRefusesAndKeepsItsWork() throws {
        try withFormat1Cloud { fixture in
            let older = try olderDevice(fixture, "older")
            let current = try fixture.device("current")
            try fixture.syncRounds([older, current])
            #expect(try older.library.counts() == (words: 3, trash: 1), "the older device read the old cloud")

            // The older device works offline: a new word, an edit, a restore of the word
            // the current device is about to purge.
            try older.add("sin subir", meaning: "not uploaded yet")
            try older.library.edit(try word(older, "casa").id, WordEdit(notes: "edited on the older device"))
            let gato = try word(older, "gato")
            try older.library.restore([gato.id])
            let olderWords = try older.everyWord()
            let olderPending = try older.pendingCount()
            #expect(olderPending == 3)

            try current.library.purge([gato.id])
            fixture.advanceClocks(by: 1_000)
            try current.sync()
            #expect(try purgeManifest(fixture.storage) == .withPurgeMarkers)

            let cloudBefore = fixture.storage.files
            older.cloud.resetRequests()
            fixture.advanceClocks(by: 1_000)
            let error = try #require(throws: SyncError.self) { try older.sync() }
            #expect(error.isCloudTooNew)
            #expect(error.description.contains("this cloud copy was written by a newer MiDiccio; update to keep syncing"), "\(error)")
            #expect(fixture.storage.files == cloudBefore, "the older device wrote nothing to the cloud")
            #expect(older.cloud.requests("write").isEmpty)
            #expect(older.cloud.requests("delete").isEmpty)
            #expect(try older.everyWord() == olderWords, "every local word is as it was, the purged one included")
            #expect(try older.pendingCount() == olderPending, "its changes are still waiting to be uploaded")

            // Again and again: still refused, still nothing lost.
            for _ in 0..<3 {
                fixture.advanceClocks(by: 1_000)
                #expect(throws: SyncError.self) { try older.sync() }
            }
            #expect(fixture.storage.files == cloudBefore)
            #expect(try older.everyWord() == olderWords)

            // Once updated, its work goes through; the purge still wins over its restore.
            older.engine.formatVersion = CloudManifest.currentVersion
            try fixture.syncRounds([older, current], 2)
            #expect(try !older.has(gato.id))
            #expect(try current.word(try word(current, "sin subir").id).meaning == "not uploaded yet")
            #expect(try word(current, "casa").notes == "edited on the older device")
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

            let settingsOnly = BatchCodec.encode(SyncBatch(kind: .changes, device: current.id, seq: 99, records: [],
                                                           settings: [SettingRecord(key: "trash.hideAfterDays", value: "30",
                                                                                    time: SyncFixture.start, writer: current.id)]))
            let error = try #require(throws: BatchDecodeError.self) { try BatchCodec.decode(settingsOnly, formatVersion: 1) }
            #expect(error.description.contains("newer"), "\(error)")

            for (path, data) in try purgeFormat1FixtureFiles() where path.hasSuffix(".chg") || path.hasSuffix(".snap") {
                #expect(throws: Never.self, "\(path)") { try BatchCodec.decode(data, formatVersion: 1) }
            }
        }
    }
}
