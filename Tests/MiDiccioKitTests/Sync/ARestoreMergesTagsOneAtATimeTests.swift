import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// Sync merges a word's tags one tag at a time (`TagClock`); a merge restore took the
/// backup's list whole when its tags were newer: a tag another device had put on, that
/// the backup never knew of, was dropped on every device (found by the exploratory
/// helper, round 2 F2). Backups now carry the tags' clock (`tagClock`), and a merge
/// restore merges the tags as sync does.
@Suite("A restore merges a word's tags one tag at a time, as sync does")
struct ARestoreMergesTagsOneAtATimeTests {
    /// A laptop, a tablet and a phone that synced one word tagged t0 and old; every clock
    /// then a minute on.
    private func threeDevices(_ fixture: SyncFixture) throws -> (laptop: TestDevice, tablet: TestDevice, phone: TestDevice, id: WordID) {
        let laptop = try fixture.device("laptop"), tablet = try fixture.device("tablet"), phone = try fixture.device("phone")
        let id = try laptop.add("palabra", meaning: "m0", tags: ["t0", "old"])
        try fixture.syncRounds([laptop, tablet, phone])
        fixture.advanceClocks(by: 60_000)
        return (laptop, tablet, phone, id)
    }

    /// Writes a backup of `device`'s library; returns its path.
    private func backup(_ fixture: SyncFixture, _ device: TestDevice) throws -> String {
        let path = fixture.file("\(device.name)-\(UUID().uuidString.prefix(8)).json")
        try device.library.exportBackup(to: path)
        return path
    }

    @Test("a tag another device put on before the backup's tags changed, that the backup never knew of, stays everywhere")
    func aTagPutOnElsewhereStays() throws {
        try withSyncFixture { fixture in
            let (laptop, tablet, phone, id) = try threeDevices(fixture)
            // The tablet puts a tag on and syncs with the laptop only; later the phone,
            // which never saw it, puts on a tag of its own, and a backup is made of it.
            _ = try tablet.library.edit(id, WordEdit(addTags: ["tablet"]))
            try fixture.syncRounds([tablet, laptop])
            fixture.advanceClocks(by: 60_000)
            _ = try phone.library.edit(id, WordEdit(addTags: ["phone"]))
            let file = try backup(fixture, phone)

            #expect(try laptop.library.restoreBackup(from: file).updated == 1)
            #expect(Set(try laptop.word(id).tags) == ["t0", "old", "tablet", "phone"])
            try fixture.syncRounds([laptop, tablet])
            #expect(try tablet.word(id).tags == laptop.word(id).tags)
            // Restored again, the backup has nothing newer.
            #expect(try laptop.library.restoreBackup(from: file).unchanged == 1)
        }
    }

    @Test("a tag the backup's device took off stays off, and one put on here after that stays on")
    func aTagTakenOffInTheBackupStaysOff() throws {
        try withSyncFixture { fixture in
            let (laptop, _, phone, id) = try threeDevices(fixture)
            _ = try phone.library.edit(id, WordEdit(removeTags: ["old"]))
            let file = try backup(fixture, phone)
            #expect(try String(contentsOfFile: file, encoding: .utf8).contains("\"tagClock\""))
            fixture.advanceClocks(by: 60_000)
            _ = try laptop.library.edit(id, WordEdit(addTags: ["later"]))

            #expect(try laptop.library.restoreBackup(from: file).updated == 1)
            #expect(Set(try laptop.word(id).tags) == ["t0", "later"])
            try fixture.syncRounds([laptop, phone])
            #expect(try phone.word(id).tags == laptop.word(id).tags)
        }
    }

    @Test("the same tag list with a tag taken off later still takes the backup's marks, and the tag stays off everywhere")
    func sameListNewerMarks() throws {
        try withSyncFixture { fixture in
            let (laptop, tablet, phone, id) = try threeDevices(fixture)
            // The tablet puts a tag on; the phone pulls it and takes it off again, offline,
            // and a backup is made. The laptop has pulled nothing: its list is the backup's.
            _ = try tablet.library.edit(id, WordEdit(addTags: ["z"]))
            try fixture.syncRounds([tablet, phone])
            fixture.advanceClocks(by: 60_000)
            _ = try phone.library.edit(id, WordEdit(removeTags: ["z"]))
            let file = try backup(fixture, phone)
            #expect(try laptop.word(id).tags == phone.word(id).tags)

            #expect(try laptop.library.restoreBackup(from: file).updated == 1)
            try fixture.syncRounds([laptop, tablet])
            #expect(try laptop.word(id).tags == ["t0", "old"])
            #expect(try tablet.word(id).tags == ["t0", "old"])
        }
    }

    @Test("undoing a restore takes off the tags it put on, and keeps a tag another device put on since")
    func undoKeepsATagPutOnSince() throws {
        try withSyncFixture { fixture in
            let (laptop, tablet, phone, id) = try threeDevices(fixture)
            // The phone, offline, puts a tag on and a backup of it is made; the tablet puts
            // one on and does not sync yet; the laptop takes "old" off later.
            _ = try phone.library.edit(id, WordEdit(addTags: ["phone"]))
            let file = try backup(fixture, phone)
            fixture.advanceClocks(by: 1_000)
            _ = try tablet.library.edit(id, WordEdit(addTags: ["tablet"]))
            fixture.advanceClocks(by: 1_000)
            _ = try laptop.library.edit(id, WordEdit(removeTags: ["old"]))

            #expect(try laptop.library.restoreBackup(from: file).updated == 1)
            #expect(try laptop.word(id).tags == ["t0", "phone"])
            try fixture.syncRounds([tablet, laptop])
            #expect(Set(try laptop.word(id).tags) == ["t0", "phone", "tablet"])
            #expect(try laptop.library.undoRestore().updated == 1)
            #expect(try laptop.word(id).tags == ["t0", "tablet"], "the restore's tag comes off; the tablet's stays")
            try fixture.syncRounds([laptop, tablet])
            #expect(try tablet.word(id).tags == laptop.word(id).tags)
        }
    }

    @Test("undoing a restore right after it puts the tag list back as it was, in its order")
    func undoRightAfter() {
        #expect(WordLibrary.tagsUndone(["b", "a"], restored: ["a", "c"], now: ["a", "c"]) == ["b", "a"])
        #expect(WordLibrary.tagsUndone(["b", "a"], restored: ["a", "c"], now: ["a", "c", "d"]) == ["a", "d", "b"])
        #expect(WordLibrary.tagsUndone(["Verb"], restored: ["verb", "x"], now: ["verb", "x"]) == ["Verb"])
    }

    @Test("a backup restored into a new library keeps the tags' clock, so that syncing after it brings no tag back")
    func aNewLibraryKeepsTheClock() throws {
        try withSyncFixture { fixture in
            let (laptop, _, phone, id) = try threeDevices(fixture)
            _ = try phone.library.edit(id, WordEdit(removeTags: ["old"]))
            let file = try backup(fixture, phone)
            let entries = try BackupFile.decodeEntries(try Data(contentsOf: URL(fileURLWithPath: file)), file: file)
            #expect(entries.first?.tagClock == (try phone.stored(id).tagClock))

            let fresh = try fixture.device("new laptop")
            #expect(try fresh.library.restoreBackup(from: file).added == 1)
            #expect(try fresh.stored(id).tagClock == (try phone.stored(id).tagClock))
            // The laptop never synced the tag's removal: its "old" is older than it.
            try fixture.syncRounds([fresh, laptop])
            #expect(try laptop.word(id).tags == ["t0"])
            #expect(try fresh.word(id).tags == ["t0"])
        }
    }

    @Test("a replace restore's tags win everywhere, as its fields do: tags put on or taken off elsewhere before it yield")
    func replaceWinsForTags() throws {
        try withSyncFixture { fixture in
            let (laptop, tablet, _, id) = try threeDevices(fixture)
            let file = try backup(fixture, laptop)
            // Before the replace, and not synced yet: the tablet takes a tag off and puts
            // one on, and edits the meaning.
            _ = try tablet.library.edit(id, WordEdit(meaning: "m1", addTags: ["tablet"], removeTags: ["old"]))
            fixture.advanceClocks(by: 60_000)
            _ = try laptop.library.restoreBackup(from: file, replace: true)
            try fixture.syncRounds([laptop, tablet])
            for device in [laptop, tablet] {
                #expect(try device.word(id).meaning == "m0", "\(device.name)")
                #expect(try device.word(id).tags == ["t0", "old"], "\(device.name)")
            }
        }
    }

    @Test("a word whose tags were written at once has no 'tagClock' in the file")
    func noClockForAListWrittenAtOnce() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            _ = try laptop.add("palabra", tags: ["a", "b"])
            let text = try String(contentsOfFile: try backup(fixture, laptop), encoding: .utf8)
            #expect(text.contains("\"times\"") && !text.contains("\"tagClock\""))
        }
    }

    @Test(
        "a bad tag clock is refused, naming the entry and the field, and nothing is restored",
        arguments: [
            (#""tagClock": ["a"]"#, #"entry 1, field "tagClock""#, "must be an object"),
            (
                #""tagClock": {"tags": [{"tag": "a", "on": "yes", "time": "2026-11-29T10:00:00.000Z", "placedAt": "2026-11-29T10:00:00.000Z", "position": 0}]}"#,
                #"entry 1, field "tagClock.tags[0].on""#, "must be true or false"
            ),
            (
                #""tagClock": {"tags": [{"tag": "a", "on": true, "time": "2030-01-01T00:00:00.000Z", "placedAt": "2026-11-29T10:00:00.000Z", "position": 0}]}"#,
                #"entry 1, field "tagClock.tags[0].time""#, "is later than updatedAt"
            ),
            (
                #""tagClock": {"tags": [{"tag": "a", "on": true, "time": "2026-11-29T10:00:00.000Z", "placedAt": "2026-11-29T10:00:00.000Z", "position": -1}]}"#,
                #"entry 1, field "tagClock.tags[0].position""#, "must be a whole number"
            ),
            (
                #""tagClock": {"tags": [{"tag": "a", "on": true, "time": "2026-11-29T10:00:00.000Z", "placedAt": "2026-11-29T10:00:00.000Z", "position": 0}, {"tag": "A", "on": false, "time": "2026-11-29T10:00:00.000Z", "placedAt": "2026-11-29T10:00:00.000Z", "position": 1}]}"#,
                #"entry 1, field "tagClock.tags[1].tag""#, "marked twice"
            ),
        ])
    func badClock(clock: String, location: String, message: String) throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop")
            let file = fixture.file("bad.json")
            let text = """
                {"format": "midiccio-backup", "version": 2, "words": [
                  {"id": "3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b", "term": "palabra", "tags": ["a"], "createdAt": "2026-11-29T09:00:00.000Z",
                   "updatedAt": "2026-11-29T10:00:00.000Z", \(clock)}]}
                """
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let error = try #require(throws: LibraryError.self) { try laptop.library.restoreBackup(from: file) }
            #expect("\(error)".contains(location) && "\(error)".contains(message), "\(error)")
            #expect(try laptop.library.counts().words == 0)
        }
    }
}
