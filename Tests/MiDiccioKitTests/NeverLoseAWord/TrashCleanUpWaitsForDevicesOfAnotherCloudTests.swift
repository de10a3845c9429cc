import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: the Trash's clean-up (`trash.autoPurgeDays`) purges only words whose deletion the
/// other devices of this library can have seen. A deletion sent to another cloud (the
/// library moved there a while, or for good before its other devices) has not reached the
/// devices of the first one; nor has a deletion made in a library whose remote was
/// removed, nor one of a word restored from a backup, which may be another device's.
/// Purged all the same, the marker took the word, live and edited, from those devices once
/// the libraries met again (found by the exploratory helper, round 15C).
@Suite("The Trash's clean-up waits for the devices of another cloud")
struct TrashCleanUpWaitsForDevicesOfAnotherCloudTests {
    private static let day = SyncFixture.day

    /// `a` and `b` syncing through the fixture's cloud (a's remote set to folder "F"),
    /// with the clean-up after 7 days and two words made on `a`; their ids.
    private func twoDevices(_ fixture: SyncFixture, _ a: TestDevice, _ b: TestDevice) throws -> (word: WordID, other: WordID) {
        try a.library.setRemote(.folder(path: fixture.file("F")))
        let word = try a.add("palabra", meaning: "word"), other = try a.add("otra", meaning: "other")
        try a.library.setSetting(.autoPurgeDays, to: "7")
        try fixture.syncRounds([a, b])
        return (word, other)
    }

    /// A phone syncing through folder "F" with the clean-up after 7 days, and a new laptop
    /// started from its backup (the clean-up set there too), not syncing yet; and a word of it.
    private func laptopFromThePhonesBackup(_ fixture: SyncFixture) throws -> (phone: TestDevice, laptop: TestDevice, word: WordID) {
        let phone = try fixture.device("phone"), laptop = try fixture.device("laptop")
        try phone.library.setRemote(.folder(path: fixture.file("F")))
        let word = try phone.add("palabra", meaning: "word")
        try phone.library.setSetting(.autoPurgeDays, to: "7")
        try phone.sync()
        let backup = fixture.file("phone.json")
        _ = try phone.library.exportBackup(to: backup)
        _ = try laptop.library.restoreBackup(from: backup)
        try laptop.library.setSetting(.autoPurgeDays, to: "7")
        return (phone, laptop, word)
    }

    /// `device` set to sync with folder "Y" through `cloud`; the engine that syncs it there.
    private func inFolderY(_ fixture: SyncFixture, _ device: TestDevice, _ cloud: MemoryStorage) throws -> SyncEngine {
        try device.library.setRemote(.folder(path: fixture.file("Y")))
        return SyncEngine(library: device.library, storage: cloud, appVersion: "midiccio-tests")
    }

    /// `a` set to sync with folder "Y" (a cloud of its own: no other device there), `word`
    /// moved to the Trash and sent there; the engine that syncs `a` with it.
    private func movedAway(_ fixture: SyncFixture, _ a: TestDevice, deleting word: WordID) throws -> SyncEngine {
        let elsewhere = try inFolderY(fixture, a, MemoryStorage())
        _ = try a.library.delete([word])
        try elsewhere.sync()
        return elsewhere
    }

    /// `a` moved to folder "Y", where a new laptop `c` joins it (c never syncs with the first
    /// cloud), `word` moved to the Trash there and in c's Trash: a's engine there, and c.
    private func movedWithANewLaptop(
        _ fixture: SyncFixture, _ a: TestDevice, deleting word: WordID
    ) throws -> (elsewhere: SyncEngine, c: TestDevice) {
        let y = MemoryStorage()
        let elsewhere = try inFolderY(fixture, a, y)
        try elsewhere.sync()
        let c = try TestDevice(name: "c", path: fixture.file("c.sqlite"), storage: y, clock: ManualClock(start: a.clock.now()))
        try c.sync()
        _ = try a.library.delete([word])
        try elsewhere.sync()
        try c.sync()
        return (elsewhere, c)
    }

    /// Two days later, `b` (still on the first cloud) writes notes on `word` and syncs; then
    /// eight days pass, past the clean-up's seven.
    private func editedOnBMeanwhile(_ fixture: SyncFixture, _ b: TestDevice, _ word: WordID) throws {
        fixture.advanceClocks(by: 2 * Self.day)
        _ = try b.library.edit(word, WordEdit(notes: "b's notes"))
        try b.sync()
        fixture.advanceClocks(by: 8 * Self.day)
    }

    /// A word made on `device` a second later and moved to its Trash: one no other device
    /// can have; its id.
    private func madeAndDeleted(_ fixture: SyncFixture, on device: TestDevice) throws -> WordID {
        fixture.advanceClocks(by: 1_000)
        let id = try device.add("nueva")
        _ = try device.library.delete([id])
        return id
    }

    /// Checks that the clean-up of `device`, a library that does not sync now, purges
    /// `unshared` and keeps `shared`.
    private func expectLocalCleanUp(of device: TestDevice, purges unshared: WordID, keeps shared: WordID) throws {
        #expect(try device.library.autoPurgeUnlessSyncing() == 1)
        #expect(try device.library.isPurged(unshared))
        #expect(try !device.library.isPurged(shared))
    }

    @Test("a word deleted while the library synced with another cloud a while is kept for the devices of the first")
    func movedToAnotherCloudAWhile() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let (word, other) = try twoDevices(fixture, a, b)
            // `a` syncs with another cloud a while, where no other device is.
            let elsewhere = try movedAway(fixture, a, deleting: word)
            // Made and deleted there after that sync: it waits too, sent in this sync (a
            // copy of the library file may hold it).
            let fresh = try madeAndDeleted(fixture, on: a)
            try editedOnBMeanwhile(fixture, b, word)
            let there = try elsewhere.sync()
            #expect(there.autoPurged == 0)
            #expect(try !a.library.isPurged(fresh))
            #expect(try !a.library.isPurged(word))
            #expect(there.autoPurgeWaitsElsewhere == ["b"])
            #expect(
                there.autoPurgeWaitsElsewhereNote?.contains(
                    "this library, or a device syncing here, synced with: b may not have seen the words") == true)

            // Back to the first cloud: b keeps the word, in the Trash with its notes.
            try a.library.setRemote(.folder(path: fixture.file("F")))
            try fixture.syncRounds([a, b])
            for device in [a, b] {
                #expect(try !device.library.isPurged(word))
                let kept = try device.word(word)
                #expect(kept.isDeleted && kept.notes == "b's notes", "\(device.name): \(kept)")
                #expect(try device.library.list().map(\.id) == [other])
            }
        }
    }

    @Test("devices of one name are told apart by the start of their ids, in the sync's note and with no remote")
    func devicesOfOneNameToldApart() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b"), other = try fixture.device("b2")
            try other.library.setDeviceName("b")
            try a.library.setRemote(.folder(path: fixture.file("F")))
            let word = try a.add("palabra", meaning: "word")
            try a.library.setSetting(.autoPurgeDays, to: "7")
            try fixture.syncRounds([a, b, other])
            let elsewhere = try movedAway(fixture, a, deleting: word)
            fixture.advanceClocks(by: 10 * Self.day)
            let labels = [b, other].map { "b (\($0.id.prefix(8)))" }
            let there = try elsewhere.sync()
            #expect(Set(there.autoPurgeWaitsElsewhere) == Set(labels), "\(there.autoPurgeWaitsElsewhere)")
            try a.library.setRemote(nil)
            let held = try #require(try a.library.autoPurgeHeldNote())
            #expect(labels.allSatisfy { held.contains($0) }, "\(held)")
        }
    }

    @Test("a device that only ever synced through the new cloud waits with the library that moved there")
    func aDeviceOfTheNewCloudWaitsToo() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let (word, _) = try twoDevices(fixture, a, b)
            let (elsewhere, c) = try movedWithANewLaptop(fixture, a, deleting: word)
            #expect(try c.word(word).isDeleted, "c has it in its Trash")
            try editedOnBMeanwhile(fixture, b, word)
            c.clock.advance(by: 10 * Self.day)

            let onC = try c.sync()
            #expect(onC.autoPurged == 0, "c waits for b, as a does")
            #expect(try !c.library.isPurged(word))
            #expect(onC.autoPurgeWaitsElsewhere == ["b"])
            #expect(try elsewhere.sync().autoPurged == 0)

            // Back in the first cloud, b keeps the word, in the Trash with its notes.
            try a.library.setRemote(.folder(path: fixture.file("F")))
            try fixture.syncRounds([a, b])
            let kept = try b.word(word)
            #expect(kept.isDeleted && kept.notes == "b's notes", "\(kept)")
            #expect(try !a.library.isPurged(word))
        }
    }

    @Test("the hold travels though the clean-up was off where the library moved, and turned on later on another device")
    func theHoldTravelsWithTheCleanUpOff() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.library.setRemote(.folder(path: fixture.file("F")))
            let word = try a.add("palabra", meaning: "word")
            try fixture.syncRounds([a, b])
            let (_, c) = try movedWithANewLaptop(fixture, a, deleting: word)
            try editedOnBMeanwhile(fixture, b, word)
            // c turns the clean-up on while a is away.
            try c.library.setSetting(.autoPurgeDays, to: "7")
            c.clock.advance(by: 10 * Self.day)
            let onC = try c.sync()
            #expect(onC.autoPurged == 0, "c waits for b, whom a's record names")
            #expect(onC.autoPurgeWaitsElsewhere == ["b"])
            #expect(try !c.library.isPurged(word))
        }
    }

    @Test("a clock months ahead does not count the 180 days by itself: the cloud's clock counts when earlier")
    func aClockAheadDoesNotLetGo() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let (word, _) = try twoDevices(fixture, a, b)
            // Folder "Y" stands for a server that tells its clock (WebDAV's `Date`).
            let y = MemoryStorage()
            let serverClock = ManualClock(start: a.clock.now())
            y.clock = serverClock
            let elsewhere = try inFolderY(fixture, a, y)
            try elsewhere.sync()
            _ = try a.library.delete([word])
            try elsewhere.sync()
            try editedOnBMeanwhile(fixture, b, word)
            serverClock.advance(by: 10 * Self.day)
            // a's clock is set 200 days ahead: by it alone, b was last heard long ago.
            a.clock.advance(by: 200 * Self.day)
            let there = try elsewhere.sync()
            #expect(there.autoPurged == 0)
            #expect(try !a.library.isPurged(word))
            #expect(there.autoPurgeWaitsElsewhere == ["b"])
        }
    }

    @Test("moved together after one of them was put back from an older copy, no device waits for a former id")
    func noHoldForAFormerID() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let (word, _) = try twoDevices(fixture, a, b)
            // a's file is put back from an older copy: it goes on under a new id.
            let copy = fixture.file("a-copy.sqlite")
            try a.copyLibraryFile(to: copy)
            try a.add("después")
            try fixture.syncRounds([a, b])
            try a.restoreLibraryFile(from: copy)
            fixture.advanceClocks(by: 1_000)
            let formerID = a.id
            #expect(try a.sync().newIdentity != nil)
            // b reads a's new record, which names the id taken over, then both move on.
            fixture.advanceClocks(by: 1_000)
            try b.sync()
            // Both move to folder "Y" together; a deletes the word there.
            let y = MemoryStorage()
            let onA = try inFolderY(fixture, a, y), onB = try inFolderY(fixture, b, y)
            for engine in [onA, onB, onA] {
                fixture.advanceClocks(by: 1_000)
                try engine.sync()
            }
            _ = try a.library.delete([word])
            for engine in [onA, onB] {
                fixture.advanceClocks(by: 1_000)
                try engine.sync()
            }
            fixture.advanceClocks(by: 8 * Self.day)
            // A third device's record names a's former id as one its clean-up waits for (it
            // heard that id in the first cloud and never learnt it was taken over): a does
            // not wait for itself (round 17A G2).
            var third = DeviceRecord(
                device: WordID.random().rawValue, name: "z", app: "midiccio-tests", lastSync: a.clock.now(), lastSeq: 0,
                snapshotSeq: 0, read: [:], digest: "", wordCount: 0)
            third.trashHold = [DeviceRecord.HeldFor(device: formerID, name: "a", at: a.clock.now().milliseconds, written: nil)]
            try y.write(CloudLayout.devicePath(third.device), third.encoded())
            let first = try onA.sync()
            #expect(first.autoPurgeWaitsElsewhere.isEmpty && first.autoPurgeWaitsUnheard.isEmpty, "\(first.autoPurgeWaitsElsewhere)")
            fixture.advanceClocks(by: 1_000)
            let second = try onB.sync()
            #expect(second.autoPurgeWaitsElsewhere.isEmpty, "b waits for a's former id: \(second.autoPurgeWaitsElsewhere)")
            #expect(first.autoPurged + second.autoPurged == 1)
            for library in [a.library, b.library] { #expect(try library.isPurged(word)) }
            // b's record in Y names no hold for a's former id (a would have waited for it).
            let record = try #require(y.files[CloudLayout.devicePath(b.id)].flatMap(DeviceRecord.decode))
            #expect(!(record.trashHold ?? []).contains { $0.device == formerID }, "\(record.trashHold ?? [])")
        }
    }

    @Test("once the other device syncs through the new cloud too, the days count again from then, and the clean-up runs there")
    func bothMovedThenItRuns() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let (word, _) = try twoDevices(fixture, a, b)
            let cloud = MemoryStorage()
            let aThere = try inFolderY(fixture, a, cloud)
            _ = try a.library.delete([word])
            try aThere.sync()
            fixture.advanceClocks(by: 8 * Self.day)
            #expect(try aThere.sync().autoPurgeWaitsElsewhere == ["b"])
            #expect(try !a.library.isPurged(word))

            // b moves too: its first sync there brings the word into its Trash.
            let bThere = try inFolderY(fixture, b, cloud)
            fixture.advanceClocks(by: 1_000)
            try bThere.sync()
            #expect(try b.word(word).isDeleted)
            fixture.advanceClocks(by: 1_000)
            let came = try aThere.sync()
            #expect(came.autoPurgeWaitsElsewhere.isEmpty && came.autoPurged == 0, "b has seven days to see it in its Trash")
            #expect(came.autoPurgeDaysRestarted)
            #expect(came.autoPurgeDaysRestartedNote?.contains("count their days again from now") == true)
            fixture.advanceClocks(by: 6 * Self.day)
            #expect(try aThere.sync().autoPurged == 0)
            fixture.advanceClocks(by: 2 * Self.day)
            let report = try aThere.sync()
            #expect(report.autoPurged == 1 && !report.autoPurgeDaysRestarted)
            fixture.advanceClocks(by: 1_000)
            try bThere.sync()
            #expect(try a.library.isPurged(word) && b.library.isPurged(word))
        }
    }

    @Test(
        "a device that synced with the first cloud after this library's last sync there holds the clean-up too, for 180 days",
        arguments: [false, true])
    func unheardDeviceOfTheFirstCloud(halfAYearLater: Bool) throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.library.setRemote(.folder(path: fixture.file("F")))
            let word = try a.add("palabra", meaning: "word")
            try a.library.setSetting(.autoPurgeDays, to: "7")
            // a syncs, then b: a never reads b's record.
            try a.sync()
            fixture.advanceClocks(by: 1_000)
            try b.sync()
            let elsewhere = try movedAway(fixture, a, deleting: word)
            try editedOnBMeanwhile(fixture, b, word)
            if halfAYearLater {
                // 180 days after a's last sync there, the first cloud's unknown devices no longer count.
                fixture.advanceClocks(by: 171 * Self.day)
                #expect(try elsewhere.sync().autoPurged == 1)
                return
            }
            let there = try elsewhere.sync()
            #expect(there.autoPurged == 0)
            #expect(try !a.library.isPurged(word))
            #expect(there.autoPurgeWaitsElsewhere.isEmpty && there.autoPurgeWaitsUnheard == ["folder \(fixture.file("F"))"])
            let note = there.autoPurgeWaitsElsewhereNote ?? ""
            #expect(note.contains("any device of folder \(fixture.file("F")) that synced there after"), "\(note)")
            #expect(note.hasSuffix(", sooner once another device syncs through this cloud after this library left that one"), "\(note)")
            try a.library.setRemote(.folder(path: fixture.file("F")))
            try fixture.syncRounds([a, b])
            let kept = try b.word(word)
            #expect(kept.isDeleted && kept.notes == "b's notes")
        }
    }

    @Test("a device last heard from more than 180 days before no longer holds the clean-up")
    func longSilentDeviceLetsGo() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let (word, _) = try twoDevices(fixture, a, b)
            let elsewhere = try movedAway(fixture, a, deleting: word)
            fixture.advanceClocks(by: 181 * Self.day)
            let report = try elsewhere.sync()
            #expect(report.autoPurged == 1 && report.autoPurgeWaitsElsewhere.isEmpty)
            #expect(try a.library.isPurged(word))
        }
    }

    @Test("a library whose remote was removed keeps its Trash while a device it synced with may still sync, and says so")
    func remoteRemovedKeepsWhatWasSent() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let (word, other) = try twoDevices(fixture, a, b)
            // The deletion reaches b; then a stops syncing.
            _ = try a.library.delete([word])
            try fixture.syncRounds([a, b])
            try a.library.setRemote(nil)
            let unsent = try madeAndDeleted(fixture, on: a)
            // b takes the word out of its Trash and edits it.
            fixture.advanceClocks(by: 2 * Self.day)
            _ = try b.library.restore([word])
            _ = try b.library.edit(word, WordEdit(notes: "rescued on b"))
            try b.sync()

            fixture.advanceClocks(by: 8 * Self.day)
            // Even the word made here since (the clocks cannot tell that for sure, round 17B).
            #expect(try a.library.autoPurgeUnlessSyncing() == 0)
            #expect(try !a.library.isPurged(unsent) && !a.library.isPurged(word))
            // Said, where a sync would have said it (`trash`, `status`).
            let held = try #require(try a.library.autoPurgeHeldNote())
            #expect(held.hasPrefix("2 words in the Trash are past trash.autoPurgeDays (7) and kept"), "\(held)")
            #expect(
                held.contains("in the last 180 days this library synced with devices that may not have seen them go to the Trash (b)"),
                "\(held)")

            try a.library.setRemote(.folder(path: fixture.file("F")))
            try fixture.syncRounds([a, b])
            for device in [a, b] {
                let kept = try device.word(word)
                #expect(!kept.isDeleted && kept.notes == "rescued on b", "\(device.name): \(kept)")
                #expect(Set(try device.library.list().map(\.id)) == [word, other])
            }
        }
    }

    /// The restore held the clean-up up to 180 days on every device, the other device told of
    /// "devices of another cloud" there were none of (round 23A #4).
    @Test("a replace with this library's own backup holds nothing: the words it moved to the Trash go in their days")
    func ownBackupHoldsNothing() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.library.setSetting(.autoPurgeDays, to: "1")
            _ = try a.add("casa", meaning: "house")
            let backup = fixture.file("own.json")
            try a.library.exportBackup(to: backup)
            let later = [try a.add("uno", meaning: "one"), try a.add("dos", meaning: "two")]
            try fixture.syncRounds([a, b])
            #expect(try a.library.restoreBackup(from: backup, replace: true).trashed == 2)
            try fixture.syncRounds([a, b])

            fixture.advanceClocks(by: 3 * Self.day)
            let cleanUp = try a.sync()
            #expect(cleanUp.autoPurged == 2 && cleanUp.autoPurgeWaitsElsewhereNote == nil, "\(cleanUp)")
            try b.sync()
            for id in later { #expect(try a.library.isPurged(id) && b.library.isPurged(id)) }
        }
    }

    @Test("a new library started from another device's backup keeps its words' Trash until its first sync sends it")
    func restoredBackupWaitsForItsFirstSync() throws {
        try withSyncFixture { fixture in
            let (phone, laptop, word) = try laptopFromThePhonesBackup(fixture)
            _ = try laptop.library.delete([word])
            // Made on the laptop after the restore: no other device can have it.
            let mine = try madeAndDeleted(fixture, on: laptop)
            fixture.advanceClocks(by: 3 * Self.day)
            _ = try phone.library.edit(word, WordEdit(notes: "phone notes"))
            try phone.sync()

            fixture.advanceClocks(by: 11 * Self.day)
            try expectLocalCleanUp(of: laptop, purges: mine, keeps: word)
            // Its first sync sends the deletion; the phone sees the word in its Trash.
            try laptop.library.setRemote(.folder(path: fixture.file("F")))
            #expect(try laptop.sync().autoPurged == 0)
            try phone.sync()
            for device in [phone, laptop] {
                #expect(try !device.library.isPurged(word))
                let kept = try device.word(word)
                #expect(kept.isDeleted && kept.notes == "phone notes", "\(device.name): \(kept)")
            }
        }
    }

    @Test("a new laptop started from the phone's backup that syncs through another cloud first keeps the backup's words for the phone")
    func restoredLaptopInAnotherCloudFirst() throws {
        try withSyncFixture { fixture in
            let (phone, laptop, word) = try laptopFromThePhonesBackup(fixture)
            // The laptop tries a cloud of its own first, where the phone never syncs.
            let elsewhere = try inFolderY(fixture, laptop, MemoryStorage())
            try elsewhere.sync()
            _ = try laptop.library.delete([word])
            let mine = try madeAndDeleted(fixture, on: laptop)
            try elsewhere.sync()
            fixture.advanceClocks(by: 3 * Self.day)
            _ = try phone.library.edit(word, WordEdit(notes: "phone notes"))
            try phone.sync()

            fixture.advanceClocks(by: 8 * Self.day)
            let there = try elsewhere.sync()
            #expect(there.autoPurged == 1, "the word made on the laptop goes")
            #expect(try laptop.library.isPurged(mine))
            #expect(try !laptop.library.isPurged(word), "the backup's word waits for the phone")
            #expect(there.autoPurgeWaitsRestore)
            #expect(there.autoPurgeWaitsElsewhereNote?.contains("words a backup restore brought") == true)

            // In the phone's cloud, the phone sees it in its Trash, with its notes.
            try laptop.library.setRemote(.folder(path: fixture.file("F")))
            try fixture.syncRounds([laptop, phone])
            for device in [phone, laptop] {
                #expect(try !device.library.isPurged(word))
                let kept = try device.word(word)
                #expect(kept.isDeleted && kept.notes == "phone notes", "\(device.name): \(kept)")
            }
            // The phone has synced here since the restore: its days count, then it goes.
            fixture.advanceClocks(by: 8 * Self.day)
            #expect(try laptop.sync().autoPurged == 1, "the laptop's own clean-up")
            try fixture.syncRounds([laptop, phone])
            for device in [phone, laptop] { #expect(try device.library.isPurged(word), "\(device.name)") }
        }
    }

    @Test(
        "a laptop started from the phone's backup that syncs with a tablet first: the tablet waits too, and the tablet is no reason to let go"
    )
    func restoredLaptopWithATabletFirst() throws {
        try withSyncFixture { fixture in
            let (phone, laptop, word) = try laptopFromThePhonesBackup(fixture)
            // The laptop joins a cloud where a tablet syncs, never the phone.
            let y = MemoryStorage()
            let elsewhere = try inFolderY(fixture, laptop, y)
            let tablet = try TestDevice(
                name: "tablet", path: fixture.file("tablet.sqlite"), storage: y, clock: ManualClock(start: laptop.clock.now()))
            try elsewhere.sync()
            try tablet.sync()
            _ = try laptop.library.delete([word])
            try elsewhere.sync()
            try tablet.sync()
            fixture.advanceClocks(by: 3 * Self.day)
            _ = try phone.library.edit(word, WordEdit(notes: "phone notes"))
            try phone.sync()
            fixture.advanceClocks(by: 8 * Self.day)
            tablet.clock.advance(by: 11 * Self.day)

            let onTablet = try tablet.sync()
            #expect(onTablet.autoPurged == 0, "the tablet waits with the laptop")
            #expect(onTablet.autoPurgeWaitsElsewhere == ["the devices of the library a backup restored on laptop came from"])
            let onLaptop = try elsewhere.sync()
            #expect(onLaptop.autoPurged == 0 && onLaptop.autoPurgeWaitsRestore, "the tablet syncing here is no reason to let go")
            for library in [laptop.library, tablet.library] { #expect(try !library.isPurged(word)) }

            // In the phone's cloud the phone sees it in its Trash, with its notes.
            try laptop.library.setRemote(.folder(path: fixture.file("F")))
            try fixture.syncRounds([laptop, phone])
            let kept = try phone.word(word)
            #expect(kept.isDeleted && kept.notes == "phone notes", "\(kept)")
        }
    }

    @Test("in a library that never syncs, a restore holds only the words it brought: the others' clean-up goes on")
    func restoreHoldsOnlyItsOwnWords() throws {
        try withSyncFixture { fixture in
            let phone = try fixture.device("phone"), laptop = try fixture.device("laptop")
            let fromPhone = try phone.add("palabra", meaning: "word")
            let backup = fixture.file("phone.json")
            _ = try phone.library.exportBackup(to: backup)
            // Made on the laptop before the restore, in no backup.
            let before = try laptop.add("antes")
            fixture.advanceClocks(by: 1_000)
            _ = try laptop.library.restoreBackup(from: backup)
            try laptop.library.setSetting(.autoPurgeDays, to: "7")
            _ = try laptop.library.delete([before, fromPhone])
            fixture.advanceClocks(by: 8 * Self.day)
            try expectLocalCleanUp(of: laptop, purges: before, keeps: fromPhone)
            // An undo of the restore leaves the restored word held too.
            fixture.advanceClocks(by: 1_000)
            _ = try laptop.library.undoRestore()
            fixture.advanceClocks(by: 8 * Self.day)
            #expect(try laptop.library.autoPurgeUnlessSyncing() == 0)
            #expect(try !laptop.library.isPurged(fromPhone))
            let held = try #require(try laptop.library.autoPurgeHeldNote())
            #expect(held.contains("a backup restore brought it") && !held.contains("synced before"), "\(held)")
            // 180 days after the restore, it goes: a library that never syncs kept it for good.
            fixture.advanceClocks(by: 181 * Self.day)
            #expect(try laptop.library.autoPurgeUnlessSyncing() == 1)
            #expect(try laptop.library.isPurged(fromPhone))
        }
    }

    @Test("an old record of the other device in a cloud both used before does not let the hold go")
    func anOldRecordHereDoesNotCount() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            // Both synced through Y first, then moved to the fixture's cloud, F.
            let y = MemoryStorage()
            let (aY, bY) = (
                SyncEngine(library: a.library, storage: y, appVersion: "midiccio-tests"),
                SyncEngine(library: b.library, storage: y, appVersion: "midiccio-tests")
            )
            for device in [a, b] { try device.library.setRemote(.folder(path: fixture.file("Y"))) }
            let word = try a.add("palabra")
            try a.library.setSetting(.autoPurgeDays, to: "7")
            for engine in [aY, bY, aY] {
                fixture.advanceClocks(by: 1_000)
                try engine.sync()
            }
            for device in [a, b] { try device.library.setRemote(.folder(path: fixture.file("F"))) }
            try fixture.syncRounds([a, b])
            // a goes back to Y alone, where b's record is months old.
            fixture.advanceClocks(by: 30 * Self.day)
            try a.library.setRemote(.folder(path: fixture.file("Y")))
            _ = try a.library.delete([word])
            try aY.sync()
            try editedOnBMeanwhile(fixture, b, word)
            let report = try aY.sync()
            #expect(report.autoPurged == 0 && report.autoPurgeWaitsElsewhere == ["b"], "\(report.autoPurgeWaitsElsewhere)")
            #expect(try !a.library.isPurged(word))
        }
    }

    @Test("a cloud where this library heard from nobody holds it only until a device here syncs after it left that cloud")
    func aMistypedFolderLetsGo() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let (word, _) = try twoDevices(fixture, a, b)
            // A mistyped folder, set right a minute later.
            _ = try movedAway(fixture, a, deleting: word)
            fixture.advanceClocks(by: 60_000)
            try a.library.setRemote(.folder(path: fixture.file("F")))
            try fixture.syncRounds([a, b])
            // b synced there after a left the mistyped folder.
            fixture.advanceClocks(by: 8 * Self.day)
            let report = try a.sync()
            #expect(report.autoPurgeWaitsElsewhere.isEmpty && report.autoPurgeWaitsUnheard.isEmpty)
            #expect(report.autoPurged == 1)
        }
    }

    @Test("a remote removed and set again, now reaching another account, still holds for the devices of the first")
    func sameRemoteAnotherAccount() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let (word, _) = try twoDevices(fixture, a, b)
            // The same folder, now showing another account's files (a cloud of its own).
            try a.library.setRemote(nil)
            try a.library.setRemote(.folder(path: fixture.file("F")))
            let otherAccount = SyncEngine(library: a.library, storage: MemoryStorage(), appVersion: "midiccio-tests")
            _ = try a.library.delete([word])
            try otherAccount.sync()
            try editedOnBMeanwhile(fixture, b, word)
            let report = try otherAccount.sync()
            #expect(report.autoPurged == 0 && report.autoPurgeWaitsElsewhere == ["b"], "\(report.autoPurgeWaitsElsewhere)")
            #expect(try !a.library.isPurged(word))
        }
    }
}
