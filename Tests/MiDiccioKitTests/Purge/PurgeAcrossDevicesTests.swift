import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a purge marker beats every version of the word from any device, whatever its
/// time, so an offline device that edited the word cannot bring it back; that device's
/// edit is discarded and its status says how many words were purged elsewhere.
@Suite("A purge beats every version of the word, on every device")
struct PurgeAcrossDevicesTests {
    /// Two devices in sync on a word with a unique string in its notes.
    private func twoDevicesSharingAWord(_ fixture: SyncFixture) throws -> (TestDevice, TestDevice, WordID, String) {
        let a = try fixture.device("a"), b = try fixture.device("b")
        let secret = purgeUniqueToken("secret")
        let id = try a.add("murciélago", meaning: "bat", notes: "nota \(secret)", tags: ["animales"])
        try a.add("gato", meaning: "cat")
        try fixture.syncRounds([a, b])
        #expect(try b.word(id).notes == "nota \(secret)", "the setup shares the word")
        return (a, b, id, secret)
    }

    @Test(
        "an offline device's later edit cannot bring back a word purged elsewhere, whichever device syncs first",
        arguments: [false, true])
    func laterOfflineEditLoses(editorSyncsFirst: Bool) throws {
        try withSyncFixture { fixture in
            let (a, b, id, secret) = try twoDevicesSharingAWord(fixture)
            try a.library.delete([id])
            try a.library.purge([id])
            // b edits later than the purge, on a clock a day ahead: the edit's time is
            // newer than anything a has, and still loses.
            b.clock.advance(by: SyncFixture.day)
            let edited = purgeUniqueToken("edited")
            try b.library.edit(id, WordEdit(meaning: "bat (edited offline) \(edited)"))
            #expect(try b.word(id).updatedAt > a.clock.now())

            var purgedElsewhere = 0
            if editorSyncsFirst {
                purgedElsewhere += try b.sync().purgedElsewhere  // uploads the edit before seeing the purge
                fixture.advanceClocks(by: 1_000)
                try a.sync()
                #expect(try !a.has(id), "a takes no version of a word it purged")
            }
            for _ in 0..<3 {
                fixture.advanceClocks(by: 1_000)
                try a.sync()
                fixture.advanceClocks(by: 1_000)
                purgedElsewhere += try b.sync().purgedElsewhere
            }
            for device in [a, b] {
                #expect(try !device.has(id), "\(device.name) still holds the purged word")
                #expect(try device.library.isPurged(id), "\(device.name) holds the marker")
                #expect(try device.library.search("murciélago").isEmpty)
                #expect(try device.pendingCount() == 0)
                #expect(purgeLibraryFiles(of: device.library, holding: secret) == [], "\(device.name)'s files")
                #expect(purgeLibraryFiles(of: device.library, holding: edited) == [], "\(device.name)'s files")
            }
            #expect(purgedElsewhere == 1, "b's syncs report the purge once")
            #expect(try b.status().purgedElsewhere == 1)
            #expect(try a.status().purgedElsewhere == 0, "a purged it itself")
            #expect(try a.everyWord() == b.everyWord())
            #expect(try a.library.list().map(\.term) == ["gato"])
        }
    }

    @Test("the first sync after the purge reports the word as purged elsewhere and discards the offline edit")
    func firstSyncReportsPurgedElsewhere() throws {
        try withSyncFixture { fixture in
            let (b, id) = try purgedOnAWhileEditedOnB(fixture)
            #expect(try b.pendingCount() == 1)

            let report = try b.sync()
            #expect(report.purgedElsewhere == 1)
            #expect(report.pushed == 0, "the discarded edit is not uploaded")
            #expect(try !b.has(id))
            #expect(try b.pendingCount() == 0)
            let status = try b.status()
            #expect(status.purgedElsewhere == 1)
            #expect(status.pending == 0)
            #expect(status.purgeMarkers == 1)
        }
    }

    /// A word both devices hold, purged on `a` and synced there, then changed on `b` by
    /// `change` (not synced; an edit unless said): `b` and the word's id.
    private func purgedOnAWhileEditedOnB(
        _ fixture: SyncFixture,
        change: (TestDevice, WordID) throws -> Void = { b, id in
            try b.library.edit(id, WordEdit(notes: "edited offline"))
        }
    ) throws -> (b: TestDevice, id: WordID) {
        let (a, b, id, _) = try twoDevicesSharingAWord(fixture)
        try a.library.delete([id])
        try a.library.purge([id])
        fixture.advanceClocks(by: 1_000)
        try a.sync()
        fixture.advanceClocks(by: 1_000)
        try change(b, id)
        return (b, id)
    }

    /// Answers given here and not sent went with a word another device purged, without a
    /// word, where an edit was named (found by the exploratory helper, round 22B #5).
    @Test("a purged word answered here and not synced yet is told as one with changes made here")
    func answersDiscardedAreTold() throws {
        try withSyncFixture { fixture in
            let (b, _) = try purgedOnAWhileEditedOnB(fixture) { b, id in _ = try b.library.review(id, grade: .good) }
            let report = try b.sync()
            #expect(report.purgedElsewhere == 1 && report.purgedEditedHere == 1, "\(report)")
            #expect(report.purgeNote?.contains("had edits (or study answers) made here and not synced yet") == true)
        }
    }

    @Test("a sync that stops after its pull removed a purged word leaves the note to the next sync that finishes")
    func stoppedSyncLeavesItsNote() throws {
        try withSyncFixture { fixture in
            let (b, id) = try purgedOnAWhileEditedOnB(fixture)
            try b.add("perro", meaning: "dog")
            // The pull is saved, then the upload fails (the connection dropped, the process
            // killed): the sync stops.
            b.cloud.beforeWrite = { path in
                if path.hasPrefix("changes/") { throw CloudError.failed(path: path, reason: "the connection dropped") }
            }
            #expect(throws: (any Error).self) { try b.sync() }
            #expect(try !b.has(id), "the pull was saved")
            b.cloud.beforeWrite = nil
            fixture.advanceClocks(by: 1_000)
            let report = try b.sync()
            #expect(report.purgedElsewhere == 1)
            #expect(report.purgedEditedHere == 1)
            // Counted, not named: the purged word's text is not kept anywhere in the library.
            #expect(
                report.purgeNote
                    == "1 word was purged on another device and removed here; it had edits (or study answers) made here and not synced yet, which were discarded (a permanent deletion wins over every edit)"
            )
            // Told once.
            #expect(try b.sync().purgedElsewhere == 0)
        }
    }

    @Test("a purged word never reappears: not after more syncs, edits elsewhere, nor on a device that joins later")
    func purgedWordNeverReappears() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b"), c = try fixture.device("c")
            for device in [a, b, c] { device.engine.snapshotInterval = 3 }
            let id = try a.add("tejado", meaning: "roof")
            try fixture.syncRounds([a, b, c])
            // c edits it offline, twice, on a clock far ahead.
            c.clock.advance(by: 10 * SyncFixture.day)
            try c.library.edit(id, WordEdit(meaning: "roof, edited on c"))
            try c.library.delete([id])
            try c.library.restore([id])
            try b.library.delete([id])
            try b.library.purge([id])
            for round in 0..<6 {
                try a.add("palabra \(round)")
                try c.add("otra \(round)")
                try fixture.syncRounds([c, a, b], 1)
                // b uploads its marker last in the first round; a and c see it in the next.
                for device in [a, b, c] where round > 0 || device === b {
                    #expect(try !device.has(id), "round \(round): \(device.name)")
                }
            }
            let newcomer = try fixture.device("new")
            try fixture.syncRounds([newcomer, a, b, c, newcomer])
            #expect(try !newcomer.has(id))
            #expect(try newcomer.library.isPurged(id))
            #expect(try newcomer.everyWord() == a.everyWord())
            #expect(try a.everyWord() == c.everyWord())
            #expect(try a.library.counts().words == 12)
        }
    }

    @Test("a device that restores the word from its own Trash before it sees the purge loses that restore too")
    func restoreBeforeSeeingThePurgeLoses() throws {
        try withSyncFixture { fixture in
            let (a, b, id, secret) = try twoDevicesSharingAWord(fixture)
            try a.library.delete([id])
            try fixture.syncRounds([a, b])
            #expect(try b.library.trash().map(\.id) == [id], "b has it in its Trash")

            try a.library.purge([id])
            b.clock.advance(by: SyncFixture.day)
            try b.library.restore([id])
            #expect(try b.library.list().map(\.id).contains(id))

            var purgedElsewhere = 0
            for _ in 0..<3 {
                fixture.advanceClocks(by: 1_000)
                purgedElsewhere += try b.sync().purgedElsewhere
                fixture.advanceClocks(by: 1_000)
                try a.sync()
            }
            for device in [a, b] {
                #expect(try !device.has(id), "\(device.name)")
                #expect(purgeLibraryFiles(of: device.library, holding: secret) == [], "\(device.name)'s files")
            }
            #expect(purgedElsewhere == 1)
            #expect(try b.status().purgedElsewhere == 1)
        }
    }

    @Test("a word purged on two devices at once is purged once on each, with no error")
    func purgedOnBothDevices() throws {
        try withSyncFixture { fixture in
            let (a, b, id, _) = try twoDevicesSharingAWord(fixture)
            try a.library.delete([id])
            try fixture.syncRounds([a, b])
            try a.library.purge([id])
            fixture.advanceClocks(by: 5_000)
            try b.library.purge([id])
            try fixture.syncRounds([a, b], 3)
            for device in [a, b] {
                #expect(try !device.has(id))
                #expect(try device.library.purgedCount() == 1)
                #expect(try device.status().purgedElsewhere == 0, "\(device.name) purged it itself")
            }
        }
    }
}
