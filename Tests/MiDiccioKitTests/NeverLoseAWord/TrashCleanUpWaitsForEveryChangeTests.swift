import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: the Trash's clean-up (`trash.autoPurgeDays`) runs only in a sync whose pull read
/// everything the other devices' records name. A change file not delivered yet by a
/// file-sync client, or cut short, may take a word out of the Trash: purged first, the word
/// and the edits made to it after its restore were gone on every device (found by the
/// exploratory helper, round 12C). The words due wait, the sync says why, and the next
/// sync that reads everything purges what is still in the Trash. And a word's days count
/// from the sync that sent its deletion: one deleted offline months before was purged by
/// the sync that sent it, on every device at once, edits made there since included.
@Suite("The Trash's clean-up waits for every change")
struct TrashCleanUpWaitsForEveryChangeTests {
    /// `terms` added on `a` (meanings "one", "two", ...; clean-up after 30 days), moved to
    /// the Trash there, and synced on both devices; their ids.
    private func trashedEverywhere(_ fixture: SyncFixture, _ a: TestDevice, _ b: TestDevice, _ terms: [String]) throws -> [WordID] {
        try a.library.setSetting(.autoPurgeDays, to: "30")
        let meanings = ["one", "two", "three"]
        let ids = try terms.enumerated().map { try a.add($0.element, meaning: meanings[$0.offset]) }
        try fixture.syncRounds([a, b])
        _ = try a.library.delete(ids)
        try fixture.syncRounds([a, b])
        return ids
    }

    /// `id` taken out of the Trash by `b` and its meaning edited ("one, rescued by b"), then
    /// synced: the change file that holds it, and its bytes.
    private func rescued(_ id: WordID, by b: TestDevice, _ fixture: SyncFixture) throws -> (path: String, bytes: Data) {
        _ = try b.library.restore([id])
        _ = try b.library.edit(id, WordEdit(meaning: "one, rescued by b"))
        let before = Set(fixture.storage.files.keys)
        try b.sync()
        let rescue = try #require(fixture.storage.files.keys.first { !before.contains($0) && $0.hasPrefix("changes/") })
        return (rescue, try #require(fixture.storage.files[rescue]))
    }

    @Test("a word rescued on day 20 of 30 is not purged on day 31 while the rescue's file is missing, nor later", arguments: [false, true])
    func rescueInAMissingFileIsKept(truncated: Bool) throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let ids = try trashedEverywhere(fixture, a, b, ["uno", "dos"])
            let (uno, dos) = (ids[0], ids[1])
            fixture.advanceClocks(by: 20 * SyncFixture.day)
            // B's record is in the cloud, its new change file not (yet), or only half.
            let (rescue, bytes) = try rescued(uno, by: b, fixture)
            if truncated {
                fixture.storage.plant(rescue, bytes.prefix(bytes.count / 2))
            } else {
                _ = try fixture.storage.delete(rescue)
            }

            fixture.advanceClocks(by: 11 * SyncFixture.day)
            let waiting = try a.sync()
            #expect(waiting.autoPurged == 0)
            #expect(waiting.autoPurgeWaitsFor == ["b"])
            #expect(try a.has(uno) && a.has(dos))

            // The file arrives whole: the rescue comes in, and what is still in the Trash goes.
            fixture.storage.plant(rescue, bytes)
            let complete = try a.sync()
            #expect(complete.autoPurged == 1 && complete.autoPurgeWaitsFor.isEmpty)
            try fixture.syncRounds([a, b])
            for device in [a, b] {
                #expect(try device.word(uno).meaning == "one, rescued by b" && !device.word(uno).isDeleted)
                #expect(try !device.has(dos))
            }
        }
    }

    /// B, which had not seen the deletion, studied the word and was told its answers are
    /// kept in the Trash; the clean-up took the word and the answer hours later, with what
    /// was left of the days, while it gave an edit the days again (round 23B #1).
    @Test("an answer another device gave to a word in the Trash here counts its days again, as an edit does")
    func anAnswerCountsTheDaysAgain() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.library.setSetting(.autoPurgeDays, to: "2")
            let studied = try a.add("estudiada", meaning: "studied"), other = try a.add("otra", meaning: "other")
            try fixture.syncRounds([a, b])
            _ = try a.library.delete([studied, other])
            try a.sync()
            fixture.advanceClocks(by: 45 * SyncFixture.day / 24)
            try b.library.review(studied, grade: .good)
            try b.sync()
            fixture.advanceClocks(by: SyncFixture.day / 24)
            try a.sync()

            fixture.advanceClocks(by: 7 * SyncFixture.day / 24)
            let cleanUp = try a.sync()
            #expect(cleanUp.autoPurged == 1, "only the word nobody studied: \(cleanUp)")
            #expect(try a.has(studied) && !a.has(other))
            #expect(try a.library.reviewEvents(of: studied).count == 1)
            fixture.advanceClocks(by: 2 * SyncFixture.day)
            #expect(try a.sync().autoPurged == 1, "its two days since the answer came")
        }
    }

    /// How B's record reaches A while B's rescue has not (round 15C).
    enum RecordArrival: CaseIterable {
        /// Half delivered: unreadable.
        case half
        /// Delivered whole, then an older copy of it over it (two versions out of order).
        case olderAfterNewer
        /// Whole, from a device whose clock is 200 days behind.
        case fromAClockBehind
    }

    @Test(
        "a rescue not delivered yet holds the clean-up when B's record is half delivered, replaced by an older copy, or written by a clock months behind",
        arguments: RecordArrival.allCases)
    func rescueHeldWhateverTheRecord(arrival: RecordArrival) throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            let b = try fixture.device("b", clockOffset: arrival == .fromAClockBehind ? -200 * SyncFixture.day : 0)
            let uno = try trashedEverywhere(fixture, a, b, ["uno"])[0]
            fixture.advanceClocks(by: 20 * SyncFixture.day)
            let record = CloudLayout.devicePath(b.id)
            let olderRecord = try #require(fixture.storage.files[record])
            let (rescue, bytes) = try rescued(uno, by: b, fixture)
            let newerRecord = try #require(fixture.storage.files[record])
            _ = try fixture.storage.delete(rescue)
            switch arrival {
            case .half: fixture.storage.plant(record, newerRecord.prefix(newerRecord.count / 2))
            case .olderAfterNewer:
                fixture.advanceClocks(by: 11 * SyncFixture.day)
                #expect(try a.sync().autoPurgeWaitsFor == ["b"], "the newer record names the missing file")
                fixture.storage.plant(record, olderRecord)
            case .fromAClockBehind: break
            }

            fixture.advanceClocks(by: 11 * SyncFixture.day)
            let waiting = try a.sync()
            #expect(waiting.autoPurged == 0)
            #expect(waiting.autoPurgeWaitsFor.count == 1, "\(waiting.autoPurgeWaitsFor)")
            #expect(try a.has(uno), "not purged while b's rescue has not arrived")

            fixture.storage.plant(record, newerRecord)
            fixture.storage.plant(rescue, bytes)
            try fixture.syncRounds([a, b])
            for device in [a, b] {
                #expect(try device.word(uno).meaning == "one, rescued by b" && !device.word(uno).isDeleted)
            }
        }
    }

    @Test("with every change read, nothing waits and nothing is said")
    func completePullPurges() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.library.setSetting(.autoPurgeDays, to: "30")
            let uno = try a.add("uno", meaning: "one")
            try fixture.syncRounds([a, b])
            _ = try a.library.delete([uno])
            try fixture.syncRounds([a, b])
            fixture.advanceClocks(by: 31 * SyncFixture.day)
            let report = try a.sync()
            #expect(report.autoPurged == 1 && report.autoPurgeWaitsFor.isEmpty && report.autoPurgeWaitsNote == nil)
        }
    }

    @Test("a deletion made offline months ago counts its days from the sync that sends it, so the others see it in the Trash first")
    func offlineDeletionCountsFromItsUpload() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let uno = try a.add("uno", meaning: "one")
            try fixture.syncRounds([a, b])
            try b.library.setSetting(.autoPurgeDays, to: "30")
            _ = try b.library.delete([uno])  // offline: not synced for months
            fixture.advanceClocks(by: 90 * SyncFixture.day)
            _ = try a.library.edit(uno, WordEdit(notes: "a's important edit in April"))
            try a.sync()

            fixture.advanceClocks(by: 90 * SyncFixture.day)
            let back = try b.sync()
            #expect(back.autoPurged == 0, "the word never was in another device's Trash")
            try a.sync()
            #expect(try a.word(uno).isDeleted && a.word(uno).notes == "a's important edit in April")

            fixture.advanceClocks(by: 29 * SyncFixture.day)
            #expect(try b.sync().autoPurged == 0)
            fixture.advanceClocks(by: 2 * SyncFixture.day)
            #expect(try b.sync().autoPurged == 1)
        }
    }
}
