import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Finding 4: purged content must leave the cloud even when purges arrive out of time
/// order, and status tells the truth about it until then.
@Suite("Purges that arrive out of time order")
struct OutOfOrderPurgeTests {
    @Test(
        "a purge made offline, older than one another device already synced, still leaves the cloud, and status says when it has",
        arguments: CloudBackend.available)
    func olderPurgeArrivingLate(backend: CloudBackend) throws {
        try withBackend(backend) { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b"), c = try fixture.device("c")
            let x = try c.add("equis", notes: "qzxpurgedxqzx")
            let y = try a.add("ye", notes: "qzxpurgedyqzx")
            try fixture.syncRounds([a, b, c])
            for device in [a, b, c] { #expect(try device.has(x) && device.has(y)) }

            // C purges X offline; later A purges Y and syncs: A's snapshot still holds X.
            try c.library.delete([x])
            try c.library.purge([x])
            fixture.advanceClocks(by: 60_000)
            try a.library.delete([y])
            try a.library.purge([y])
            try a.sync()
            #expect(fixture.cloudHolds("qzxpurgedxqzx"), "A has not heard of C's purge yet")
            let early = try a.engine.status()
            #expect(!early.purgedContentRemains.isEmpty, "status must not claim the cloud is clean: \(early.purgedContentRemains)")

            try c.sync()
            try fixture.syncRounds([a, b, c], 4)
            #expect(!fixture.cloudHolds("qzxpurgedxqzx"), "X's content left the cloud")
            #expect(!fixture.cloudHolds("qzxpurgedyqzx"), "Y's content left the cloud")
            for device in [a, b, c] {
                #expect(try !device.has(x) && !device.has(y))
                let status = try device.engine.status()
                #expect(status.purgedContentRemains.isEmpty, "\(device.name): \(status.purgedContentRemains)")
            }
        }
    }

    @Test("a purge marker that arrives after a newer one calls for a new snapshot")
    func lateMarkerCallsForSnapshot() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), c = try fixture.device("c")
            let x = try c.add("equis"), y = try a.add("ye")
            try fixture.syncRounds([a, c])
            try c.library.delete([x])
            try c.library.purge([x])
            fixture.advanceClocks(by: 60_000)
            try a.library.delete([y])
            try a.library.purge([y])
            #expect(try a.sync().snapshotWritten, "a purge calls for a snapshot")
            try c.sync()
            fixture.advanceClocks(by: 1_000)
            #expect(try a.sync().snapshotWritten, "C's older marker is new to A, whatever its time")
        }
    }
}
