import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A sync folder emptied and started again elsewhere while a laptop's sync program was
/// paused, the laptop's record and files brought back when it resumed: if the desktop's
/// new files went past the laptop's old place in them before the laptop came back, no
/// other rule told, and the laptop never got their words (left by stop 46). Each cloud
/// now carries an id in its manifest, new each time a device starts it.
@Suite("A cloud started again is told by its id, and every device reads it all again")
struct ACloudStartedAgainIsToldByItsIDTests {
    /// A desktop that synced six times and a laptop that read it all; the desktop's remote
    /// is set, so that setting it again (`startAgain`) is what `remote set` does.
    private func desktopAndLaptop(_ fixture: SyncFixture) throws -> (desktop: TestDevice, laptop: TestDevice) {
        let desktop = try fixture.device("desktop"), laptop = try fixture.device("laptop")
        try SyncStore(desktop.library).changeRemote(to: ("folder", "/cloud", nil))
        for index in 1...6 {
            try desktop.add("palabra \(index)")
            try fixture.syncRounds([desktop, laptop], 1)
        }
        return (desktop, laptop)
    }

    private func cloudID(_ fixture: SyncFixture) throws -> String? {
        try purgeManifest(fixture.storage).cloud
    }

    @Test("a device whose files and record came back, and whose place the new files went past, reads everything again")
    func placeWentPast() throws {
        try withSyncFixture { fixture in
            let (desktop, laptop) = try desktopAndLaptop(fixture)
            let first = try #require(try cloudID(fixture))
            // Emptied but for the laptop's files and record (its sync program was paused),
            // and started again from the desktop, whose new files go past the laptop's
            // place in its old ones before the laptop is back.
            let laptopID = laptop.id
            for path in fixture.storage.files.keys where !path.contains(laptopID) { _ = try fixture.storage.delete(path) }
            try SyncStore(desktop.library).changeRemote(to: ("folder", "/cloud", nil))
            var new: [WordID] = []
            for index in 1...10 {
                fixture.advanceClocks(by: 1_000)
                new.append(try desktop.add("nueva \(index)"))
                try desktop.sync()
            }
            let second = try #require(try cloudID(fixture))
            #expect(second != first)

            try laptop.add("del portátil")
            let report = try laptop.sync()
            #expect(report.cloudStartedAgain)
            try fixture.syncRounds([desktop, laptop], 2)
            let terms = try laptop.terms()
            for id in new { #expect(try laptop.has(id), "\(terms)") }
            #expect(try laptop.everyWord() == desktop.everyWord())
            #expect(try !laptop.sync().cloudStartedAgain, "once")
        }
    }

    @Test("a library set back to a cloud started again meanwhile says it read everything again, not that it went on")
    func setBackToACloudStartedAgain() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), desktop = try fixture.device("desktop")
            try SyncStore(laptop.library).changeRemote(to: ("folder", "/cloud", nil))
            try SyncStore(desktop.library).changeRemote(to: ("folder", "/cloud", nil))
            try desktop.add("uno")
            try fixture.syncRounds([desktop, laptop])
            try SyncStore(laptop.library).changeRemote(to: ("folder", "/elsewhere", nil))
            // Emptied and started again from the desktop; the laptop's record and files are
            // brought back (a sync program that was paused).
            for path in fixture.storage.files.keys where !path.contains(laptop.id) { _ = try fixture.storage.delete(path) }
            try SyncStore(desktop.library).changeRemote(to: ("folder", "/cloud", nil))
            let new = try desktop.add("dos")
            try desktop.sync()

            try SyncStore(laptop.library).changeRemote(to: ("folder", "/cloud", nil))
            let report = try laptop.sync()
            #expect(report.cloudStartedAgain)
            #expect(!report.previousStateTakenUp, "one of the two, not both")
            #expect(try laptop.has(new))
        }
    }

    @Test("a manifest written again, or moved to a newer format, keeps the cloud's id: nobody reads everything again")
    func writtenAgainKeepsTheID() throws {
        try withSyncFixture { fixture in
            let (desktop, laptop) = try desktopAndLaptop(fixture)
            let id = try #require(try cloudID(fixture))
            _ = try fixture.storage.delete(CloudLayout.manifestPath)
            try desktop.add("otra")
            #expect(try desktop.sync().manifestWrittenAgain)
            #expect(try cloudID(fixture) == id)

            var older = CloudManifest.withReviewEvents
            older.cloud = id
            fixture.storage.plant(CloudLayout.manifestPath, older.encoded())
            try desktop.add("y otra")
            #expect(try !desktop.sync().cloudStartedAgain)
            var expected = CloudManifest.current
            expected.cloud = id
            #expect(try purgeManifest(fixture.storage) == expected)
            #expect(try !laptop.sync().cloudStartedAgain)
        }
    }

    @Test(
        "a new device that finds records but no manifest writes it again with the id their records name: nobody reads everything again"
    )
    func aNewDeviceWritesTheManifestAgain() throws {
        try withSyncFixture { fixture in
            let (desktop, laptop) = try desktopAndLaptop(fixture)
            let id = try #require(try cloudID(fixture))
            _ = try fixture.storage.delete(CloudLayout.manifestPath)
            let phone = try fixture.device("phone")
            let report = try phone.sync()
            #expect(report.manifestWrittenAgain && !report.startedCloud)
            #expect(try cloudID(fixture) == id)
            #expect(try phone.everyWord() == desktop.everyWord())
            #expect(try !laptop.sync().cloudStartedAgain)
            #expect(try !desktop.sync().cloudStartedAgain)
            // Removed once more and written again by the desktop, with the id it knows: the
            // phone knows the same one, so it takes nothing for a cloud started again (it
            // read everything a second time when it had written the manifest without one).
            _ = try fixture.storage.delete(CloudLayout.manifestPath)
            #expect(try desktop.sync().manifestWrittenAgain)
            #expect(try !phone.sync().cloudStartedAgain)
        }
    }

    @Test("the newest record that names an id gives it; records of devices that knew none give none")
    func theNewestRecordGivesTheID() throws {
        try withSyncFixture { fixture in
            let (desktop, laptop) = try desktopAndLaptop(fixture)
            let recordPath = CloudLayout.devicePath(laptop.id)
            var record = try #require(try fixture.storage.read(recordPath).flatMap(DeviceRecord.decode))
            // The laptop's record is the newer, and names another id (a record that a sync
            // program brought back from before the cloud was started again has the older).
            record.cloud = "0123456789abcdef0123456789abcdef"
            record.lastSync = Timestamp(milliseconds: laptop.clock.now().milliseconds + 60_000)
            fixture.storage.plant(recordPath, record.encoded())
            _ = try fixture.storage.delete(CloudLayout.manifestPath)
            #expect(try fixture.device("phone").sync().manifestWrittenAgain)
            #expect(try cloudID(fixture) == "0123456789abcdef0123456789abcdef")

            // No record names one (every device runs a MiDiccio older than ids): none.
            for device in [desktop, laptop] {
                let path = CloudLayout.devicePath(device.id)
                var record = try #require(try fixture.storage.read(path).flatMap(DeviceRecord.decode))
                record.cloud = nil
                fixture.storage.plant(path, record.encoded())
            }
            for path in fixture.storage.files.keys
            where path.hasPrefix("devices/") && !path.contains(desktop.id) && !path.contains(laptop.id) {
                _ = try fixture.storage.delete(path)
            }
            _ = try fixture.storage.delete(CloudLayout.manifestPath)
            #expect(try fixture.device("tablet").sync().manifestWrittenAgain)
            #expect(try cloudID(fixture) == nil)
        }
    }

    @Test("a device's record names the cloud's id it knows, and reads back only an id that is one")
    func recordsNameTheID() throws {
        try withSyncFixture { fixture in
            let (desktop, _) = try desktopAndLaptop(fixture)
            let id = try #require(try cloudID(fixture))
            var record = try #require(try fixture.storage.read(CloudLayout.devicePath(desktop.id)).flatMap(DeviceRecord.decode))
            #expect(record.cloud == id)
            record.cloud = ""
            #expect(DeviceRecord.decode(record.encoded())?.cloud == nil)
            record.cloud = String(repeating: "f", count: 65)
            #expect(DeviceRecord.decode(record.encoded())?.cloud == nil)
        }
    }

    @Test("a cloud started before ids (its manifest has none) syncs as before, and once started again is told")
    func aCloudWithoutAnID() throws {
        try withSyncFixture { fixture in
            fixture.storage.plant(CloudLayout.manifestPath, CloudManifest.current.encoded())
            let (desktop, laptop) = try desktopAndLaptop(fixture)
            #expect(try cloudID(fixture) == nil, "an id is never added to a manifest that has none")
            try desktop.add("otra")
            try fixture.syncRounds([desktop, laptop], 2)
            #expect(try !laptop.sync().cloudStartedAgain)

            for path in fixture.storage.files.keys where !path.contains(laptop.id) { _ = try fixture.storage.delete(path) }
            try SyncStore(desktop.library).changeRemote(to: ("folder", "/cloud", nil))
            let new = try desktop.add("nueva")
            try desktop.sync()
            #expect(try cloudID(fixture) != nil)
            #expect(try laptop.sync().cloudStartedAgain)
            #expect(try laptop.has(new))
        }
    }

    @Test("the manifest's id is read only when it is one: an empty or overlong id counts as none")
    func badIDs() throws {
        let text = { (id: String) in
            Data(#"{"format": "midiccio-sync", "version": 5, "minimumReadVersion": 5, "minimumWriteVersion": 5, "cloud": "\#(id)"}"#.utf8)
        }
        #expect(CloudManifest.decode(text(""))?.cloud == nil)
        #expect(CloudManifest.decode(text(String(repeating: "a", count: 65)))?.cloud == nil)
        #expect(CloudManifest.decode(text("0123abcd"))?.cloud == "0123abcd")
        let fresh = CloudManifest.newCloudID()
        #expect(fresh.count == 32 && fresh != CloudManifest.newCloudID())
        var manifest = CloudManifest.current
        manifest.cloud = fresh
        #expect(CloudManifest.decode(manifest.encoded())?.cloud == fresh)
    }
}
