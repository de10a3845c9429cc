import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule (product notes, v1.4.1): deletion only sets a flag on every device; a word
/// deleted on any device can be restored from another device's Trash, and the restore
/// reaches every device.
@Suite("A word deleted on one device can be restored from another device's Trash")
struct TrashAcrossDevicesTests {
    @Test("a word deleted on one device can be restored from another device's Trash, and the restore reaches the first device")
    func restoreFromOtherDevicesTrash() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("ventana", meaning: "window", notes: "keep these notes", tags: ["casa"])
            let other = try a.add("pared", meaning: "wall")
            try fixture.syncRounds([a, b])

            try a.library.delete([id])
            try fixture.syncRounds([a, b])
            #expect(try b.library.trash().map(\.id) == [id], "the deleted word is in b's Trash")
            #expect(try b.library.list().map(\.id) == [other])
            #expect(try b.word(id).notes == "keep these notes", "deletion keeps the content")

            try b.library.restore([id])
            try fixture.syncRounds([a, b])
            #expect(try a.library.trash().isEmpty)
            #expect(Set(try a.library.list().map(\.id)) == [id, other])
            let restored = try a.word(id)
            #expect(restored.content == WordContent(term: "ventana", meaning: "window", notes: "keep these notes", tags: ["casa"]))
            #expect(try a.word(id) == b.word(id))
        }
    }

    @Test("a word deleted on another device is kept with its flag, never removed")
    func deletedWordIsKept() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("techo")
            try fixture.syncRounds([a, b])
            try a.library.delete([id])
            try fixture.syncRounds([a, b])
            #expect(try b.has(id))
            #expect(try b.word(id).isDeleted)
            #expect(try b.library.counts() == (words: 0, trash: 1))
        }
    }

    @Test("deleted, restored and deleted again on different devices: the last action wins everywhere")
    func lastTrashActionWins() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b"), c = try fixture.device("c")
            let id = try a.add("suelo")
            try fixture.syncRounds([a, b, c])
            try a.library.delete([id])
            try fixture.syncRounds([a, b, c])
            try c.library.restore([id])
            try fixture.syncRounds([a, b, c])
            try b.library.delete([id])
            try fixture.syncRounds([a, b, c])
            for device in [a, b, c] { #expect(try device.word(id).isDeleted, "\(device.name)") }
            try a.library.restore([id])
            try fixture.syncRounds([a, b, c])
            for device in [a, b, c] { #expect(try device.word(id).isDeleted == false, "\(device.name)") }
        }
    }
}
