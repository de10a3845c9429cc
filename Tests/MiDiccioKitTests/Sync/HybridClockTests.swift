import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: a local edit gets the time max(now, newest time already known for that word
/// + 1 ms), so an edit made after seeing another device's edit is always newer, even
/// when this device's clock is behind.
@Suite("An edit made after seeing another device's edit is newer, even on a slow clock")
struct HybridClockTests {
    @Test("a device whose clock is a day behind edits a word it has just pulled, and its edit wins everywhere")
    func slowClockEditWins() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            let b = try fixture.device("slow", clockOffset: -SyncFixture.day)
            let id = try a.add("perro", meaning: "dog")
            try a.sync()
            a.clock.advance(by: 5_000)
            let aEdit = try a.library.edit(id, WordEdit(meaning: "dog (edited on a)")).updatedAt
            try a.sync()

            try b.sync()
            #expect(try b.word(id).meaning == "dog (edited on a)")
            #expect(b.clock.now() < aEdit, "the slow device's clock is behind the edit it pulled")
            let bEdit = try b.library.edit(id, WordEdit(meaning: "dog (edited on the slow device)"))
            #expect(bEdit.updatedAt == aEdit.next, "max(now, newest known + 1 ms)")
            #expect(try b.stored(id).times.meaning == aEdit.next)

            try b.sync()
            try a.sync()
            #expect(try a.word(id).meaning == "dog (edited on the slow device)")
            #expect(try b.word(id).meaning == "dog (edited on the slow device)")
            #expect(try a.word(id) == b.word(id))
        }
    }

    @Test("a device whose clock is ahead keeps its own time for an edit")
    func fastClockUsesNow() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            let b = try fixture.device("fast", clockOffset: SyncFixture.day)
            let id = try a.add("gato", meaning: "cat")
            try a.sync()
            try b.sync()
            let edit = try b.library.edit(id, WordEdit(meaning: "cat!"))
            #expect(edit.updatedAt == b.clock.now())
        }
    }

    @Test("restoring from the Trash on a slow device, after another device deleted the word, still wins")
    func slowClockRestoreWins() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            let b = try fixture.device("slow", clockOffset: -SyncFixture.day)
            let id = try a.add("pez", meaning: "fish")
            try a.sync()
            try b.sync()
            a.clock.advance(by: 1_000)
            try a.library.delete([id])
            try a.sync()
            try b.sync()
            #expect(try b.word(id).isDeleted)

            try b.library.restore([id])
            try b.sync()
            try a.sync()
            #expect(try a.word(id).isDeleted == false)
            #expect(try b.word(id).isDeleted == false)
        }
    }
}
