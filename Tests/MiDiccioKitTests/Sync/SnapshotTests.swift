import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a device periodically writes its full state so a new device starts from one
/// snapshot plus the later changes instead of every change ever made; change files
/// already covered by a snapshot and read by every known device can be removed by their
/// owner.
@Suite("Snapshots let a new device start quickly, and old change files are removed only once everyone has read them")
struct SnapshotTests {
    private static let interval: Int64 = 3

    private func device(_ fixture: SyncFixture, _ name: String) throws -> TestDevice {
        let device = try fixture.device(name)
        device.engine.snapshotInterval = Self.interval
        return device
    }

    /// Adds a word on `device` and syncs it: one change file each time.
    @discardableResult
    private func addAndSync(_ fixture: SyncFixture, _ device: TestDevice, _ term: String) throws -> (WordID, SyncReport) {
        let id = try device.add(term)
        fixture.advanceClocks(by: 1_000)
        return (id, try device.sync())
    }

    /// The numbers of `device`'s change files in the cloud.
    private func changeFiles(of device: TestDevice, in fixture: SyncFixture) -> [Int64] {
        fixture.seqs(.changes, of: device)
    }

    /// The numbers of `device`'s snapshots in the cloud.
    private func snapshotFiles(of device: TestDevice, in fixture: SyncFixture) -> [Int64] {
        fixture.seqs(.snapshot, of: device)
    }

    @Test("after enough changes a device writes a snapshot of its whole library")
    func snapshotWritten() throws {
        try withSyncFixture { fixture in
            let a = try device(fixture, "a")
            var ids: [WordID] = []
            for index in 1...3 {
                let (id, report) = try addAndSync(fixture, a, "palabra \(index)")
                ids.append(id)
                #expect(report.snapshotWritten == (index == 3), "sync \(index)")
            }
            #expect(snapshotFiles(of: a, in: fixture) == [3])
            let snapshotPath = try #require(fixture.path(.snapshot, of: a, seq: 3))
            let snapshot = try BatchCodec.decode(try #require(fixture.storage.files[snapshotPath]))
            #expect(snapshot.kind == .snapshot)
            #expect(snapshot.device == a.id)
            #expect(snapshot.seq == 3)
            #expect(Set(snapshot.records.map(\.word.id)) == Set(ids))
        }
    }

    @Test("a new device's first sync reads the snapshot and the later change files, not every change file ever written")
    func newDeviceStartsFromSnapshot() throws {
        try withSyncFixture { fixture in
            let a = try device(fixture, "a")
            let b = try device(fixture, "b")  // known to a, but never syncs again: nothing is compacted
            try b.sync()
            var written = 0
            for index in 1...11 {
                try addAndSync(fixture, a, "palabra \(index)")
                written += 1
            }
            #expect(changeFiles(of: a, in: fixture).count == written, "b has read none, so none was removed")

            let newcomer = try device(fixture, "new")
            let readsBefore = fixture.requests("read"), listsBefore = fixture.requests("list")
            try newcomer.sync()
            let reads = fixture.requests("read") - readsBefore
            let lists = fixture.requests("list") - listsBefore
            #expect(reads < written, "\(reads) reads for \(written) change files")
            #expect(newcomer.cloud.requests("read", under: "snapshots/").map { SyncFixture.seq(of: $0.path) } == [9])
            #expect(newcomer.cloud.requests("read", under: "changes/").map { SyncFixture.seq(of: $0.path) } == [10, 11])
            #expect(try newcomer.everyWord() == a.everyWord())
            // The devices folder, then this device's own change files and snapshots (a
            // first sync looks for files under its id that it did not write), and the
            // folders of changes and snapshots (a first sync looks for devices' files
            // that no record names).
            #expect(lists <= 5)
        }
    }

    @Test("with the default settings too, a new device starts from the snapshot rather than every change file")
    func newDeviceStartsFromSnapshotWithDefaults() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            let b = try fixture.device("b")  // known to a, never syncs again: nothing is compacted
            try b.sync()
            let written = 40
            for index in 1...written {
                try a.add("palabra \(index)")
                fixture.advanceClocks(by: 1_000)
                try a.sync()
            }
            #expect(snapshotFiles(of: a, in: fixture) == [a.engine.snapshotInterval])

            let newcomer = try fixture.device("new")
            try newcomer.sync()
            let entries =
                newcomer.cloud.requests("read", under: "changes/").count + newcomer.cloud.requests("read", under: "snapshots/").count
            #expect(entries < written, "\(entries) change files and snapshots read for \(written) change files written")
            #expect(try newcomer.everyWord() == a.everyWord())
        }
    }

    @Test("a new device's first sync takes a word that changed again after the snapshot")
    func newDeviceTakesWordsChangedAfterSnapshot() throws {
        try withSyncFixture { fixture in
            let a = try device(fixture, "a")
            let (id, _) = try addAndSync(fixture, a, "cambiante")
            try addAndSync(fixture, a, "dos")
            try addAndSync(fixture, a, "tres")
            #expect(snapshotFiles(of: a, in: fixture).count == 1)
            try a.library.edit(id, WordEdit(meaning: "changed after the snapshot"))
            fixture.advanceClocks(by: 1_000)
            try a.sync()

            let newcomer = try device(fixture, "new")
            try newcomer.sync()
            #expect(try newcomer.word(id).meaning == "changed after the snapshot")
            #expect(try newcomer.everyWord() == a.everyWord())
        }
    }

    @Test("change files covered by a snapshot are removed by their owner only after every other device has read them")
    func compactionWaitsForEveryReader() throws {
        try withSyncFixture { fixture in
            let a = try device(fixture, "a"), b = try device(fixture, "b")
            try addAndSync(fixture, a, "uno")
            try b.sync()  // b has read a's change 1
            for index in 2...4 { try addAndSync(fixture, a, "palabra \(index)") }
            #expect(snapshotFiles(of: a, in: fixture) == [3])
            #expect(
                changeFiles(of: a, in: fixture) == [2, 3, 4],
                "change 1 (covered and read by b) removed; 2 and 3 wait for b")
            #expect(a.cloud.requests("delete").allSatisfy { a.owns($0.path) })

            fixture.advanceClocks(by: 1_000)
            try b.sync()
            #expect(try b.everyWord() == a.everyWord(), "b read everything it needed")
            fixture.advanceClocks(by: 1_000)
            let report = try a.sync()
            #expect(report.filesRemoved == 2)
            #expect(changeFiles(of: a, in: fixture) == [4], "4 is not covered by the snapshot")
            #expect(b.cloud.requests("delete").isEmpty, "b never removes a's files")
        }
    }

    @Test("a device that was away for long catches up through the snapshot, and only then are the old files removed")
    func longAbsentDeviceCatchesUp() throws {
        try withSyncFixture { fixture in
            let a = try device(fixture, "a"), b = try device(fixture, "b")
            try addAndSync(fixture, a, "uno")
            try b.sync()
            for index in 2...10 { try addAndSync(fixture, a, "palabra \(index)") }
            #expect(changeFiles(of: a, in: fixture).count == 9, "changes 2 to 10 wait for b")
            #expect(snapshotFiles(of: a, in: fixture).count == 3, "snapshots 3, 6 and 9 wait too")

            b.cloud.resetRequests()
            try b.sync()
            #expect(b.cloud.requests("read", under: "changes/").count + b.cloud.requests("read", under: "snapshots/").count < 9)
            #expect(try b.everyWord() == a.everyWord())

            try a.sync()
            #expect(changeFiles(of: a, in: fixture) == [10])
            #expect(snapshotFiles(of: a, in: fixture) == [9])
            // A newcomer still finds everything.
            let newcomer = try device(fixture, "new")
            try newcomer.sync()
            #expect(try newcomer.everyWord() == a.everyWord())
        }
    }
}
