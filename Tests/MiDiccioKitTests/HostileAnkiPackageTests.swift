import Foundation
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
}
