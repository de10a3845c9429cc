import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: a word the Trash's clean-up (`trash.autoPurgeDays`) purged on one device, which
/// another device holds out of its Trash with a change newer than every field of the
/// version purged (an edit made after the deletion, or a restore from the Trash, that the
/// purging device never had), is kept on that device with the change: under the id a
/// purged word comes back under, in the Trash when the deletion came after the change
/// (as the merge would have left it), out of it after a restore, with its answers, and
/// it goes to every device. The sync says so by name. A person's purge (`purge`, Empty
/// Trash) still beats every version, and a device that was only behind loses nothing of
/// its own and keeps nothing.
///
/// The holds of the clean-up (devices of another cloud, copies of a cloud folder) each
/// closed one route by which it purged a word a device had edited after its deletion, and
/// the marker took the word, live and edited (rounds 15C to 18A); a copy of a folder can
/// be made in more ways than a library can see (round 18A #3, #4, #7, #8, #9).
@Suite("The Trash's clean-up keeps a change it never saw")
struct TheTrashCleanUpKeepsAChangeItNeverSawTests {
    private static let day = SyncFixture.day

    /// "perro" ("dog") added on `a` (clean-up after 7 days) and synced to `others`, then
    /// moved to the Trash on `a` a day later and sent; its id. `others` that sync after the
    /// deletion see it in their Trash.
    private func perroTrashedOnA(
        _ fixture: SyncFixture, _ a: TestDevice, _ others: [TestDevice], seenBy: [TestDevice] = []
    ) throws -> WordID {
        try a.library.setSetting(.autoPurgeDays, to: "7")
        let perro = try a.add("perro", meaning: "dog")
        try fixture.syncRounds([a] + others)
        fixture.advanceClocks(by: Self.day)
        try a.library.delete([perro])
        try a.sync()
        for device in seenBy { try device.sync() }
        fixture.advanceClocks(by: Self.day)
        return perro
    }

    /// Eight days on, `a`'s sync purges `id` by the clean-up.
    private func cleanUpOnA(_ fixture: SyncFixture, _ a: TestDevice, _ id: WordID) throws {
        fixture.advanceClocks(by: 8 * Self.day)
        let report = try a.sync()
        #expect(report.autoPurged == 1)
        #expect(try a.library.isPurged(id))
    }

    @Test("an edit made offline after another device's deletion stays, in the Trash, when that device's clean-up purged the word")
    func anEditAfterTheDeletionStays() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), d = try fixture.device("d")
            let perro = try perroTrashedOnA(fixture, a, [d])
            // D, offline, never saw the deletion: it edits the word and answers it in study.
            try d.library.edit(perro, WordEdit(meaning: "dog, edited on d"))
            try d.library.review(perro, grade: .good)
            try cleanUpOnA(fixture, a, perro)

            let report = try d.sync()
            let kept = perro.restoredAfterPurge
            #expect(report.keptFromCleanUp == 1 && report.keptFromCleanUpTerms == ["perro"])
            #expect(report.purgedElsewhere == 0, "nothing of d's was purged")
            #expect(report.overriddenNote?.contains("deleted permanently on another device by its Trash clean-up") == true)
            #expect(try !d.has(perro) && d.library.isPurged(perro))
            #expect(try d.word(kept).meaning == "dog, edited on d")
            #expect(try d.word(kept).isDeleted, "the deletion came after d's version of the Trash flag: in the Trash, with the edit")
            #expect(try d.library.reviewEvents(of: kept).count == 1, "the answer went with the word")
            #expect(try d.library.reviewEvents(of: perro).isEmpty)

            try a.sync()
            #expect(try a.word(kept).meaning == "dog, edited on d" && a.word(kept).isDeleted)
            #expect(try a.library.reviewEvents(of: kept).count == 1)
        }
    }

    /// How an edit the purging device never had came to be stamped before its deletion.
    enum StampedBefore: String, CustomStringConvertible, CaseIterable {
        /// Made offline before the deletion.
        case madeBefore = "an edit made offline before the deletion"
        /// Made after the deletion on a device whose clock was three days behind.
        case clockBehind = "an edit made after the deletion by a clock three days behind"
        var description: String { rawValue }
    }

    @Test(
        "an edit never sent, stamped before the deletion, stays in the Trash when the clean-up purged the word",
        arguments: StampedBefore.allCases)
    func anUnsentEditStampedBeforeTheDeletionStays(_ how: StampedBefore) throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), d = try fixture.device("d")
            try a.library.setSetting(.autoPurgeDays, to: "7")
            let perro = try a.add("perro", meaning: "dog")
            try fixture.syncRounds([a, d])
            fixture.advanceClocks(by: Self.day)
            if how == .madeBefore { try d.library.edit(perro, WordEdit(meaning: "dog, edited on d")) }
            fixture.advanceClocks(by: Self.day)
            try a.library.delete([perro])
            try a.sync()
            if how == .clockBehind {
                fixture.advanceClocks(by: Self.day)
                d.clock.advance(by: -3 * Self.day)
                try d.library.edit(perro, WordEdit(meaning: "dog, edited on d"))
                d.clock.advance(by: 3 * Self.day)
            }
            #expect(try d.library.word(perro)?.content.meaning == "dog, edited on d")
            try cleanUpOnA(fixture, a, perro)

            let report = try d.sync()
            let kept = perro.restoredAfterPurge
            #expect(report.keptFromCleanUp == 1 && report.purgedEditedHere == 0, "\(report)")
            #expect(try d.word(kept).meaning == "dog, edited on d" && d.word(kept).isDeleted)
            try a.sync()
            #expect(try a.word(kept).meaning == "dog, edited on d" && a.word(kept).isDeleted)
        }
    }

    @Test("an edit a second clean-up never saw stays too, once: the word another device kept from the first was purged in turn")
    func anEditMeetingTwoCleanUpsStays() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), c = try fixture.device("c"), d = try fixture.device("d")
            let perro = try perroTrashedOnA(fixture, a, [c, d])
            // C and D, offline, both edit the word after its deletion.
            try c.library.edit(perro, WordEdit(meaning: "dog, edited on c"))
            fixture.advanceClocks(by: Self.day)
            try d.library.edit(perro, WordEdit(notes: "noted on d"))
            try cleanUpOnA(fixture, a, perro)
            // C comes back first and keeps the word; A's clean-up purges the word kept too.
            #expect(try c.sync().keptFromCleanUp == 1)
            try a.sync()
            let first = perro.restoredAfterPurge
            try cleanUpOnA(fixture, a, first)

            // D, back at last, keeps its edit, the newest of all, under the next id: one word.
            let report = try d.sync()
            #expect(report.keptFromCleanUp == 1 && report.keptFromCleanUpTerms == ["perro"], "\(report)")
            #expect(report.purgedEditedHere == 0, "\(report)")
            let second = first.restoredAfterPurge
            #expect(try d.word(second).notes == "noted on d")
            try fixture.syncRounds([a, c, d])
            for device in [a, c, d] {
                #expect(try device.library.trash().map(\.id) == [second], "\(device.name)")
            }
        }
    }

    @Test("a word taken out of the Trash offline, after its deletion, comes back out of the Trash on every device")
    func aRestoreAfterTheDeletionStaysOut() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), d = try fixture.device("d")
            let perro = try perroTrashedOnA(fixture, a, [d], seenBy: [d])
            #expect(try d.word(perro).isDeleted)
            try d.library.restore([perro])
            try cleanUpOnA(fixture, a, perro)

            let report = try d.sync()
            let kept = perro.restoredAfterPurge
            #expect(report.keptFromCleanUp == 1)
            #expect(try !d.word(kept).isDeleted && d.word(kept).meaning == "dog")
            try a.sync()
            #expect(try a.library.list().map(\.id) == [kept], "the restore beat the deletion, as the merge would have it")
        }
    }

    @Test("an edit that reaches a word in the Trash counts its days there again, so its device sees it in its Trash as long as set")
    func anEditReachingTheTrashCountsItsDaysAgain() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), d = try fixture.device("d")
            let perro = try perroTrashedOnA(fixture, a, [d])
            try d.library.edit(perro, WordEdit(meaning: "dog, edited on d"))
            fixture.advanceClocks(by: 7 * Self.day)
            // D sends its edit and sees the word in its Trash, named; its days are up on A.
            #expect(try d.sync().trashedEditedHere == 1)
            #expect(try d.word(perro).isDeleted)

            let report = try a.sync()
            #expect(report.autoPurged == 0, "the edit came in this sync: the days count again")
            #expect(try a.word(perro).meaning == "dog, edited on d" && a.word(perro).isDeleted)
            fixture.advanceClocks(by: 8 * Self.day)
            #expect(try a.sync().autoPurged == 1)
            #expect(try d.sync().keptFromCleanUp == 0, "d saw the word in its Trash for the setting's days")
            #expect(try !d.has(perro))
        }
    }

    @Test("a device that was only behind keeps nothing: the word the person deleted stays deleted")
    func aDeviceOnlyBehindKeepsNothing() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), d = try fixture.device("d")
            let perro = try perroTrashedOnA(fixture, a, [d])
            try cleanUpOnA(fixture, a, perro)

            let report = try d.sync()
            #expect(report.keptFromCleanUp == 0 && report.purgedElsewhere == 1)
            #expect(try d.library.list().isEmpty && d.library.trash().isEmpty)
            #expect(try !d.has(perro.restoredAfterPurge))
        }
    }

    @Test("a person's purge still beats an edit made offline after the deletion")
    func aPersonsPurgeStillWins() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), d = try fixture.device("d")
            let perro = try perroTrashedOnA(fixture, a, [d])
            try d.library.edit(perro, WordEdit(meaning: "dog, edited on d"))
            try a.library.purge([perro])
            try a.sync()

            let report = try d.sync()
            #expect(report.keptFromCleanUp == 0 && report.purgedElsewhere == 1 && report.purgedEditedHere == 1)
            #expect(try d.library.list().isEmpty && d.library.trash().isEmpty)
        }
    }

    @Test("two devices that each changed the word keep one word with both changes, and the clean-up later ends it everywhere")
    func twoDevicesKeepOneWord() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), d = try fixture.device("d"), e = try fixture.device("e")
            let perro = try perroTrashedOnA(fixture, a, [d, e])
            try d.library.edit(perro, WordEdit(meaning: "dog, edited on d"))
            try e.library.edit(perro, WordEdit(notes: "noted on e"))
            try cleanUpOnA(fixture, a, perro)

            #expect(try d.sync().keptFromCleanUp == 1)
            #expect(try e.sync().keptFromCleanUp == 1)
            try fixture.syncRounds([d, a, e, d])
            let kept = perro.restoredAfterPurge
            for device in [a, d, e] {
                #expect(try device.library.trash().map(\.id) == [kept], "\(device.name)")
                let word = try device.word(kept)
                #expect(word.meaning == "dog, edited on d" && word.notes == "noted on e", "\(device.name)")
            }

            // In the Trash on every device, the kept word goes by the same clean-up, once.
            fixture.advanceClocks(by: 8 * Self.day)
            try fixture.syncRounds([a, d, e, a])
            for device in [a, d, e] {
                #expect(try device.library.trash().isEmpty && device.library.list().isEmpty, "\(device.name)")
                #expect(try device.library.isPurged(kept), "\(device.name)")
                #expect(try !device.has(kept.restoredAfterPurge), "\(device.name)")
            }
        }
    }

    @Test("the clean-up's marker says so in the cloud's files, and a device of the previous format cannot read them")
    func theMarkerSaysItCameFromTheCleanUp() throws {
        let id = WordID("0b7f1c2e-3a4d-4e5f-8a9b-0c1d2e3f4a5b")!
        let cleanUp = PurgeMarker.CleanUp(trashedAt: Timestamp(milliseconds: 1_000), newest: Timestamp(milliseconds: 2_000))
        let batch = SyncBatch(
            kind: .changes, device: "a", seq: 1, records: [],
            markers: [
                PurgeMarker(id: id, purgedAt: Timestamp(milliseconds: 9_000), cleanUp: cleanUp),
                PurgeMarker(id: id.restoredAfterPurge, purgedAt: Timestamp(milliseconds: 9_001)),
            ])
        let data = BatchCodec.encode(batch)
        let read = try BatchCodec.decode(data)
        #expect(read.markers == batch.markers)
        #expect(throws: BatchDecodeError.self) { try BatchCodec.decode(data, formatVersion: 5) }
        #expect(CloudManifest.current.minimumReadVersion == 6 && CloudManifest.current.minimumWriteVersion == 6)
    }
}
