import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// How cloud files map onto one CloudKit zone (issue 17, "The storage model"): one
/// record per file, small files in a bytes field and large ones as assets, record names
/// from paths, create-only change files, and batches of deletions split at CloudKit's
/// limit.
@Suite("Cloud files become records in one iCloud zone", .enabled(if: ICloudTests.shouldRun, ICloudTests.skipReason))
struct ICloudStorageModelTests {
    static func pair(_ label: String) throws -> (FakeCloudKitTenant, CloudKitStorage, CloudKitStorage) {
        let tenant = try ICloudTests.tenant(label)
        let credentials = try ICloudTests.credentials(tenant)
        return (tenant, ICloudTests.storage(tenant, credentials: credentials), ICloudTests.storage(tenant, credentials: credentials))
    }

    @Test("a small file is kept in its record and a large one as an asset; another device reads both back byte for byte")
    func smallAndLarge() throws {
        let (tenant, writer, reader) = try Self.pair("sizes")
        let small = Data("{\"device\":\"a\"}".utf8)
        var generator = SeededGenerator(seed: 7)
        let large = Data((0..<(700 * 1024)).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try writer.write("devices/a.json", small)
        try writer.create("snapshots/a/000000000001-00000000000000aa.snap", large)
        try reader.beginPass(cache: nil)
        #expect(try reader.read("devices/a.json") == small)
        #expect(try reader.read("snapshots/a/000000000001-00000000000000aa.snap") == large)
        #expect(try reader.list("snapshots/a") == [CloudEntry(name: "000000000001-00000000000000aa.snap", size: large.count)])
        let records = try tenant.records(container: ICloudTests.database.container, environment: "development", zone: "MiDiccio")
        let byName = Dictionary(
            uniqueKeysWithValues: records.compactMap { record in (record["recordName"] as? String).map { ($0, record) } })
        let device = try #require(byName["f-devices_2Fa.json"]?["fields"] as? [String: Any])
        #expect(device["data"] != nil && device["file"] == nil)
        let snapshot = try #require(
            byName[CloudKitIndex.recordName("snapshots/a/000000000001-00000000000000aa.snap")]?["fields"] as? [String: Any])
        #expect(snapshot["file"] != nil && snapshot["data"] == nil)
        #expect(try tenant.stats()["assets/upload"] == 1)
    }

    @Test("creating a file that another device made first is refused, and the first one's bytes stay")
    func createIsCreateOnly() throws {
        let (_, first, second) = try Self.pair("create-only")
        try first.beginPass(cache: nil)
        try second.beginPass(cache: nil)
        try first.create("changes/a/000000000001-0000000000000001.chg", Data("first".utf8))
        #expect(throws: CloudError.self) { try second.create("changes/a/000000000001-0000000000000001.chg", Data("second".utf8)) }
        try second.beginPass(cache: nil)
        #expect(try second.read("changes/a/000000000001-0000000000000001.chg") == Data("first".utf8))
        #expect(throws: CloudError.self) { try first.create("changes/a/000000000001-0000000000000001.chg", Data("again".utf8)) }
    }

    @Test("a file another device made since this pass began, met by a create, reads at once in the same pass")
    func madeMeanwhileReadsAtOnce() throws {
        let (_, first, second) = try Self.pair("made-meanwhile")
        try first.beginPass(cache: nil)
        try second.beginPass(cache: nil)
        try first.create("midiccio-sync.json", Data("made by the first".utf8))
        #expect(throws: CloudError.self) { try second.create("midiccio-sync.json", Data("made by the second".utf8)) }
        #expect(try second.read("midiccio-sync.json") == Data("made by the first".utf8))
        #expect(try second.list("").map(\.name) == ["midiccio-sync.json"])
    }

    @Test("removing 450 files takes three requests of at most 200 deletions, and a missing one is not an error")
    func deletionsAreSplit() throws {
        let (tenant, storage, _) = try Self.pair("batches")
        let paths = (1...450).map { "changes/a/\(String(format: "%012d", $0))-0000000000000001.chg" }
        for path in paths { try storage.create(path, Data(path.utf8)) }
        storage.resetCounts()
        try tenant.resetStats()
        #expect(try storage.deleteAll(paths + ["changes/a/missing.chg"]) == 450)
        #expect(storage.requestCounts["records/modify"] == 3, "\(storage.requestCounts)")
        #expect(try storage.list("changes/a").isEmpty)
        try storage.beginPass(cache: nil)
        #expect(try storage.list("changes/a").isEmpty)
    }

    @Test("an asset whose download address has expired is looked up again and read")
    func expiredDownloadAddress() throws {
        let (tenant, writer, reader) = try Self.pair("expired-url")
        // The fake stamps an address's expiry in whole seconds, so a lifetime of 1 s could
        // leave the new address a few milliseconds, too few under load: 3 s leaves at
        // least 2 s for the look-up and the download, and is over by the wait below.
        try tenant.configure(downloadLifetime: 3)
        let large = Data(repeating: 42, count: 600 * 1024)
        try writer.write("snapshots/a/000000000002-00000000000000bb.snap", large)
        try reader.beginPass(cache: nil)
        Thread.sleep(forTimeInterval: 3.2)
        reader.resetCounts()
        #expect(try reader.read("snapshots/a/000000000002-00000000000000bb.snap") == large)
        #expect(reader.requestCounts["records/lookup"] == 1, "\(reader.requestCounts)")
    }

    @Test("record names: the path, with every other byte as _XX after f-, the same on every device")
    func recordNames() {
        #expect(CloudKitIndex.recordName("devices/abc.json") == "f-devices_2Fabc.json")
        #expect(CloudKitIndex.recordName("_x y") == "f-_5Fx_20y")
        #expect(CloudKitIndex.recordName("a/b") != CloudKitIndex.recordName("a_2Fb"))
    }
}
