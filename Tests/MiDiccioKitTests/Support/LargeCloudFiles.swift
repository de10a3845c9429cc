import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioFiles
@testable import MiDiccioLibrary
@testable import MiDiccioModel

/// What every back end's tests check of a large download kept on disk
/// (`CloudStorage.readBytes`): the same bytes from a temporary file, a small file still in
/// memory, and a first sync through a snapshot of several megabytes.
enum LargeCloudFiles {
    /// `count` bytes that barely compress, so they travel as they are.
    static func noise(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Writes a 3 MB file and a 5-byte one through `writer`, then reads both through
    /// `reader` (the same storage, or another device's): the large one comes from a file
    /// held open, byte for byte, the small one from memory.
    static func expectLargeOnDiskSmallInMemory(writer: any CloudStorage, reader: any CloudStorage) throws {
        let large = noise(3 << 20)
        try writer.write("snapshots/d/000000000001-ab.snap", large)
        try writer.write("changes/d/000000000002-cd.chg", Data("small".utf8))
        let held = try #require(try reader.readBytes("snapshots/d/000000000001-ab.snap"))
        guard case .file(let file) = held else {
            Issue.record("a 3 MB download was kept in memory")
            return
        }
        #expect(file.size == large.count)
        #expect(try held.wholeData() == large)
        guard case .memory(let small) = try #require(try reader.readBytes("changes/d/000000000002-cd.chg")) else {
            Issue.record("a small file was kept on disk")
            return
        }
        #expect(small == Data("small".utf8))
    }

    /// `data` in a nameless temporary file, held open: bytes as a large snapshot is
    /// handed to a back end to upload.
    static func heldInFile(_ data: Data) throws -> CloudBytes {
        let descriptor = try FileSystem.anonymousFile()
        #expect(FileSystem.writeAll(data, to: descriptor) == nil)
        return .file(OpenedFile(descriptor: descriptor, path: "a test file", size: data.count))
    }

    /// Creates a 3 MB file through `storage` from a file held open, and checks that it
    /// reads back byte for byte and that a second creation at its path is refused.
    static func expectCreatedFromFile(_ storage: any CloudStorage) throws {
        let large = noise(3 << 20)
        try storage.create("snapshots/d/000000000003-ef.snap", bytes: try heldInFile(large))
        #expect(try storage.read("snapshots/d/000000000003-ef.snap") == large)
        #expect(throws: CloudError.self) { try storage.create("snapshots/d/000000000003-ef.snap", bytes: try heldInFile(large)) }
    }

    /// A first sync of a second device, made by `makeSecond` once `first` (of 2,000 noisy
    /// words, a snapshot of several megabytes) has synced: it ends with every word.
    static func expectSecondDeviceTakesNoisySnapshot(_ first: TestDevice, _ makeSecond: () throws -> TestDevice) throws {
        try addNoisyWords(2_000, to: first)
        try first.sync()
        let second = try makeSecond()
        try second.sync()
        #expect(try second.everyWord() == first.everyWord())
        #expect(try second.everyWord().count == 2_000)
    }

    /// Adds `count` words whose meanings barely compress (about a kilobyte each) to
    /// `device`: its snapshot spans several megabytes.
    private static func addNoisyWords(_ count: Int, to device: TestDevice) throws {
        for index in 0..<count {
            try device.add("palabra\(index)", meaning: noise(800).base64EncodedString())
        }
    }
}
