import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A sync folder emptied on purpose on one computer, and started again there, while a
/// laptop's sync program was paused: the laptop's record (and a change file it wrote
/// meanwhile) came back when the program resumed, so the laptop did not start over. It kept
/// its place in the other device's files, which started again from 1, and never got the
/// new words (found by the exploratory helper). And files a device wrote that are gone from
/// the cloud left the words they held nowhere but on that device.
@Suite("Devices converge after a sync folder is emptied and started again elsewhere")
struct AFolderEmptiedElsewhereTests {
    /// A desktop that synced six times and a laptop that read it all.
    private func desktopAndLaptop(_ fixture: SyncFixture) throws -> (desktop: TestDevice, laptop: TestDevice) {
        let desktop = try fixture.device("desktop"), laptop = try fixture.device("laptop")
        for index in 1...6 {
            try desktop.add("palabra \(index)")
            try fixture.syncRounds([desktop, laptop], 1)
        }
        return (desktop, laptop)
    }

    /// Removes every cloud file for which `keep` is false, then starts the folder again
    /// from `desktop`, as `remote set` of an emptied folder does, with two new words.
    private func emptyAndStartAgain(
        _ fixture: SyncFixture, from desktop: TestDevice, keep: (String) -> Bool
    ) throws -> [WordID] {
        for path in fixture.storage.files.keys where !keep(path) { _ = try fixture.storage.delete(path) }
        try SyncStore(desktop.library).changeRemote(to: ("folder", "/cloud", nil))
        fixture.advanceClocks(by: 60_000)
        let new = [try desktop.add("nueva uno"), try desktop.add("nueva dos")]
        try desktop.sync()
        return new
    }

    @Test("a device whose place in another device's files is past that device's record reads them again from the start")
    func placePastTheRecord() throws {
        try withSyncFixture { fixture in
            let (desktop, laptop) = try desktopAndLaptop(fixture)
            let laptopID = laptop.id
            let new = try emptyAndStartAgain(fixture, from: desktop) { $0.contains(laptopID) }
            try laptop.add("del portátil")
            try fixture.syncRounds([laptop, desktop], 3)
            let terms = try laptop.terms()
            for id in new { #expect(try laptop.has(id), "\(terms)") }
            #expect(try laptop.everyWord() == desktop.everyWord())
        }
    }

    @Test(
        "a device away while the folder was emptied and started again, whose own files are gone, reads everything again and uploads every word once"
    )
    func ownFilesGone() throws {
        try withSyncFixture { fixture in
            let (desktop, laptop) = try desktopAndLaptop(fixture)
            let only = try laptop.add("solo en el portátil")
            fixture.advanceClocks(by: 1_000)
            try laptop.sync()
            let record = CloudLayout.devicePath(laptop.id)
            var new = try emptyAndStartAgain(fixture, from: desktop) { $0 == record }
            // The desktop's files go past the laptop's old place in them before it is back.
            for index in 1...8 {
                new.append(try desktop.add("después \(index)"))
                fixture.advanceClocks(by: 1_000)
                try desktop.sync()
            }
            fixture.advanceClocks(by: 2 * SyncFixture.day)

            let report = try laptop.sync()
            #expect(report.ownFilesGone)
            try fixture.syncRounds([desktop, laptop], 2)
            let tablet = try fixture.device("tablet")
            try tablet.sync()
            for device in [desktop, tablet] {
                let terms = try device.terms()
                #expect(try device.has(only), "\(device.name): \(terms)")
            }
            for id in new { #expect(try laptop.has(id)) }
            #expect(try tablet.everyWord() == laptop.everyWord())
            #expect(try !laptop.sync().ownFilesGone, "once")
        }
    }
}
