import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Round 23B #4: two copies of one library file carry one device id until a sync notices,
/// and an answer is known by its word, time, device, grade and seconds. Two copies that
/// answered a word alike in one millisecond made one event, and one answer was lost on
/// every device.
@Suite("Two copies of a library that answer a word alike keep both answers")
struct TwoCopiesAnsweringAlikeKeepBothAnswersTests {
    /// How many answers `device` holds for `id`.
    private func answers(_ device: TestDevice, _ id: WordID) throws -> Int {
        try device.library.reviewEvents(of: id).count
    }

    /// A laptop and a phone in sync with one word, then a copy of the laptop's file (one
    /// device id, one clock reading): the laptop answers "good" in 4 s, the copy "good" in 9 s,
    /// in the same millisecond. The devices, the word and the two answers.
    private func twoCopiesAnswerAlike(
        _ fixture: CloudBackendFixture
    ) throws -> (laptop: TestDevice, newLaptop: TestDevice, phone: TestDevice, id: WordID, given: [ReviewEvent]) {
        let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
        let id = try laptop.add("ojo", meaning: "eye")
        try fixture.syncRounds([laptop, phone])
        let newLaptop = try fixture.copy(of: laptop, as: "new laptop")
        newLaptop.clock.set(laptop.clock.now())
        let first = try laptop.library.answer(id, grade: .good, seconds: 4).event
        let second = try newLaptop.library.answer(id, grade: .good, seconds: 9).event
        return (laptop, newLaptop, phone, id, [first, second])
    }

    @Test("rule: answers alike to one word in one millisecond under one device id are two when their seconds differ")
    func sameMillisecondOtherSeconds() throws {
        try withBackend(.folder) { fixture in
            let (laptop, newLaptop, phone, id, given) = try twoCopiesAnswerAlike(fixture)
            let (first, second) = (given[0], given[1])
            #expect(first.time == second.time && first.device == second.device, "the copies stamped one millisecond, one id")
            try fixture.syncRounds([laptop, newLaptop, phone], 3)
            for device in [laptop, newLaptop, phone] {
                #expect(try answers(device, id) == 2, "\(device.name)")
            }
            #expect(try laptop.library.studySchedule(of: id) == phone.library.studySchedule(of: id))
            #expect(try newLaptop.library.studySchedule(of: id) == phone.library.studySchedule(of: id))
        }
    }

    /// Word ids (and so the spread of stamps) from a seeded sequence: the same on every
    /// run, as each copy's own random sequence differs from the other's.
    private func seededIDs(_ seed: UInt64) -> () -> WordID {
        var generator = SeededGenerator(seed: seed)
        return { WordID.random(using: &generator) }
    }

    /// Syncs `devices` in turn, `rounds` times, every clock a second on before each sync.
    private func syncRounds(_ devices: [TestDevice], _ rounds: Int) throws {
        for _ in 0..<rounds {
            for device in devices {
                for each in devices { each.clock.advance(by: 1_000) }
                try device.sync()
            }
        }
    }

    @Test("after an answer from a clock ahead, two copies' equal answers are stamped apart and both count")
    func stampedApartAfterAClockAhead() throws {
        try withBackend(.folder) { fixture in
            let laptop = try TestDevice(
                name: "laptop", path: fixture.file("laptop.sqlite"), storage: fixture.storage(),
                clock: ManualClock(start: CloudBackendFixture.start), makeID: seededIDs(1))
            let phone = try TestDevice(
                name: "phone", path: fixture.file("phone.sqlite"), storage: fixture.storage(),
                clock: ManualClock(start: Timestamp(milliseconds: CloudBackendFixture.start.milliseconds + 5 * 3_600_000)))
            let id = try laptop.add("ojo", meaning: "eye")
            try syncRounds([laptop, phone], 2)
            let ahead = try phone.library.answer(id, grade: .good).event
            try syncRounds([phone, laptop], 1)
            try laptop.copyLibraryFile(to: fixture.file("new.sqlite"))
            let newLaptop = try TestDevice(
                name: "new laptop", path: fixture.file("new.sqlite"), storage: fixture.storage(),
                clock: ManualClock(start: laptop.clock.now()), makeID: seededIDs(2))
            // Each stamps after the phone's answer, hours ahead of its own clock, with the
            // same grade and seconds: only the stamp can tell them apart.
            let first = try laptop.library.answer(id, grade: .good, seconds: 5).event
            let second = try newLaptop.library.answer(id, grade: .good, seconds: 5).event
            for answer in [first, second] {
                #expect(answer.time > ahead.time && answer.time.milliseconds <= ahead.time.milliseconds + 1_000)
            }
            #expect(first.time != second.time, "two copies stamp an answer after a newer one apart")
            #expect(first.device == second.device)
            try syncRounds([laptop, newLaptop, phone], 3)
            for device in [laptop, newLaptop, phone] {
                #expect(try answers(device, id) == 3, "\(device.name)")
            }
        }
    }

    @Test("after the update, a device that kept one of two answers alike but for their seconds reads the files again and gets both")
    func readAgainAfterTheUpdate() throws {
        try withBackend(.folder) { fixture in
            let (laptop, newLaptop, phone, id, _) = try twoCopiesAnswerAlike(fixture)
            try fixture.syncRounds([laptop, newLaptop, phone], 2)
            #expect(try answers(phone, id) == 2)
            // The phone as an earlier MiDiccio left it: one of the two (its key had no seconds).
            try phone.library.writing { try phone.library.database.run("DELETE FROM reviews WHERE seconds = 9") }
            try fixture.syncRounds([phone], 1)
            #expect(try answers(phone, id) == 1, "a sync alone does not read the files it has read")
            // The update asks for every file to be read again once (round 25A #2).
            try phone.library.writing { try phone.library.setInfo(Migrations.readAgainKey, "1") }
            try fixture.syncRounds([phone], 1)
            #expect(try answers(phone, id) == 2)
            #expect(try phone.library.info(Migrations.readAgainKey) == nil, "once")
        }
    }

    @Test("an answer recorded as taking more than a day is one event whether a sync or a backup brings it")
    func longAnswerIsOneEventEveryWay() throws {
        try withBackend(.folder) { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
            let id = try laptop.add("ojo", meaning: "eye")
            try fixture.syncRounds([laptop, phone])
            // As an older MiDiccio recorded it: 30 hours.
            let old = ReviewEvent(wordID: id, time: laptop.clock.now(), grade: .hard, device: laptop.id, seconds: 0)
            try laptop.library.writing {
                try laptop.library.insertReviewEvents([old], pending: true)
                try laptop.library.database.run("UPDATE reviews SET seconds = 108000")
            }
            try fixture.syncRounds([laptop, phone])
            #expect(try answers(phone, id) == 1)
            #expect(try phone.library.reviewEvents(of: id).first?.seconds == ReviewEvent.longestSeconds)
            // The laptop's backup holds it too (read as a day); restored on the phone, it
            // is the answer the phone has.
            let backup = fixture.file("laptop.json")
            try laptop.library.exportBackup(to: backup)
            _ = try phone.library.restoreBackup(from: backup)
            #expect(try answers(phone, id) == 1)
        }
    }
}
