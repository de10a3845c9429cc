import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: the answers given to a word the Trash's clean-up purged follow the word when a
/// device keeps it (`TheTrashCleanUpKeepsAChangeItNeverSawTests`): those of every device,
/// whether they reached the keeping device before the clean-up's marker or after it, sent
/// or not yet sent when the marker came. A device where the marker removed the word, and
/// which got the kept word in the same pull, does not say it was removed.
///
/// Found by the exploratory helper (round 20A #7): a tablet that studied "pez" for two
/// weeks, offline, while a laptop deleted it and a phone took it out of the Trash again;
/// the laptop's clean-up purged it, the phone kept it under its new id, and the tablet's
/// four answers went from every device, the tablet told "removed here" of a word it still
/// listed.
@Suite("Answers to a word the Trash's clean-up purged stay with the word where it is kept")
struct AnswersToAWordTheCleanUpPurgedStayWithItTests {
    private static let day = SyncFixture.day

    /// "pez" on laptop, phone and tablet; the laptop (clean-up after 3 days) deletes it and
    /// the phone, which saw that, takes it out of the Trash offline; the tablet, offline
    /// since, answers it `answers` times over the days. Returns its id.
    private func pezStudiedOnTheTablet(
        _ fixture: SyncFixture, laptop: TestDevice, phone: TestDevice, tablet: TestDevice, answers: Int = 4
    ) throws -> WordID {
        try laptop.library.setSetting(.autoPurgeDays, to: "3")
        let pez = try laptop.add("pez", meaning: "fish")
        try fixture.syncRounds([laptop, phone, tablet])
        fixture.advanceClocks(by: Self.day)
        try laptop.library.delete([pez])
        try laptop.sync()
        try phone.sync()
        try phone.library.restore([pez])
        for _ in 0..<answers {
            fixture.advanceClocks(by: Self.day)
            try tablet.library.review(pez, grade: .good)
        }
        return pez
    }

    /// The answers each device holds under `id`.
    private func answers(_ devices: [TestDevice], _ id: WordID) throws -> [Int] {
        try devices.map { try $0.library.reviewEvents(of: id).count }
    }

    /// A laptop (the clean-up after 2 days) and a tablet in sync, and "pez", which the
    /// laptop has just moved to the Trash (not synced yet).
    private func pezDeletedOnTheLaptop(_ fixture: SyncFixture) throws -> (laptop: TestDevice, tablet: TestDevice, pez: WordID) {
        let laptop = try fixture.device("laptop"), tablet = try fixture.device("tablet")
        try laptop.library.setSetting(.autoPurgeDays, to: "2")
        let pez = try laptop.add("pez", meaning: "fish")
        try fixture.syncRounds([laptop, tablet])
        try laptop.library.delete([pez])
        return (laptop, tablet, pez)
    }

    /// They were told "discarded (a permanent deletion wins over every edit)", beside a word
    /// the same clean-up kept for its edit (round 23B #2).
    @Test("answers never sent of a word the clean-up purged and nobody kept are told as set aside, not discarded")
    func answersSetAsideAreTold() throws {
        try withSyncFixture { fixture in
            let (laptop, tablet, pez) = try pezDeletedOnTheLaptop(fixture)
            try laptop.sync()
            fixture.advanceClocks(by: Self.day)
            try tablet.library.review(pez, grade: .good)
            fixture.advanceClocks(by: 2 * Self.day)
            #expect(try laptop.sync().autoPurged == 1)

            let report = try tablet.sync()
            #expect(report.purgedElsewhere == 1 && report.purgedStudiedHere == 1 && report.purgedEditedHere == 0, "\(report)")
            let note = try #require(report.purgeNote)
            #expect(note.contains("had study answers given here and not synced yet") && note.contains("set aside"), "\(note)")
            #expect(!note.contains("discarded"), "\(note)")
            #expect(try tablet.library.reviewEvents(of: pez.restoredAfterPurge).count == 1, "set aside under the id it comes back under")
        }
    }

    @Test("a word the clean-up purged that was only taken out of the Trash and put back here is not told as studied")
    func trashFlagAloneIsNoAnswer() throws {
        try withSyncFixture { fixture in
            let (laptop, tablet, pez) = try pezDeletedOnTheLaptop(fixture)
            try fixture.syncRounds([laptop, tablet])
            // Offline, the tablet takes it out of the Trash and puts it back: no answer.
            fixture.advanceClocks(by: Self.day)
            _ = try tablet.library.restore([pez])
            _ = try tablet.library.delete([pez])
            fixture.advanceClocks(by: 2 * Self.day)
            #expect(try laptop.sync().autoPurged == 1)
            let report = try tablet.sync()
            #expect(report.purgedElsewhere == 1 && report.purgedStudiedHere == 0, "round 25B #8: \(report)")
            #expect(!(report.purgeNote ?? "").contains("study answers"), "\(report.purgeNote ?? "")")
        }
    }

    @Test("answers the tablet never sent go with the word the phone kept, to every device")
    func unsentAnswersFollowTheKeptWord() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone"), tablet = try fixture.device("tablet")
            let pez = try pezStudiedOnTheTablet(fixture, laptop: laptop, phone: phone, tablet: tablet)
            fixture.advanceClocks(by: 4 * Self.day)
            #expect(try laptop.sync().autoPurged == 1)
            #expect(try phone.sync().keptFromCleanUp == 1)
            let kept = pez.restoredAfterPurge

            let report = try tablet.sync()
            #expect(report.purgedElsewhere == 0, "the word is here, kept by the phone: \(report.purgedTerms)")
            #expect(try tablet.library.list().map(\.id) == [kept])
            #expect(try tablet.library.reviewEvents(of: kept).count == 4)
            try fixture.syncRounds([laptop, phone, tablet])
            #expect(try answers([laptop, phone, tablet], kept) == [4, 4, 4])
            #expect(try answers([laptop, phone, tablet], pez) == [0, 0, 0])
            #expect(try phone.library.studySchedule(of: kept) == tablet.library.studySchedule(of: kept))
        }
    }

    @Test("answers the tablet sent before the clean-up, which the phone got only after keeping the word, go with it")
    func sentAnswersFollowTheKeptWord() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone"), tablet = try fixture.device("tablet")
            let pez = try pezStudiedOnTheTablet(fixture, laptop: laptop, phone: phone, tablet: tablet)
            // The tablet sends its answers; the laptop gets them, which count the word's days in
            // the Trash again (round 23B #1), and they are up four days later.
            try tablet.sync()
            #expect(try laptop.sync().autoPurged == 0)
            fixture.advanceClocks(by: 4 * Self.day)
            #expect(try laptop.sync().autoPurged == 1)
            // The phone, offline all along, keeps the word, then reads the tablet's answers.
            #expect(try phone.sync().keptFromCleanUp == 1)
            let kept = pez.restoredAfterPurge
            #expect(try phone.library.reviewEvents(of: kept).count == 4, "from the tablet's file, read after the marker")
            // Without the tablet (lost, or not opened again), the laptop gets them from the phone.
            try fixture.syncRounds([laptop, phone])
            #expect(try answers([laptop, phone], kept) == [4, 4])
            try fixture.syncRounds([laptop, phone, tablet])
            #expect(try answers([laptop, phone, tablet], kept) == [4, 4, 4])
        }
    }

    @Test("answers of a tablet that heard of the clean-up before the phone kept the word reach the word all the same")
    func answersOfADeviceThatSyncedFirstFollow() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone"), tablet = try fixture.device("tablet")
            let pez = try pezStudiedOnTheTablet(fixture, laptop: laptop, phone: phone, tablet: tablet)
            fixture.advanceClocks(by: 4 * Self.day)
            #expect(try laptop.sync().autoPurged == 1)
            let report = try tablet.sync()
            #expect(report.purgedElsewhere == 1, "no device has kept it yet: removed here, and said so")
            #expect(try !tablet.has(pez))
            #expect(try phone.sync().keptFromCleanUp == 1)
            let kept = pez.restoredAfterPurge
            try fixture.syncRounds([laptop, phone, tablet])
            #expect(try answers([laptop, phone, tablet], kept) == [4, 4, 4])
            #expect(try tablet.library.list().map(\.id) == [kept])
        }
    }
}
