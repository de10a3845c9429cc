import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// "café" typed with é as one character, and pasted as e and an accent (as macOS often
/// writes it), are one text to Swift's `==`. The merge compared tags that way: a tag taken
/// off on the phone and put back in the other form stayed in one form on the laptop and
/// in the other on the phone for good, with the devices "in agreement" and their backups
/// and exports different (found by the exploratory helper, round 13A). Values now compare
/// byte for byte, so the newer form reaches every device, and at one millisecond every
/// device keeps the same one.
@Suite("A text written again in another Unicode form reaches every device")
struct ATextWrittenAgainInAnotherFormReachesEveryDeviceTests {
    static let composed = "caf\u{E9}"
    static let decomposed = "cafe\u{301}"

    private func bytes(_ texts: [String]) -> [[UInt8]] { texts.map { Array($0.utf8) } }

    @Test("a tag taken off and put back in the other form: that form on every device")
    func tagPutBackInTheOtherForm() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
            let id = try laptop.library.add(WordContent(term: "luz", meaning: "light", tags: [Self.composed])).word.id
            try fixture.syncRounds([laptop, phone])
            phone.clock.advance(by: 1_000)
            try phone.library.edit(id, WordEdit(removeTags: [Self.composed]))
            phone.clock.advance(by: 1_000)
            try phone.library.edit(id, WordEdit(addTags: [Self.decomposed]))
            try fixture.syncRounds([phone, laptop])
            try fixture.syncRounds([phone, laptop])
            for device in [laptop, phone] {
                #expect(bytes(try device.word(id).tags) == bytes([Self.decomposed]), "\(device.name)")
            }
            #expect(try laptop.stored(id).tagClock == phone.stored(id).tagClock)
        }
    }

    @Test("a list written again with one tag in the other form: that form on every device")
    func listWrittenAgain() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
            let id = try laptop.library.add(WordContent(term: "luz", tags: ["A1", Self.composed])).word.id
            try fixture.syncRounds([laptop, phone])
            phone.clock.advance(by: 1_000)
            try phone.library.edit(id, WordEdit(tags: ["A1", Self.decomposed]))
            #expect(bytes(try phone.word(id).tags) == bytes(["A1", Self.decomposed]), "the edit is kept here")
            try fixture.syncRounds([phone, laptop])
            for device in [laptop, phone] {
                #expect(bytes(try device.word(id).tags) == bytes(["A1", Self.decomposed]), "\(device.name)")
            }
        }
    }

    @Test("a meaning written again in the other form reaches the other device")
    func meaningWrittenAgain() throws {
        try withSyncFixture { fixture in
            let laptop = try fixture.device("laptop"), phone = try fixture.device("phone")
            let id = try laptop.library.add(WordContent(term: "luz", meaning: "un " + Self.composed)).word.id
            try fixture.syncRounds([laptop, phone])
            phone.clock.advance(by: 1_000)
            try phone.library.edit(id, WordEdit(meaning: "un " + Self.decomposed))
            try fixture.syncRounds([phone, laptop])
            #expect(Array(try laptop.word(id).meaning.utf8) == Array(("un " + Self.decomposed).utf8))
        }
    }

    @Test("the two forms written at one millisecond: every device keeps the same one")
    func sameMillisecond() {
        let time = Timestamp(milliseconds: 1_000)
        let one = TagClock.Side(tags: [Self.composed], clock: .implied, time: time)
        let other = TagClock.Side(tags: [Self.decomposed], clock: .implied, time: time)
        let merged = TagClock.merge(one, other, time: time)
        let reversed = TagClock.merge(other, one, time: time)
        #expect(bytes(merged.tags) == bytes(reversed.tags))
        #expect(merged.clock == reversed.clock)
        #expect(SameBytes.ordersAfter(Self.composed, Self.decomposed) != SameBytes.ordersAfter(Self.decomposed, Self.composed))
        #expect(!SameBytes.ordersAfter(["a"], ["a"]) && SameBytes.ordersAfter(["a", "b"], ["a"]))
    }
}
