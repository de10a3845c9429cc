import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: in a library that syncs, the Trash's clean-up purges only deletions it has sent:
/// a word made here since the last sync is not one "no other device can have" once the
/// library file may have been copied (a new laptop set up from the old one's file), since
/// the copy holds it under the same device id. Sent first, the deletion reaches the other
/// copy's Trash, and the word leaves it only after its days there (round 16A F11: the
/// copy purged it at its first sync, and the marker took it, live and edited, from the
/// original, which had never seen it in its Trash).
@Suite("A copy of the library never purges what the other copy still has")
struct ACopyOfTheLibraryNeverPurgesWhatTheOtherCopyHasTests {
    private static let day = SyncFixture.day

    /// `laptop` and `phone` in sync with a 7-day clean-up, then a word made on the laptop
    /// and not synced, and the laptop's file copied: the laptop, the phone, the copy, the word.
    private func copiedWithAnUnsentWord(
        _ fixture: SyncFixture
    ) throws -> (laptop: TestDevice, phone: TestDevice, copy: TestDevice, word: WordID) {
        let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
        try laptop.add("uno")
        try laptop.library.setSetting(.autoPurgeDays, to: "7")
        try fixture.syncRounds([laptop, phone])
        let word = try laptop.add("casa", meaning: "house")
        let copy = try fixture.copy(of: laptop, as: "new laptop")
        return (laptop, phone, copy, word)
    }

    @Test("the copy that deleted the word sends the deletion first, and the original has it in its Trash, edits and all")
    func theCopyDeletes() throws {
        try withSyncFixture { fixture in
            let (laptop, phone, copy, word) = try copiedWithAnUnsentWord(fixture)
            try copy.library.delete([word])
            fixture.advanceClocks(by: Self.day)
            try laptop.library.edit(word, WordEdit(notes: "edited on the old laptop"))
            fixture.advanceClocks(by: 8 * Self.day)

            let first = try copy.sync()
            #expect(first.autoPurged == 0, "sent, not purged")
            #expect(try !copy.library.isPurged(word))
            let report = try laptop.sync()
            #expect(report.newIdentity != nil, "the laptop finds out the other file is a copy of it")
            let kept = try laptop.word(word)
            #expect(kept.isDeleted && kept.notes == "edited on the old laptop", "\(kept)")
            try fixture.syncRounds([phone, copy, laptop])
            for device in [laptop, phone, copy] {
                #expect(try device.has(word) && device.word(word).isDeleted, "\(device.name)")
            }
            // Its days counted from the sync that sent it, it goes everywhere after them.
            fixture.advanceClocks(by: 8 * Self.day)
            try fixture.syncRounds([copy, laptop, phone])
            for device in [laptop, phone, copy] {
                #expect(try device.library.isPurged(word), "\(device.name)")
            }
        }
    }

    @Test("the original that deleted the word waits too, and the copy has it in its Trash")
    func theOriginalDeletes() throws {
        try withSyncFixture { fixture in
            let (laptop, _, copy, word) = try copiedWithAnUnsentWord(fixture)
            try laptop.library.delete([word])
            fixture.advanceClocks(by: Self.day)
            try copy.library.edit(word, WordEdit(notes: "edited on the new laptop"))
            fixture.advanceClocks(by: 8 * Self.day)

            #expect(try laptop.sync().autoPurged == 0)
            #expect(try copy.sync().newIdentity != nil)
            let kept = try copy.word(word)
            #expect(kept.isDeleted && kept.notes == "edited on the new laptop", "\(kept)")
        }
    }
}
