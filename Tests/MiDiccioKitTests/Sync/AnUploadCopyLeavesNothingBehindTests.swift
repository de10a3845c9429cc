import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioFiles

/// A snapshot held in a nameless file goes up from a named copy (an upload from a file
/// carries its length): the copy holds the same bytes, goes when the upload ends, and what
/// a crash during an upload left is removed by a later upload once it is a day old.
@Suite("An upload's named copy leaves nothing behind")
struct AnUploadCopyLeavesNothingBehindTests {
    /// `bytes` in a nameless temporary file, held open.
    private static func heldInFile(_ bytes: Data) throws -> OpenedFile {
        let descriptor = try FileSystem.anonymousFile()
        #expect(FileSystem.writeAll(bytes, to: descriptor) == nil)
        return OpenedFile(descriptor: descriptor, path: "a test file", size: bytes.count)
    }

    @Test("the copy has the file's bytes, across several megabytes, and is gone once freed")
    func sameBytesThenGone() throws {
        try withTemporaryDirectory { directory in
            var generator = SystemRandomNumberGenerator()
            let bytes = Data((0..<(2 << 20) + 123).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let file = try Self.heldInFile(bytes)
            var copy: NamedTemporaryFile? = try file.namedCopy(in: directory.path)
            let path = try #require(copy?.path)
            #expect(path.hasPrefix(directory.path + "/.midiccio-upload-"))
            #expect(FileManager.default.contents(atPath: path) == bytes)
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600)
            copy = nil
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test("a leftover of a crashed upload is removed by the next copy once a day old; a newer one and other files stay")
    func leftoversRemoved() throws {
        try withTemporaryDirectory { directory in
            let folder = directory.path
            func make(_ name: String, hoursOld: Double) throws -> String {
                let path = folder + "/" + name
                #expect(FileManager.default.createFile(atPath: path, contents: Data("left".utf8)))
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: -hoursOld * 3600)], ofItemAtPath: path)
                return path
            }
            let old = try make(".midiccio-upload-aaaaaa", hoursOld: 25)
            let recent = try make(".midiccio-upload-bbbbbb", hoursOld: 23)
            let other = try make("notes.txt", hoursOld: 48)
            let anonymous = try make(".midiccio-cccccc", hoursOld: 48)
            let copy = try Self.heldInFile(Data("snapshot".utf8)).namedCopy(in: folder)
            #expect(!FileManager.default.fileExists(atPath: old))
            for kept in [recent, other, anonymous, copy.path] { #expect(FileManager.default.fileExists(atPath: kept)) }
        }
    }
}
