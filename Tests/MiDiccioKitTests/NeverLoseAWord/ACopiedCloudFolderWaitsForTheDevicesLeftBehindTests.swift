import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: a library set to a copy of the folder it syncs with (a person moving to another
/// sync service copies the folder and points each device at the copy in turn) keeps its
/// place there, and its Trash's clean-up waits for each device whose record the copy holds
/// until that device syncs in the copy. The copy read as the same cloud: nothing waited,
/// the clean-up purged in the copy a word a device left on the old folder had edited, and
/// its marker took the word, live and edited, once that device moved too (found by the
/// exploratory helper, round 17A G8). The folder moved, or reached by another path, is
/// the same cloud and holds nothing.
@Suite("A cloud folder copied to another service waits for the devices left on the old one")
struct ACopiedCloudFolderWaitsForTheDevicesLeftBehindTests {
    private static let day = SyncFixture.day

    /// Devices `a` and `b` syncing through the real folder "F" (the clean-up after 7 days
    /// on `a`), and a word made on `a`.
    private func twoDevicesInFolderF(_ fixture: SyncFixture) throws -> (a: TestDevice, b: TestDevice, word: WordID) {
        let folder = fixture.file("F")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let clock = SyncFixture.start
        let a = try TestDevice(
            name: "a", path: fixture.file("a.sqlite"), storage: FolderStorage(root: folder), clock: ManualClock(start: clock))
        let b = try TestDevice(
            name: "b", path: fixture.file("b.sqlite"), storage: FolderStorage(root: folder), clock: ManualClock(start: clock))
        for device in [a, b] { try device.library.setRemote(.folder(path: folder)) }
        let word = try a.add("palabra", meaning: "word")
        try a.library.setSetting(.autoPurgeDays, to: "7")
        for device in [a, b, a] {
            a.clock.advance(by: 1_000)
            b.clock.advance(by: 1_000)
            try device.sync()
        }
        return (a, b, word)
    }

    /// `device` set to the folder "Y"; the engine that syncs it there.
    private func setToY(_ fixture: SyncFixture, _ device: TestDevice) throws -> SyncEngine {
        try device.library.setRemote(.folder(path: fixture.file("Y")))
        return SyncEngine(library: device.library, storage: FolderStorage(root: fixture.file("Y")), appVersion: "midiccio-tests")
    }

    /// How the library that moves first reaches the copy of its folder.
    enum Move: String, CaseIterable, CustomTestStringConvertible {
        /// `remote set folder Y`, right after the copy.
        case setToTheCopy
        /// One more sync in the old folder after the copy, then `remote set folder Y`: the
        /// copy holds an older record of it (round 18A).
        case oneMoreSyncFirst
        /// `remote remove`, then `remote set folder Y` (round 18A; the web app's Settings
        /// cleared, then the copy's path typed).
        case removedThenSet

        var testDescription: String { rawValue }
    }

    @Test(
        "a word deleted in the copy waits for the device still on the old folder, which finds it in its Trash with its edit",
        arguments: Move.allCases)
    func theDeviceLeftBehindKeepsItsEdit(_ move: Move) throws {
        try withSyncFixture { fixture in
            let (a, b, word) = try twoDevicesInFolderF(fixture)
            // b adds a word and syncs before the copy: its record there is newer than a read.
            b.clock.advance(by: 60_000)
            try b.add("otra")
            try b.sync()
            try FileManager.default.copyItem(atPath: fixture.file("F"), toPath: fixture.file("Y"))
            switch move {
            case .setToTheCopy: break
            case .oneMoreSyncFirst:
                a.clock.advance(by: 1_000)
                try a.add("tercera")
                try a.sync()
            case .removedThenSet: try a.library.setRemote(nil)
            }
            let aInY = try setToY(fixture, a)
            let first = try aInY.sync()
            #expect(first.fullUpload == (move != .setToTheCopy), "set straight to the copy, a keeps its place")
            #expect(first.copyOfFolder == (move == .setToTheCopy ? nil : fixture.file("F")))
            // b, still on the old folder, writes notes in it two days later.
            let waiting = try deletedInTheCopy(word, on: a, aInY, editedOn: b)
            #expect(waiting.autoPurgeWaitsElsewhere == ["b"])
            // b moves to the copy: the word is in its Trash with its notes, and it is told.
            b.clock.advance(by: 9 * Self.day)
            try movesToTheCopy(fixture, b, findsInItsTrash: word)
            // b synced in the copy: the hold lets go, and the days count again, for b to
            // restore the word it edited (the next sync purged it, round 18A).
            a.clock.advance(by: 1_000)
            let after = try aInY.sync()
            #expect(after.autoPurgeWaitsElsewhere.isEmpty)
            #expect(after.autoPurged == 0 && after.autoPurgeDaysRestarted)
            a.clock.advance(by: 8 * Self.day)
            #expect(try aInY.sync().autoPurged == 1)
        }
    }

    @Test("a device that joins the old folder after the copy is waited for too, read from that folder's records")
    func aDeviceThatJoinsTheOldFolderLater() throws {
        try withSyncFixture { fixture in
            let (a, b, word) = try twoDevicesInFolderF(fixture)
            try FileManager.default.copyItem(atPath: fixture.file("F"), toPath: fixture.file("Y"))
            let aInY = try setToY(fixture, a)
            try aInY.sync()
            // A phone joins the old folder: its record is there, not in the copy.
            let phone = try TestDevice(
                name: "phone", path: fixture.file("phone.sqlite"), storage: FolderStorage(root: fixture.file("F")),
                clock: ManualClock(start: a.clock.now()))
            try phone.library.setRemote(.folder(path: fixture.file("F")))
            try phone.sync()
            let waiting = try deletedInTheCopy(word, on: a, aInY, editedOn: phone)
            #expect(Set(waiting.autoPurgeWaitsElsewhere) == ["b", "phone"], "\(waiting.autoPurgeWaitsElsewhere)")
            for device in [b, phone] { device.clock.advance(by: 10 * Self.day) }
            try movesToTheCopy(fixture, phone, findsInItsTrash: word)
            // The phone's edit reaches the Trash here: the word's days count again from then.
            a.clock.advance(by: 1_000)
            #expect(try aInY.sync().autoPurged == 0)
            a.clock.advance(by: 8 * Self.day)
            let stillWaiting = try aInY.sync()
            #expect(stillWaiting.autoPurgeWaitsElsewhere == ["b"], "the phone has come; b has not")
            #expect(stillWaiting.autoPurged == 0)
        }
    }

    /// `word` deleted on `a` and sent to the copy (`aInY`); two days later `device`, still on
    /// the old folder, writes notes in it and syncs there; ten days later a's sync in the
    /// copy, which must keep it: its report.
    private func deletedInTheCopy(_ word: WordID, on a: TestDevice, _ aInY: SyncEngine, editedOn device: TestDevice) throws -> SyncReport {
        _ = try a.library.delete([word])
        try aInY.sync()
        device.clock.advance(by: 2 * Self.day)
        _ = try device.library.edit(word, WordEdit(notes: "\(device.name)'s notes"))
        try device.sync()
        a.clock.advance(by: 10 * Self.day)
        let waiting = try aInY.sync()
        #expect(waiting.autoPurged == 0)
        #expect(try !a.library.isPurged(word))
        return waiting
    }

    /// `device` set to the copy: its first sync there finds `word` in its Trash with its
    /// notes, and names it.
    private func movesToTheCopy(_ fixture: SyncFixture, _ device: TestDevice, findsInItsTrash word: WordID) throws {
        let joined = try setToY(fixture, device).sync()
        let kept = try device.word(word)
        #expect(kept.isDeleted && kept.notes == "\(device.name)'s notes", "\(kept)")
        #expect(joined.trashedEditedTerms == ["palabra"])
    }

    /// Deletes `word` on `a` (syncing with `aThere`), has `b` sync with `bThere`, and checks
    /// that ten days later a's clean-up purges it, waiting for nobody.
    private func expectNothingWaits(
        _ a: TestDevice, _ aThere: SyncEngine, _ b: TestDevice, _ bThere: SyncEngine, _ word: WordID
    ) throws {
        for library in [a.library, b.library] { #expect(try SyncStore(library).previousStates().isEmpty) }
        _ = try a.library.delete([word])
        try aThere.sync()
        try bThere.sync()
        a.clock.advance(by: 10 * Self.day)
        let report = try aThere.sync()
        #expect(report.autoPurgeWaitsElsewhere.isEmpty)
        #expect(report.autoPurged == 1)
    }

    @Test("the folder moved is the same cloud: nothing waits")
    func theFolderMovedHoldsNothing() throws {
        try withSyncFixture { fixture in
            let (a, b, word) = try twoDevicesInFolderF(fixture)
            try FileManager.default.moveItem(atPath: fixture.file("F"), toPath: fixture.file("Y"))
            try expectNothingWaits(a, try setToY(fixture, a), b, try setToY(fixture, b), word)
        }
    }

    @Test("the folder reached through a link at another path is the same cloud: nothing waits")
    func theFolderThroughALinkHoldsNothing() throws {
        try withSyncFixture { fixture in
            let (a, b, word) = try twoDevicesInFolderF(fixture)
            let link = fixture.file("link")
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fixture.file("F"))
            try a.library.setRemote(.folder(path: link))
            let aThere = SyncEngine(library: a.library, storage: FolderStorage(root: link), appVersion: "midiccio-tests")
            try expectNothingWaits(a, aThere, b, b.engine, word)
        }
    }
}
