import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: the content of a purged word disappears from the cloud once every device that
/// ever wrote it has compacted its change files; `status` says whether purged content
/// may still remain in the cloud and why.
@Suite("Purged content leaves the cloud once every device has synced and compacted")
struct PurgedContentLeavesTheCloudTests {
    /// A word whose content three devices wrote into their change files and snapshots.
    private struct SharedWord {
        var id: WordID
        var texts: [String]
    }

    private func devices(_ fixture: SyncFixture) throws -> [TestDevice] {
        let devices = try ["a", "b", "c"].map { try fixture.device($0) }
        // Frequent snapshots: older snapshots holding the word must go too.
        for device in devices { device.engine.snapshotInterval = 2 }
        return devices
    }

    /// Adds a word on `devices[0]` and has every device edit it and sync several times, so
    /// each device's change files (and snapshots) hold some of its content.
    private func shareWord(_ fixture: SyncFixture, _ devices: [TestDevice], term: String) throws -> SharedWord {
        var texts = [purgeUniqueToken("notes")]
        let id = try devices[0].add(term, meaning: "meaning", notes: "nota \(texts[0])", tags: ["animales"])
        try fixture.syncRounds(devices)
        for (index, device) in devices.enumerated() {
            let text = purgeUniqueToken("edit\(index)")
            texts.append(text)
            try device.library.edit(id, WordEdit(meaning: "edited on \(device.name): \(text)"))
            try device.add("filler \(term) \(index)")
            try fixture.syncRounds(devices)
        }
        return SharedWord(id: id, texts: texts)
    }

    private func findings(_ fixture: SyncFixture, _ word: SharedWord) -> [String] {
        purgeCloudFindings(fixture.storage.files, id: word.id, texts: word.texts)
    }

    @Test("after a purge, and syncs with compaction on every device, no cloud file holds anything of the word")
    func purgedContentLeavesTheCloud() throws {
        try withSyncFixture { fixture in
            let devices = try devices(fixture)
            let word = try shareWord(fixture, devices, term: "murciélago")
            #expect(!findings(fixture, word).isEmpty, "the setup wrote the word into the cloud")

            try devices[1].library.delete([word.id])
            try devices[1].library.purge([word.id])
            try fixture.syncRounds(devices, 3)

            #expect(findings(fixture, word) == [])
            for device in devices {
                #expect(try !device.has(word.id), "\(device.name)")
                let remains = try device.status().purgedContentRemains
                #expect(remains == [], "\(device.name)")
            }
            // The cloud still serves every other word to a device that joins now.
            let newcomer = try fixture.device("new")
            try newcomer.sync()
            #expect(try newcomer.everyWord() == devices[0].everyWord())
            #expect(try newcomer.library.isPurged(word.id))
        }
    }

    @Test("status says purged content may remain, and why, until the other devices have synced and compacted")
    func statusExplainsWhatRemains() throws {
        try withSyncFixture { fixture in
            let devices = try devices(fixture)
            let (a, b) = (devices[0], devices[1])
            let word = try shareWord(fixture, devices, term: "murciélago")
            #expect(try a.status().purgedContentRemains == [], "nothing purged yet")

            try a.library.delete([word.id])
            try a.library.purge([word.id])
            let before = try a.status().purgedContentRemains
            #expect(!before.isEmpty, "purged on this device and not yet synced")
            #expect(before.contains { $0.contains("this device") }, "\(before)")

            fixture.advanceClocks(by: 1_000)
            try a.sync()
            fixture.advanceClocks(by: 1_000)
            try a.sync()
            let waiting = try a.status().purgedContentRemains
            #expect(waiting.contains { $0.hasPrefix("b ") && $0.contains("not synced") }, "\(waiting)")
            #expect(waiting.contains { $0.hasPrefix("c ") && $0.contains("not synced") }, "\(waiting)")
            #expect(!findings(fixture, word).isEmpty, "b's and c's files still hold it")

            fixture.advanceClocks(by: 1_000)
            try b.sync()
            fixture.advanceClocks(by: 1_000)
            try a.sync()
            let onlyC = try a.status().purgedContentRemains
            #expect(onlyC.contains { $0.hasPrefix("c ") && $0.contains("not synced") }, "\(onlyC)")
            #expect(!onlyC.contains { $0.hasPrefix("b ") }, "\(onlyC)")

            try fixture.syncRounds(devices, 2)
            #expect(try a.status().purgedContentRemains == [])
            #expect(findings(fixture, word) == [])
        }
    }

    @Test("status says purged content may remain when the cloud cannot be read to check the other devices")
    func statusWhenCloudUnreachable() throws {
        try withSyncFixture { fixture in
            let devices = try devices(fixture)
            let word = try shareWord(fixture, devices, term: "murciélago")
            try devices[0].library.delete([word.id])
            try devices[0].library.purge([word.id])
            try fixture.syncRounds(devices, 3)
            #expect(try devices[0].status().purgedContentRemains == [])

            fixture.storage.faults.unreachable = true
            let status = try devices[0].status()
            #expect(status.cloudProblem != nil)
            #expect(status.purgedContentRemains.contains { $0.contains("cannot be read") }, "\(status.purgedContentRemains)")
        }
    }

    @Test("a second purge is cleaned from the cloud too, and status says so on every device")
    func secondPurgeIsCleanedToo() throws {
        try withSyncFixture { fixture in
            let devices = try devices(fixture)
            let first = try shareWord(fixture, devices, term: "murciélago")
            let second = try shareWord(fixture, devices, term: "golondrina")

            try devices[0].library.delete([first.id])
            try devices[0].library.purge([first.id])
            try fixture.syncRounds(devices, 3)
            #expect(findings(fixture, first) == [])
            for device in devices {
                let remains = try device.status().purgedContentRemains
                #expect(remains == [], "first purge: \(device.name)")
            }

            try devices[0].library.delete([second.id])
            try devices[0].library.purge([second.id])
            try fixture.syncRounds(devices, 4)
            #expect(findings(fixture, second) == [])
            for device in devices {
                let remains = try device.status().purgedContentRemains
                #expect(remains == [], "second purge: \(device.name)")
            }
        }
    }

    @Test("a device that never wrote the word counts as clean once it has seen the purge")
    func readOnlyDeviceIsClean() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), reader = try fixture.device("reader")
            let id = try a.add("murciélago", notes: "nota")
            try fixture.syncRounds([a, reader])
            try a.library.delete([id])
            try a.library.purge([id])
            try fixture.syncRounds([a, reader], 3)
            #expect(try a.status().purgedContentRemains == [])
            #expect(try reader.status().purgedContentRemains == [])
            #expect(purgeCloudFindings(fixture.storage.files, id: id, texts: ["murciélago"]) == [])
        }
    }
}
