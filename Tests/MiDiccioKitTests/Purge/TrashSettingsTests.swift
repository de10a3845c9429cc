import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: the Trash settings are stored in the library and synced (last writer wins).
/// `trash.autoPurgeDays` purges words in the Trash longer than that (default off: the
/// product notes prefer being able to restore); `trash.hideAfterDays` hides older
/// entries from the Trash list, which stay restorable (`trash --all`).
@Suite("Trash settings: purge or hide old Trash entries, synced to every device")
struct TrashSettingsTests {
    private static let day = SyncFixture.day

    @Test("both Trash settings are off by default, and nothing is ever purged or hidden then")
    func offByDefault() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            #expect(try library.setting(.autoPurgeDays) == "off")
            #expect(try library.setting(.hideAfterDays) == "off")
            let old = try library.add(WordContent(term: "antigua")).word
            try library.delete([old.id])
            temporary.clock.advance(by: 3_650 * Self.day)
            #expect(try library.autoPurge() == 0)
            #expect(try library.trash().map(\.id) == [old.id])
            #expect(try library.hiddenTrashCount() == 0)
            #expect(try library.purgedCount() == 0)
        }
    }

    @Test("with trash.autoPurgeDays 30, a word in the Trash for 31 days is purged at the next sync, one there for 29 days is not")
    func autoPurgeAtNextSync() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let old = try a.add("vieja"), recent = try a.add("reciente"), live = try a.add("viva")
            try a.library.setSetting(.autoPurgeDays, to: "30")
            try a.library.delete([old])
            // Days count from the sync that sends a deletion (when other devices see it).
            try a.sync()
            fixture.advanceClocks(by: 2 * Self.day)
            try a.library.delete([recent])
            try fixture.syncRounds([a, b])
            #expect(try b.library.counts() == (words: 1, trash: 2), "nothing is old enough yet")

            fixture.advanceClocks(by: 29 * Self.day)  // old: 31 days (and the seconds of the syncs); recent: 29 days
            let report = try a.sync()
            #expect(report.autoPurged == 1)
            #expect(try !a.has(old))
            #expect(try a.library.isPurged(old))
            #expect(try a.library.trash().map(\.id) == [recent])
            #expect(try a.library.list().map(\.id) == [live])

            try fixture.syncRounds([b, a])
            #expect(try !b.has(old), "the purge reached b")
            #expect(try b.library.trash().map(\.id) == [recent])
        }
    }

    @Test(
        "a library whose remote was removed keeps, past the days, a word whose deletion it never sent; set back, the word is in the Trash everywhere, edited, not purged"
    )
    func removedRemoteWaits() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let cloud = RemoteConfig.folder(path: fixture.file("cloud"))
            try a.library.setRemote(cloud)
            let word = try a.add("palabra"), mine = try a.add("mía")
            try a.library.setSetting(.autoPurgeDays, to: "7")
            try fixture.syncRounds([a, b])
            try a.library.setRemote(nil)
            // Made here after the last sync: it waits too (the clocks cannot tell for sure).
            let unsent = try a.add("nueva")
            try a.library.delete([word, unsent])
            fixture.advanceClocks(by: 2 * Self.day)
            try b.library.edit(word, WordEdit(notes: "b's notes"))
            try b.sync()
            fixture.advanceClocks(by: 8 * Self.day)
            #expect(try a.library.autoPurgeUnlessSyncing() == 0, "b synced with it within 180 days")
            #expect(try !a.library.isPurged(unsent))
            #expect(try !a.library.isPurged(word), "its deletion never reached b")

            try a.library.setRemote(cloud)
            try fixture.syncRounds([a, b])
            #expect(try !b.library.isPurged(word))
            let there = try b.stored(word)
            #expect(there.word.isDeleted && there.word.notes == "b's notes", "in the Trash with b's edit")
            #expect(try b.library.list().map(\.id) == [mine])
        }
    }

    @Test("autoPurge on its own purges only what has been in the Trash longer than the setting")
    func autoPurgeDirectly() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let old = try library.add(WordContent(term: "vieja")).word.id
            let recent = try library.add(WordContent(term: "reciente")).word.id
            try library.setSetting(.autoPurgeDays, to: "30")
            try library.delete([old])
            temporary.clock.advance(by: 2 * Self.day)
            try library.delete([recent])
            temporary.clock.advance(by: 29 * Self.day)
            #expect(try library.autoPurge() == 1)
            #expect(try library.isPurged(old))
            #expect(try library.trash().map(\.id) == [recent])
            temporary.clock.advance(by: 2 * Self.day)
            #expect(try library.autoPurge() == 1)
            #expect(try library.trash().isEmpty)
        }
    }

    @Test("a device that receives trash.autoPurgeDays purges its own old Trash entries at its next sync")
    func syncedSettingPurgesElsewhere() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            // b's word never reached the cloud: only b's own purge can remove it.
            let old = try b.add("vieja", notes: "solo en b")
            try b.library.delete([old])
            try a.library.setSetting(.autoPurgeDays, to: "30")
            try a.sync()
            fixture.advanceClocks(by: 40 * Self.day)

            let report = try b.sync()
            #expect(try b.library.setting(.autoPurgeDays) == "30")
            // Never sent, it is sent first (a copy of b's file might hold it) and counts
            // its days from then: the other devices see it in their Trash meanwhile.
            #expect(report.autoPurged == 0)
            #expect(try a.sync().pulled == 1)
            #expect(try a.word(old).isDeleted)
            fixture.advanceClocks(by: 31 * Self.day)
            #expect(try b.sync().autoPurged == 1)
            #expect(try !b.has(old))
            #expect(try b.library.isPurged(old))
            try fixture.syncRounds([a, b])
            #expect(try a.library.isPurged(old))
        }
    }

    @Test("with trash.hideAfterDays 30, older entries are hidden from the Trash list but still shown with includeHidden and restorable")
    func hideAfterDays() throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            let old = try library.add(WordContent(term: "vieja")).word.id
            let recent = try library.add(WordContent(term: "reciente")).word.id
            try library.delete([old])
            temporary.clock.advance(by: 35 * Self.day)
            try library.delete([recent])
            temporary.clock.advance(by: 5 * Self.day)
            try library.setSetting(.hideAfterDays, to: "30")

            #expect(try library.trash().map(\.id) == [recent])
            #expect(try library.hiddenTrashCount() == 1)
            #expect(try library.trash(includeHidden: true).map(\.id) == [recent, old])
            #expect(try library.counts().trash == 2, "hidden, not gone")
            #expect(try library.autoPurge() == 0, "hiding purges nothing")

            try library.restore([old])
            #expect(try library.list().map(\.id) == [old])
            #expect(try library.hiddenTrashCount() == 0)

            try library.setSetting(.hideAfterDays, to: "off")
            #expect(try library.trash().map(\.id) == [recent])
        }
    }

    @Test("settings sync to other devices, and the last writer wins whichever device syncs last")
    func settingsSyncLastWriterWins() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.library.setSetting(.autoPurgeDays, to: "30")
            try fixture.syncRounds([a, b])
            #expect(try b.library.setting(.autoPurgeDays) == "30")
            #expect(try b.library.setting(.hideAfterDays) == "off")

            // Both change it offline; a's change is the later one but a syncs first.
            try b.library.setSetting(.autoPurgeDays, to: "60")
            fixture.advanceClocks(by: 60_000)
            try a.library.setSetting(.autoPurgeDays, to: "45")
            try b.library.setSetting(.hideAfterDays, to: "7")
            try fixture.syncRounds([a, b], 3)
            for device in [a, b] {
                #expect(try device.library.setting(.autoPurgeDays) == "45", "\(device.name)")
                #expect(try device.library.setting(.hideAfterDays) == "7", "\(device.name)")
            }

            // A device that joins later takes the settings too.
            let newcomer = try fixture.device("new")
            try newcomer.sync()
            #expect(try newcomer.library.setting(.autoPurgeDays) == "45")
            #expect(try newcomer.library.setting(.hideAfterDays) == "7")
        }
    }

    @Test("a setting changed again on a device is not overwritten by its own older value coming back")
    func ownOlderValueDoesNotWin() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.library.setSetting(.hideAfterDays, to: "10")
            try fixture.syncRounds([a, b])
            fixture.advanceClocks(by: 1_000)
            try a.library.setSetting(.hideAfterDays, to: "20")
            try fixture.syncRounds([b, a, b])
            #expect(try a.library.setting(.hideAfterDays) == "20")
            #expect(try b.library.setting(.hideAfterDays) == "20")
        }
    }

    @Test(
        "invalid values are refused with a clear error and change nothing",
        arguments: ["0", "-3", "abc", "1.5", "36501", "", "30 days"])
    func invalidValuesRefused(value: String) throws {
        try withTemporaryLibrary { temporary in
            let library = temporary.library
            try library.setSetting(.autoPurgeDays, to: "30")
            for setting in [LibrarySetting.autoPurgeDays, .hideAfterDays] {
                let error = try #require(throws: LibraryError.self) { try library.setSetting(setting, to: value) }
                #expect(error.description.contains(setting.rawValue), "\(error)")
                #expect(error.description.contains("off or a whole number of days"), "\(error)")
            }
            #expect(try library.setting(.autoPurgeDays) == "30")
            #expect(try library.setting(.hideAfterDays) == "off")
        }
    }

    @Test("valid values are stored normalised", arguments: [("OFF", "off"), (" 30 ", "30"), ("1", "1"), ("36500", "36500"), ("007", "7")])
    func validValuesNormalised(value: String, stored: String) throws {
        try withTemporaryLibrary { temporary in
            try temporary.library.setSetting(.hideAfterDays, to: value)
            #expect(try temporary.library.setting(.hideAfterDays) == stored)
        }
    }
}
