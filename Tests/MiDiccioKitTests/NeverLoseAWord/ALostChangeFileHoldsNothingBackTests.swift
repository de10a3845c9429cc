import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// A cloud client lost one of a device's change files (or truncated it), and that device
/// was then retired. Its later files were whole in the cloud, but readers stopped at the
/// gap: every other device, and every new one, went on without the words of those files.
@Suite("A lost or damaged change file holds back none of the files after it")
struct ALostChangeFileHoldsNothingBackTests {
    /// The path of `device`'s change file number `seq` in `storage`.
    private func changeFile(_ seq: Int64, of device: TestDevice, in storage: MemoryStorage) throws -> String {
        let prefix = "changes/\(device.id)/" + String(format: "%012lld", seq)
        return try #require(storage.files.keys.first { $0.hasPrefix(prefix) }, "no change file \(seq)")
    }

    @Test("a missing file: the words of the later files arrive, and the missing file's once it is delivered", arguments: [false, true])
    func missingThenDelivered(damaged: Bool) throws {
        try withSyncFixture { fixture in
            let writer = try fixture.device("retired")
            let reader = try fixture.device("reader")
            let uno = try writer.add("uno")
            try fixture.syncRounds([writer, reader])
            let dos = try writer.add("dos")
            _ = try writer.sync()
            let tres = try writer.add("tres")
            _ = try writer.sync()
            let cuatro = try writer.add("cuatro")
            _ = try writer.sync()

            // The cloud client loses (or truncates) the file holding "dos"; the writer is retired.
            let lost = try changeFile(2, of: writer, in: fixture.storage)
            let bytes = try #require(fixture.storage.files[lost])
            if damaged {
                fixture.storage.plant(lost, bytes.prefix(20))
            } else {
                _ = try fixture.storage.delete(lost)
            }

            let report = try reader.sync()
            #expect(try reader.has(uno) && reader.has(tres) && reader.has(cuatro), "the files after the gap are read")
            #expect(try !reader.has(dos))
            #expect(report.skippedFiles.isEmpty == !damaged, "a damaged file is reported, as before")
            let newcomer = try fixture.device("newcomer")
            _ = try newcomer.sync()
            #expect(try newcomer.has(tres) && newcomer.has(cuatro))

            // The client delivers the file after all: its words arrive, and nothing is lost.
            fixture.storage.plant(lost, bytes)
            _ = try reader.sync()
            _ = try newcomer.sync()
            for device in [reader, newcomer] {
                #expect(try [uno, dos, tres, cuatro].allSatisfy { try device.has($0) })
            }
        }
    }

    @Test("the writer still syncing: the reader asks in its record, and the writer's next sync covers the lost file with a snapshot")
    func writerCoversTheLostFile() throws {
        try withSyncFixture { fixture in
            let writer = try fixture.device("writer")
            let reader = try fixture.device("reader")
            _ = try writer.add("uno")
            try fixture.syncRounds([writer, reader])
            let dos = try writer.add("dos")
            _ = try writer.sync()
            let tres = try writer.add("tres")
            _ = try writer.sync()
            _ = try fixture.storage.delete(try changeFile(2, of: writer, in: fixture.storage))

            _ = try reader.sync()
            #expect(try reader.has(tres) && !reader.has(dos))
            let recordBytes = try #require(fixture.storage.files[CloudLayout.devicePath(reader.id)])
            let asking = try #require(DeviceRecord.decode(recordBytes))
            #expect(asking.wanted[writer.id] == 2, "the reader names the number it is held at")

            #expect(try reader.sync().unreadFrom == ["writer"], "the reader's sync names the device it waits for")
            let answer = try writer.sync()
            #expect(answer.snapshotWritten, "the writer answers with a snapshot")
            _ = try reader.sync()
            #expect(try reader.has(dos), "the lost file's word arrives through the snapshot")
            let again = try writer.sync()
            #expect(!again.snapshotWritten, "a want is answered once")
        }
    }

    @Test("a damaged snapshot: a new device asks, the writer writes another, and the new device gets every word")
    func damagedSnapshotReplaced() throws {
        try withSyncFixture { fixture in
            let writer = try fixture.device("writer")
            writer.tune = { $0.snapshotInterval = 4 }
            let words = try (0..<6).map { index in
                let word = try writer.add("palabra\(index)")
                _ = try writer.sync()
                return word
            }
            let snapshot = try #require(fixture.storage.files.keys.first { $0.hasPrefix("snapshots/\(writer.id)/") })
            fixture.storage.plant(snapshot, Data(fixture.storage.files[snapshot]!.prefix(100)))

            let newcomer = try fixture.device("newcomer")
            let first = try newcomer.sync()
            #expect(!first.skippedFiles.isEmpty, "the damaged snapshot is reported")
            _ = try writer.sync()
            _ = try newcomer.sync()
            #expect(try words.allSatisfy { try newcomer.has($0) })
        }
    }

    @Test("a word edited in a later file keeps its newest version when the earlier file arrives late")
    func newestWinsWhateverTheOrder() throws {
        try withSyncFixture { fixture in
            let writer = try fixture.device("writer")
            let reader = try fixture.device("reader")
            let word = try writer.add("casa", meaning: "first")
            try fixture.syncRounds([writer, reader])
            try writer.library.edit(word, WordEdit(meaning: "second"))
            _ = try writer.sync()
            fixture.advanceClocks(by: 1_000)
            try writer.library.edit(word, WordEdit(meaning: "third"))
            _ = try writer.sync()

            let late = try changeFile(2, of: writer, in: fixture.storage)
            let bytes = try #require(fixture.storage.files[late])
            _ = try fixture.storage.delete(late)
            _ = try reader.sync()
            #expect(try reader.word(word).meaning == "third")
            fixture.storage.plant(late, bytes)
            _ = try reader.sync()
            #expect(try reader.word(word).meaning == "third", "the older edit, read last, does not win")
        }
    }

    /// Devices that share a name are told apart by the start of their ids (round 28A #3).
    @Test("a device waited for that shares its name with another is named with the start of its id")
    func sameNamesToldApart() throws {
        try withSyncFixture { fixture in
            let writer = try fixture.device("laptop")
            let copy = try fixture.device("copy")
            try copy.library.setDeviceName("laptop")
            let reader = try fixture.device("reader")
            _ = try writer.add("uno")
            try fixture.syncRounds([writer, copy, reader])
            _ = try writer.add("dos")
            _ = try writer.sync()
            _ = try writer.add("tres")
            _ = try writer.sync()
            _ = try fixture.storage.delete(try changeFile(2, of: writer, in: fixture.storage))
            let report = try reader.sync()
            #expect(report.unreadFrom == ["laptop (\(writer.id.prefix(8)))"], "\(report.unreadFrom)")
        }
    }
}
