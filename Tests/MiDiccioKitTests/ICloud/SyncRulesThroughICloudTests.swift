import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// The sync rules of the product notes, tried through iCloud as they are through a
/// folder (Tests/MiDiccioKitTests/Sync): per-field last writer wins, the Trash across
/// devices, the mass-delete guard, a backup restore that reaches other devices, a purge
/// every device honours, and two libraries with words connected to one cloud.
@Suite("The sync rules hold through iCloud", .enabled(if: ICloudTests.shouldRun, ICloudTests.skipReason))
struct SyncRulesThroughICloudTests {
    @Test("edits of different fields on two devices both survive; delete on one and restore on the other reach both")
    func fieldsAndTrash() throws {
        try withICloud("rules-fields") { cloud in
            let a = try cloud.device("a"), b = try cloud.device("b")
            let palabra = try a.add("palabra", meaning: "word")
            let casa = try a.add("casa", meaning: "house")
            try cloud.syncRounds([a, b])
            _ = try a.library.edit(palabra, WordEdit(meaning: "a word"))
            _ = try b.library.edit(palabra, WordEdit(notes: "from b"))
            try cloud.syncRounds([a, b])
            #expect(try a.word(palabra).meaning == "a word" && a.word(palabra).notes == "from b")
            _ = try a.library.delete([casa])
            try cloud.syncRounds([a, b])
            #expect(try b.library.trash().map(\.id) == [casa])
            _ = try b.library.restore([casa])
            try cloud.syncRounds([b, a])
            #expect(try a.library.trash().isEmpty)
            #expect(try a.everyWord() == b.everyWord())
            #expect(try a.pendingCount() == 0 && b.pendingCount() == 0)
        }
    }

    @Test("a sync that would send most of a library to the Trash stops and asks, and goes through when allowed")
    func massDeleteGuard() throws {
        try withICloud("rules-mass-delete") { cloud in
            let a = try cloud.device("a"), b = try cloud.device("b")
            var ids: [WordID] = []
            for index in 0..<30 { ids.append(try a.add("palabra \(index)", meaning: "word \(index)")) }
            try cloud.syncRounds([a, b])
            _ = try a.library.delete(Array(ids[0..<25]))
            try cloud.syncRounds([a], 1)
            #expect(throws: (any Error).self) { try b.sync() }
            #expect(try b.library.list().count == 30)
            _ = try b.sync(allowMassDelete: true)
            #expect(try b.library.list().count == 5)
        }
    }

    @Test("words restored from a backup on one device reach the others, newer than the deletions they undo")
    func restoredBackupReachesOthers() throws {
        try withICloud("rules-restore") { cloud in
            let a = try cloud.device("a"), b = try cloud.device("b")
            let hund = try a.add("hund", meaning: "dog")
            try cloud.syncRounds([a, b])
            let backup = cloud.directory.appendingPathComponent("backup.json").path
            _ = try a.library.exportBackup(to: backup)
            _ = try b.library.delete([hund])
            try cloud.syncRounds([b, a])
            #expect(try a.library.trash().map(\.id) == [hund])
            _ = try a.library.restoreBackup(from: backup, replace: true)
            try cloud.syncRounds([a, b])
            #expect(try b.library.list().map(\.term) == ["hund"])
        }
    }

    @Test("a word purged on one device is gone from every device and from the cloud's files, and an offline edit does not bring it back")
    func purgeEverywhere() throws {
        try withICloud("rules-purge") { cloud in
            let a = try cloud.device("a"), b = try cloud.device("b")
            let secreto = try a.add("secreto", meaning: "very private text")
            _ = try a.add("otro", meaning: "other")
            try cloud.syncRounds([a, b])
            _ = try b.library.edit(secreto, WordEdit(notes: "edited offline"))
            _ = try a.library.delete([secreto])
            _ = try a.library.purge([secreto])
            try cloud.syncRounds([a, b, a, b], 2)
            #expect(try !a.has(secreto) && !b.has(secreto))
            #expect(try b.library.list().map(\.term) == ["otro"])
            let texts = try ICloudTests.files(cloud.tenant).values.map { data in
                String(decoding: (try? BatchCodec.decompress(data)) ?? [UInt8](data), as: UTF8.self)
            }
            #expect(!texts.contains { $0.contains("very private text") })
        }
    }

    @Test("two libraries that both hold words, connected to one iCloud, end with the words of both")
    func connectingMergesBoth() throws {
        try withICloud("rules-connect") { cloud in
            let a = try cloud.device("a"), b = try cloud.device("b")
            _ = try a.add("uno", meaning: "one")
            _ = try b.add("dos", meaning: "two")
            try cloud.syncRounds([a, b])
            #expect(try a.library.list().map(\.term).sorted() == ["dos", "uno"])
            #expect(try a.everyWord() == b.everyWord())
        }
    }
}
