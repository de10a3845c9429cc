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
}
