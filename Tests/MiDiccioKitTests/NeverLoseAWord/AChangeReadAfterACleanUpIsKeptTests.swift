import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Round 24B #1: a library that syncs with two clouds in turn carried one cloud's Trash
/// clean-up into the other, past a phone there that had restored and edited the word. The
/// phone keeps its change when the marker reaches it; every device that read the marker
/// before the phone's change dropped the change, and with the phone lost, it was gone.
@Suite("A change read after a Trash clean-up's marker is kept")
struct AChangeReadAfterACleanUpIsKeptTests {
    private static let day = SyncFixture.day

    /// Syncs `b` with the fixture's cloud (folder "F") or with `y` (folder "Y"), its remote
    /// set to that folder first, as a person switching remotes does.
    private func sync(_ b: TestDevice, on y: MemoryStorage?, _ fixture: SyncFixture) throws {
        try b.library.setRemote(.folder(path: fixture.file(y == nil ? "F" : "Y")))
        if let y {
            try SyncEngine(library: b.library, storage: y, appVersion: "midiccio-tests").sync()
        } else {
            try b.sync()
        }
    }

    @Test("rule: a device that reads a restore and edit of a word after its clean-up marker keeps the change as a new word")
    func keptByEveryReader() throws {
        try withSyncFixture { fixture in
            // a syncs with the fixture's cloud; b with it and with cloud "Y", in turn; c with Y.
            let a = try fixture.device("a"), b = try fixture.device("b")
            let y = MemoryStorage()
            try a.library.setRemote(.folder(path: fixture.file("F")))
            let word = try a.add("palabra", meaning: "word")
            try a.library.setSetting(.autoPurgeDays, to: "7")
            try a.sync()
            try sync(b, on: nil, fixture)
            try sync(b, on: y, fixture)
            let c = try TestDevice(name: "c", path: fixture.file("c.sqlite"), storage: y, clock: ManualClock(start: a.clock.now()))
            try c.sync()
            // a deletes the word; b carries the deletion to Y.
            fixture.advanceClocks(by: 1_000)
            _ = try a.library.delete([word])
            try a.sync()
            fixture.advanceClocks(by: 1_000)
            try sync(b, on: nil, fixture)
            try sync(b, on: y, fixture)
            c.clock.set(a.clock.now())
            try c.sync()
            #expect(try c.library.word(word)?.isDeleted == true)
            // Two days on, c takes it out of the Trash, edits it, syncs, and is lost.
            fixture.advanceClocks(by: 2 * Self.day)
            c.clock.set(a.clock.now())
            _ = try c.library.restore([word])
            try c.library.edit(word, WordEdit(meaning: "word, restored and edited on c"))
            try c.sync()
            // Past the seven days, a's clean-up purges the version it has; b carries the
            // marker to Y.
            fixture.advanceClocks(by: 8 * Self.day)
            try a.sync()
            #expect(try a.library.isPurged(word), "the clean-up purged the word on a (the situation of the finding)")
            try sync(b, on: nil, fixture)
            try sync(b, on: y, fixture)
            // A new device of Y reads the marker and c's change in one pull.
            let d = try TestDevice(name: "d", path: fixture.file("d.sqlite"), storage: y, clock: ManualClock(start: a.clock.now()))
            try d.sync()
            let keptID = try a.library.idAfterPurge(of: word)
            for (device, library) in [("b", b.library), ("d", d.library)] {
                let kept = try library.word(keptID)
                #expect(kept?.meaning == "word, restored and edited on c", "\(device): \(String(describing: kept))")
                #expect(kept?.isDeleted == false, "\(device)")
            }
            // And it reaches a, through b.
            try sync(b, on: y, fixture)
            try sync(b, on: nil, fixture)
            try a.sync()
            #expect(try a.library.word(keptID)?.meaning == "word, restored and edited on c")
            // A version no newer than the one purged stays out.
            #expect(try d.library.word(word) == nil)
        }
    }
}
