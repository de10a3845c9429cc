import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Rule: times are stamped by each device's own clock, so while two clocks disagree an
/// edit made where the clock is ahead wins over a later edit made elsewhere. A device
/// whose record was written further in this device's future than ordinary drift (five
/// minutes, where Anki refuses to sync) is named, with how far, by `sync` and `status`.
/// Sync goes on: refusing would keep words apart instead.
@Suite("A clock ahead on another device is told")
struct AClockAheadIsToldTests {
    static let hour: Int64 = 3_600_000

    @Test("a sync names the device whose clock is an hour ahead, and how far, before it sent any word")
    func syncNamesTheDevice() throws {
        try withSyncFixture { fixture in
            let here = try fixture.device("here")
            let fast = try fixture.device("fast phone", clockOffset: Self.hour)
            try fast.sync()
            try here.add("reloj", meaning: "clock")
            let report = try here.sync()
            let clock = try #require(report.clockAhead)
            #expect(clock.device == "fast phone")
            #expect(clock.deviceID == fast.id)
            #expect(clock.amount == "about 60 minutes")
            #expect(clock.message.contains("fast phone's clock is about 60 minutes ahead of this device's"))
            #expect(try fast.sync().clockAhead == nil, "a clock behind is not ahead")
            #expect(try fast.library.list().map(\.term) == ["reloj"])
        }
    }

    @Test("a device whose clock was 75 days ahead and is set right is no longer named once it syncs")
    func clockSetRightIsNoLongerNamed() throws {
        try withSyncFixture { fixture in
            let here = try fixture.device("here")
            let fast = try fixture.device("fast phone", clockOffset: 75 * SyncFixture.day)
            try fast.sync()
            #expect(try here.sync().clockAhead?.device == "fast phone")
            fast.clock.advance(by: -75 * SyncFixture.day)
            try fast.sync()
            #expect(try here.sync().clockAhead == nil, "its record is written again, by the clock set right")
        }
    }

    @Test("a device with a right clock that edits a word stamped ahead is not named")
    func editAfterAWordStampedAheadIsNotNamed() throws {
        try withSyncFixture { fixture in
            let here = try fixture.device("here")
            let right = try fixture.device("right clock")
            let fast = try fixture.device("fast phone", clockOffset: 3 * Self.hour)
            let id = try fast.add("reloj", meaning: "clock")
            // Its clock is set right before it syncs: its record says nothing is wrong.
            fast.clock.advance(by: -3 * Self.hour)
            try fast.sync()
            try right.sync()
            // An edit is stamped after the newest time known for the word: three hours
            // ahead of every clock, though this device's clock is right.
            let edit = try right.library.edit(id, WordEdit(meaning: "a clock"))
            #expect(edit.updatedAt.milliseconds > right.clock.now().milliseconds + 2 * Self.hour)
            try right.sync()
            #expect(try here.sync().clockAhead == nil, "no record is ahead: no device is named")
            #expect(try here.word(id).meaning == "a clock", "the sync took the edit in")
        }
    }

    @Test("status names the device whose record is ahead; this device and a minute of drift are not named")
    func statusNamesTheDevice() throws {
        try withSyncFixture { fixture in
            let here = try fixture.device("here")
            let fast = try fixture.device("fast phone", clockOffset: 2 * SyncFixture.day)
            let drifting = try fixture.device("drifting", clockOffset: 60_000)
            try fast.add("reloj")
            try drifting.add("hora")
            try fast.sync()
            try drifting.sync()
            let devices = try here.engine.status().devices
            #expect(devices.first { $0.name == "fast phone" }?.clockAhead?.amount == "about 2 days")
            #expect(devices.first { $0.name == "drifting" }?.clockAhead == nil)
            #expect(devices.first { $0.isThisDevice }?.clockAhead == nil)
        }
    }

    @Test("devices within five minutes of each other sync with nothing said")
    func driftSaysNothing() throws {
        try withSyncFixture { fixture in
            let here = try fixture.device("here", clockOffset: -4 * 60_000)
            let other = try fixture.device("other")
            try other.add("minuto")
            try other.sync()
            try here.add("segundo")
            #expect(try here.sync().clockAhead == nil)
            #expect(try other.sync().clockAhead == nil, "a clock behind is not ahead")
        }
    }

    @Test("how far, for people")
    func amounts() {
        func amount(_ milliseconds: Int64) -> String {
            ClockAhead(deviceID: "d", device: "d", milliseconds: milliseconds).amount
        }
        #expect(amount(5 * 60_000 + 1) == "about 5 minutes")
        #expect(amount(62 * 60_000) == "about 62 minutes")
        #expect(amount(119 * 60_000) == "about 119 minutes")
        #expect(amount(150 * 60_000) == "about 3 hours")
        #expect(amount(400 * SyncFixture.day) == "about 400 days")
    }
}
