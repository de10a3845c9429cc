import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel

@Suite("Broken and hostile Anki packages")
struct HostileAnkiPackageTests {
    @Test(
        "a broken or hostile package is refused with the file and what is wrong, and the library is unchanged",
        arguments: [
            ("truncated.apkg", "not a zip file, or a truncated one"),
            ("no-collection.apkg", "holds no Anki collection"),
            ("fake-collection.apkg", "collection.anki2 inside the package is not an SQLite database"),
            ("not-anki.apkg", "an SQLite file but not an Anki collection (it has no col table)"),
            ("broken-utf8.apkg", "broken UTF-8 in the fields of note"),
            ("deflate-bomb.apkg", "unpacks to more than 200 times its packed size"),
            ("lying-size.apkg", "unpacks to more than 200 times its packed size"),
            ("zstd-bomb.colpkg", "unpacks to more than 200 times its packed size"),
        ])
    func refused(fixture: String, problem: String) throws {
        try withTemporaryLibrary { temporary in
            _ = try temporary.library.add(WordContent(term: "hund", meaning: "dog"))
            let before = try temporary.library.snapshot()
            #expect {
                try temporary.library.importSheet(from: ankiFixture(fixture))
            } throws: { error in
                let text = String(describing: error)
                return text.hasPrefix(ankiFixture(fixture) + ": ") && text.contains(problem) && text.hasSuffix("nothing was imported")
            }
            #expect(try temporary.library.snapshot() == before)
        }
    }

    @Test("a collection bigger than the size limit is refused while it unpacks, whatever the zip says")
    func sizeLimit() throws {
        var limits = AnkiPackage.Limits()
        limits.collectionBytes = 1024 * 1024
        limits.ratio = 1_000_000
        #expect {
            try AnkiPackage.read(from: ankiFixture("zstd-bomb.colpkg"), limits: limits)
        } throws: { error in
            String(describing: error).contains("unpacks to more than 1 MiB, the most MiDiccio reads")
        }
        #expect {
            try AnkiPackage.read(from: ankiFixture("lying-size.apkg"), limits: limits)
        } throws: { error in
            String(describing: error).contains("unpacks to more than 1 MiB")
        }
    }

    @Test("a small collection may pack very well: the ratio counts only past the free allowance")
    func smallCollectionsAnyRatio() throws {
        var limits = AnkiPackage.Limits()
        limits.ratio = 1
        #expect(try AnkiPackage.read(from: ankiFixture("words.colpkg"), limits: limits).notes.count == 3)
    }

    @Test("the temporary copy of the collection is removed, after a success and after a refusal")
    func noTemporaryCopyLeft() throws {
        try withTemporaryDirectory { directory in
            _ = try AnkiPackage.read(from: ankiFixture("words.colpkg"), temporaryFolder: directory.path)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            #expect(throws: AnkiPackageError.self) {
                try AnkiPackage.read(from: ankiFixture("not-anki.apkg"), temporaryFolder: directory.path)
            }
            #expect(throws: AnkiPackageError.self) {
                try AnkiPackage.read(from: ankiFixture("deflate-bomb.apkg"), temporaryFolder: directory.path)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }

    @Test(
        "a package whose collection fails its CRC, or ends before its deflate data does, is refused as damaged",
        arguments: [
            (ZipHeaderField.crc, "collection.anki2 inside the package is damaged (its CRC does not match)"),
            (ZipHeaderField.compressedSize, "collection.anki2 inside the package is damaged (its deflate data is cut short)"),
        ])
    func damagedEntry(field: ZipHeaderField, problem: String) throws {
        try withTemporaryDirectory { directory in
            let package = try Data(contentsOf: URL(fileURLWithPath: ankiFixture("not-anki.apkg")))
            let damaged = directory.appendingPathComponent("damaged.apkg")
            try changing(field, of: "collection.anki2", in: package) { $0 -= 1 }.write(to: damaged)
            #expect {
                try AnkiPackage.read(from: damaged.path, temporaryFolder: directory.path)
            } throws: { error in
                String(describing: error) == problem
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["damaged.apkg"])
        }
    }

    @Test("an empty zip is a zip without a collection, not a broken file")
    func emptyZip() throws {
        try withTemporaryDirectory { directory in
            // An empty zip is only its end record: signature, zero counts and offsets.
            let empty = directory.appendingPathComponent("empty.apkg")
            try Data([0x50, 0x4B, 0x05, 0x06] + [UInt8](repeating: 0, count: 18)).write(to: empty)
            #expect {
                try AnkiPackage.read(from: empty.path)
            } throws: { error in
                String(describing: error).hasPrefix("the zip holds no Anki collection")
            }
        }
    }
}

/// A four-byte field of a zip entry's headers.
enum ZipHeaderField {
    case crc, compressedSize

    /// Where it is past the start of a local file header and of a central directory one.
    var offsets: (local: Int, central: Int) {
        switch self {
        case .crc: (14, 16)
        case .compressedSize: (18, 20)
        }
    }
}

/// `zip` with `field` of the entry `name` changed alike in its local and central headers,
/// so that the zip stays consistent and only the entry's data disagrees with it.
private func changing(_ field: ZipHeaderField, of name: String, in zip: Data, _ change: (inout UInt32) -> Void) -> Data {
    var bytes = [UInt8](zip)
    let headers: [(signature: [UInt8], nameLength: Int, name: Int, field: Int)] = [
        ([0x50, 0x4B, 0x03, 0x04], 26, 30, field.offsets.local),
        ([0x50, 0x4B, 0x01, 0x02], 28, 46, field.offsets.central),
    ]
    for header in headers {
        for start in 0..<(bytes.count - header.name) where bytes[start..<start + 4].elementsEqual(header.signature) {
            let length = Int(bytes[start + header.nameLength]) | Int(bytes[start + header.nameLength + 1]) << 8
            guard bytes[(start + header.name)...].starts(with: Array(name.utf8)), length == name.utf8.count else { continue }
            var value = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[start + header.field + $1]) << (8 * $1) }
            change(&value)
            for index in 0..<4 { bytes[start + header.field + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
    }
    return Data(bytes)
}
