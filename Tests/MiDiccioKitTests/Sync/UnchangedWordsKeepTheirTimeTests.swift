import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule (product notes, bug 1): unchanged words keep their `updatedAt` through any
/// number of syncs, and a sync with nothing pending uploads nothing.
@Suite("Unchanged words keep their updated time through any number of syncs")
struct UnchangedWordsKeepTheirTimeTests {
    @Test("one hundred syncs of an unchanged library on two devices change no time and write no file")
    func hundredSyncsChangeNothing() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            var ids: [WordID] = []
            for index in 0..<12 { ids.append(try a.add("palabra \(index)", meaning: "word \(index)", tags: ["t\(index % 3)"])) }
            for index in 0..<6 { ids.append(try b.add("otra \(index)", notes: "from b")) }
            try a.library.delete([ids[0]])
            try fixture.syncRounds([a, b])
            try b.library.edit(ids[1], WordEdit(meaning: "edited on b"))
            try b.library.restore([ids[0]])
            try a.library.edit(ids[14], WordEdit(addTags: ["edited-on-a"]))
            // The first round of syncs: every device uploads and sees every other's changes.
            try fixture.syncRounds([a, b])

            let beforeA = try a.everyStoredWord(), beforeB = try b.everyStoredWord()
            #expect(beforeA.map(\.word) == beforeB.map(\.word))
            #expect(beforeA.count == 18)
            let writes = fixture.requests("write")
            let digestA = try a.library.libraryDigest()

            for round in 0..<100 {
                fixture.advanceClocks(by: 60_000)
                let reportA = try a.sync()
                fixture.advanceClocks(by: 1_234)
                let reportB = try b.sync()
                #expect(reportA.pushed == 0 && reportB.pushed == 0, "round \(round)")
                #expect(reportA.pulled == 0 && reportB.pulled == 0, "round \(round)")
                #expect(reportA.filesWritten == 0 && reportB.filesWritten == 0, "round \(round)")
            }

            #expect(fixture.requests("write") == writes, "no file written by 200 syncs with nothing to do")
            #expect(try a.everyStoredWord() == beforeA, "no time, value, writer or pending flag changed on a")
            #expect(try b.everyStoredWord() == beforeB, "no time, value, writer or pending flag changed on b")
            #expect(try a.library.libraryDigest() == digestA)
            #expect(try a.library.libraryDigest() == b.library.libraryDigest())
        }
    }

    @Test("words nobody edits keep their updated time through snapshots, a full upload and compaction on three devices")
    func untouchedWordsThroughSnapshots() throws {
        try withSyncFixture { fixture in
            let devices = [try fixture.device("a"), try fixture.device("b"), try fixture.device("c")]
            for device in devices { device.engine.snapshotInterval = 2 }
            var untouched: [WordID] = []
            for (index, device) in devices.enumerated() {
                for word in 0..<4 { untouched.append(try device.add("quieta \(index).\(word)")) }
            }
            let busy = try devices[0].add("ocupada")
            try fixture.syncRounds(devices)
            let times = try untouched.map { try devices[0].stored($0) }

            for round in 0..<12 {
                let device = devices[round % 3]
                try device.library.edit(busy, WordEdit(notes: "round \(round)"))
                if round == 6 { try device.library.writing { try device.library.setInfo("sync.fullUpload", "1") } }
                try fixture.syncRounds(devices, 1)
            }
            try fixture.syncRounds(devices)
            #expect(fixture.storage.files.keys.contains { $0.hasPrefix("snapshots/") }, "snapshots were written")
            for device in devices {
                #expect(try untouched.map { try device.stored($0).word } == times.map(\.word), "\(device.name)")
                #expect(try untouched.map { try device.stored($0).times } == times.map(\.times), "\(device.name)")
                #expect(try device.word(busy).notes == "round 11")
            }
        }
    }

    @Test("syncing a word back and forth never moves its updated time")
    func roundTripKeepsTime() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let id = try a.add("luz", meaning: "light")
            let created = try a.word(id).updatedAt
            for _ in 0..<10 { try fixture.syncRounds([a, b], 1) }
            #expect(try a.word(id).updatedAt == created)
            #expect(try b.word(id).updatedAt == created)
            #expect(try b.stored(id).times == FieldTimes(all: created))
        }
    }
}
