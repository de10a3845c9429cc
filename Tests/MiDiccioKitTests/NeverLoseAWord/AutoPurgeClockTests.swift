import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Finding 9: automatic purging counts the days a word has been in the Trash by this
/// device's own clock, from when this device first saw it deleted; no other device's
/// clock can hurry it, nor this device's own set ahead while the cloud tells its clock.
@Suite("Automatic purging that no clock can hurry")
struct AutoPurgeClockTests {
    private static let day: Int64 = 86_400_000

    @Test("a word deleted on a device whose clock is a day behind is not purged elsewhere before its day in the Trash has passed there")
    func clockBehindDoesNotHurry() throws {
        try withSyncFixture { fixture in
            let behind = try fixture.device("behind", clockOffset: -Self.day - 60_000)
            let correct = try fixture.device("correct")
            let word = try behind.add("palabra")
            try fixture.syncRounds([behind, correct])
            try correct.library.setSetting(.autoPurgeDays, to: "1")
            try fixture.syncRounds([correct, behind])
            try behind.library.delete([word])
            try fixture.syncRounds([behind, correct])
            #expect(try correct.word(word).isDeleted, "in the Trash everywhere")
            #expect(try !correct.library.isPurged(word), "not purged seconds after the delete")

            fixture.advanceClocks(by: Self.day - 3_600_000)
            try fixture.syncRounds([correct, behind])
            #expect(try !correct.library.isPurged(word), "23 hours are not a day")
            fixture.advanceClocks(by: 2 * 3_600_000)
            try fixture.syncRounds([correct, behind])
            #expect(try correct.library.isPurged(word) && behind.library.isPurged(word))
        }
    }

    @Test("a device whose clock is a day ahead does not purge words deleted elsewhere early")
    func clockAheadDoesNotHurry() throws {
        try withSyncFixture { fixture in
            let ahead = try fixture.device("ahead", clockOffset: Self.day + 60_000)
            let correct = try fixture.device("correct")
            let word = try correct.add("palabra")
            try fixture.syncRounds([correct, ahead])
            try correct.library.setSetting(.autoPurgeDays, to: "1")
            try fixture.syncRounds([correct, ahead])
            try correct.library.delete([word])
            try fixture.syncRounds([correct, ahead])
            #expect(try ahead.word(word).isDeleted)
            #expect(try !ahead.library.isPurged(word), "a clock a day ahead does not count the day as passed")
            fixture.advanceClocks(by: Self.day + 60_000)
            try fixture.syncRounds([ahead, correct])
            #expect(try ahead.library.isPurged(word) && correct.library.isPurged(word))
        }
    }

    @Test("a device opened days later does not purge, before its pull, a word another device took out of the Trash and edited")
    func restoredElsewhereBeforeThePull() throws {
        try withSyncFixture { fixture in
            let first = try fixture.device("a")
            let second = try fixture.device("b")
            for device in [first, second] { try device.library.setRemote(.folder(path: "/cloud")) }
            let word = try first.add("importante")
            try first.library.setSetting(.autoPurgeDays, to: "1")
            try fixture.syncRounds([first, second])
            try first.library.delete([word])
            try fixture.syncRounds([first, second])
            try second.library.restore([word])
            try second.library.edit(word, WordEdit(meaning: "restored and edited on b"))
            _ = try second.sync()

            fixture.advanceClocks(by: 2 * Self.day)
            // Every command opens the library first; one that syncs purges only after its pull.
            #expect(try first.library.autoPurgeUnlessSyncing() == 0)
            try fixture.syncRounds([first, second])
            #expect(try !first.library.isPurged(word) && !second.library.isPurged(word))
            #expect(try first.word(word).meaning == "restored and edited on b")
            #expect(try !first.word(word).isDeleted)
        }
    }

    @Test("a device whose clock jumped weeks ahead counts the Trash's days by a cloud that tells its clock")
    func clockJumpedAheadCountsByTheCloud() throws {
        try withSyncFixture { fixture in
            let correct = try fixture.device("correct")
            let jumped = try fixture.device("jumped")
            fixture.storage.clock = correct.clock
            let word = try correct.add("palabra")
            try correct.library.setSetting(.autoPurgeDays, to: "30")
            try fixture.syncRounds([correct, jumped])
            try correct.library.delete([word])
            try fixture.syncRounds([correct, jumped])
            #expect(try jumped.word(word).isDeleted)

            // Minutes later, the clock of `jumped` is set 40 days ahead, and it syncs.
            jumped.clock.advance(by: 40 * Self.day)
            let report = try jumped.sync()
            #expect(try !jumped.library.isPurged(word), "40 days by this clock are minutes by the cloud's")
            #expect(report.autoPurged == 0)
            let ahead = try #require(report.aheadOfCloud)
            #expect(abs(ahead - 40 * Self.day) < 60_000)
            #expect(report.aheadOfCloudNote?.contains("about 40 days ahead of the cloud's, or the cloud server's clock is behind") == true)
            try fixture.syncRounds([jumped, correct])
            #expect(try !correct.library.isPurged(word))

            // 30 days later by the cloud's clock too, the word goes.
            fixture.advanceClocks(by: 30 * Self.day + 60_000)
            try fixture.syncRounds([jumped, correct])
            #expect(try jumped.library.isPurged(word) && correct.library.isPurged(word))
        }
    }

    @Test("a device whose clock was weeks behind when a word came into its Trash does not purge it once the clock is set right")
    func clockBehindThenSetRight() throws {
        try withSyncFixture { fixture in
            let correct = try fixture.device("correct")
            let behind = try fixture.device("behind", clockOffset: -60 * Self.day)
            let word = try correct.add("palabra")
            try correct.library.setSetting(.autoPurgeDays, to: "30")
            try fixture.syncRounds([correct, behind])
            try correct.library.delete([word])
            try fixture.syncRounds([correct, behind])
            #expect(try behind.word(word).isDeleted)
            // Its clock is set right; minutes have passed since the delete, not 60 days.
            behind.clock.advance(by: 60 * Self.day)
            try fixture.syncRounds([behind, correct])
            #expect(try !behind.library.isPurged(word) && !correct.library.isPurged(word))
        }
    }

    @Test("a library that does not sync purges as it opens, once the days have passed")
    func notSyncingPurgesOnOpen() throws {
        try withSyncFixture { fixture in
            let device = try fixture.device("a")
            let word = try device.add("palabra")
            try device.library.setSetting(.autoPurgeDays, to: "1")
            try device.library.delete([word])
            fixture.advanceClocks(by: Self.day + 60_000)
            #expect(try device.library.autoPurgeUnlessSyncing() == 1)
            #expect(try device.library.isPurged(word))
        }
    }

    @Test("a word restored from the Trash and deleted again starts counting its days again")
    func restartedCount() throws {
        try withSyncFixture { fixture in
            let device = try fixture.device("a")
            let word = try device.add("palabra")
            try device.library.setSetting(.autoPurgeDays, to: "1")
            try device.library.delete([word])
            fixture.advanceClocks(by: Self.day - 60_000)
            try device.library.restore([word])
            try device.library.delete([word])
            fixture.advanceClocks(by: 120_000)
            #expect(try device.library.autoPurge() == 0)
            fixture.advanceClocks(by: Self.day)
            #expect(try device.library.autoPurge() == 1)
        }
    }
}
