import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Finding 1: a library file copied to a second machine (a new laptop, a cloned VM, a
/// phone set up from a backup while the old one is still in use). Both copies carry one
/// device id; the copy that finds out goes on under a new id, nothing is ever written
/// over, and both copies' edits reach every device.
@Suite("A library file copied to another machine")
struct CopiedLibraryTests {
    /// Every write one device made, by path.
    private func writtenPaths(_ device: TestDevice) -> [String] {
        device.cloud.requests("write").map(\.path).filter { $0.hasPrefix("changes/") || $0.hasPrefix("snapshots/") }
    }

    @Test("a library copied to a new laptop keeps both copies' edits, on both and on a third device", arguments: CloudBackend.available)
    func bothCopiesKeepTheirEdits(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            let shared = try laptop.add("compartida", meaning: "before the copy")
            try fixture.syncRounds([laptop, phone])

            let newLaptop = try fixture.copy(of: laptop, as: "new laptop")
            #expect(newLaptop.id == laptop.id, "a copy starts with the same device id")
            let fromOld = try laptop.add("del viejo", meaning: "added on the old laptop after the copy")
            try laptop.library.edit(shared, WordEdit(notes: "edited on the old laptop"))
            let fromNew = try newLaptop.add("del nuevo", meaning: "added on the new laptop")
            try newLaptop.library.edit(shared, WordEdit(reading: "edited on the new laptop"))

            fixture.advanceClocks(by: 1_000)
            try laptop.sync()
            fixture.advanceClocks(by: 1_000)
            let report = try newLaptop.sync()
            #expect(report.newIdentity != nil, "the copy that syncs second finds out it is a copy")
            #expect(newLaptop.id != laptop.id)
            try fixture.syncRounds([laptop, newLaptop, phone], 3)

            for device in [laptop, newLaptop, phone] {
                #expect(try device.has(fromOld) && device.has(fromNew), "\(device.name): \((try? device.terms()) ?? [])")
                #expect(try device.word(shared).notes == "edited on the old laptop", "\(device.name)")
                #expect(try device.word(shared).reading == "edited on the new laptop", "\(device.name)")
                #expect(try device.pendingCount() == 0, "\(device.name)")
            }
            #expect(try laptop.everyWord() == newLaptop.everyWord())
            #expect(try phone.everyWord() == laptop.everyWord())
            let all = writtenPaths(laptop) + writtenPaths(newLaptop) + writtenPaths(phone)
            #expect(Set(all).count == all.count, "no change file or snapshot was ever written twice")
        }
    }

    @Test("two copies that sync at the same moment both keep their edits and write over nothing", arguments: CloudBackend.available)
    func bothCopiesSyncingAtOnce(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let laptop = try fixture.device("laptop")
            let phone = try fixture.device("phone")
            try laptop.add("uno")
            try fixture.syncRounds([laptop, phone])
            let copy = try fixture.copy(of: laptop, as: "copy")
            let fromOld = try laptop.add("del original")
            let fromCopy = try copy.add("de la copia")

            // The copy's sync has read the records and is about to upload when the
            // original syncs from start to end: both upload the same next number.
            var ran = false
            copy.cloud.beforeWrite = { path in
                guard !ran, path.hasPrefix("changes/") else { return }
                ran = true
                try laptop.sync()
            }
            fixture.advanceClocks(by: 1_000)
            try copy.sync()
            copy.cloud.beforeWrite = nil
            #expect(ran)
            let sameNumber = writtenPaths(laptop).filter { $0.hasPrefix("changes/") }.last.flatMap { SyncFixture.seq(of: $0) }
            #expect(
                sameNumber == writtenPaths(copy).filter { $0.hasPrefix("changes/") }.first.flatMap { SyncFixture.seq(of: $0) },
                "both wrote a change file of the same number")

            try fixture.syncRounds([laptop, copy, phone], 3)
            #expect(laptop.id != copy.id, "one of them took a new id")
            for device in [laptop, copy, phone] {
                #expect(try device.has(fromOld) && device.has(fromCopy), "\(device.name): \((try? device.terms()) ?? [])")
            }
            #expect(try laptop.everyWord() == copy.everyWord())
            #expect(try phone.everyWord() == laptop.everyWord())
            let all = writtenPaths(laptop) + writtenPaths(copy) + writtenPaths(phone)
            #expect(Set(all).count == all.count, "no change file or snapshot was ever written twice")
        }
    }

    @Test("once both copies have synced, the id they shared is gone from the cloud, files and record", arguments: CloudBackend.available)
    func sharedIdIsCleanedUp(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let laptop = try fixture.device("laptop")
            try laptop.add("uno")
            try laptop.sync()
            let shared = laptop.id
            let copy = try fixture.copy(of: laptop, as: "copy")
            try copy.add("dos")
            try laptop.add("tres")
            try fixture.syncRounds([laptop, copy], 4)
            let left = fixture.files.keys.filter { $0.contains(shared) }
            #expect(left.isEmpty, "\(left)")
            #expect(try laptop.everyWord() == copy.everyWord())
            #expect(try laptop.everyWord().count == 3)
        }
    }

    @Test("a copy's takeover stopped by the mass-delete guard is told by the sync that then finishes")
    func takeoverStoppedByTheGuardIsTold() throws {
        try withBackend(.folder) { fixture in
            let laptop = try fixture.device("laptop")
            let ids = try (0..<24).map { try laptop.add("palabra \($0)") }
            try laptop.sync()
            let copy = try fixture.copy(of: laptop, as: "copy")
            try copy.library.delete(Array(ids.prefix(15)))
            fixture.advanceClocks(by: 1_000)
            try copy.sync()
            fixture.advanceClocks(by: 1_000)
            #expect(throws: SyncError.self) { try laptop.sync() }
            let finished = try laptop.sync(allowMassDelete: true)
            let told = try #require(finished.newIdentity, "the new id is told once a sync finishes")
            #expect(told.new == laptop.id && told.old == copy.id)
            #expect(try laptop.sync().newIdentity == nil, "and only once")
        }
    }

    @Test("status names the copy's new identity as another device, in agreement once synced")
    func statusShowsBothCopies() throws {
        try withBackend(.folder) { fixture in
            let laptop = try fixture.device("laptop")
            try laptop.add("uno")
            try laptop.sync()
            let copy = try fixture.copy(of: laptop, as: "copy")
            try copy.library.setDeviceName("new laptop")
            try fixture.syncRounds([copy, laptop], 3)
            let status = try laptop.engine.status()
            let names = status.devices.filter { $0.replacedBy == nil }.map(\.name).sorted()
            #expect(names == ["laptop", "new laptop"], "\(status.devices)")
            #expect(status.devices.allSatisfy { $0.agrees || $0.replacedBy != nil })
        }
    }
}
