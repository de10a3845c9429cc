import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// Drive allows two folders of one name side by side: two devices that make `changes/`
/// at the same moment make two. Sync treats them as one (issue 11, "Paths on a store
/// of ids").
@Suite(
    "Same-named folders in Google Drive count as one",
    .enabled(if: GoogleDriveTests.shouldRun, GoogleDriveTests.skipReason))
struct GoogleDriveSameNamedFoldersTests {
    @Test("files in either of two same-named folders are read, and new files go into the oldest")
    func readsBothWritesOldest() throws {
        let tenant = try GoogleDriveTests.tenant("same-named")
        let storage = try tenant.storage(.appData)
        try storage.write("devices/a.json", Data("{\"a\":1}".utf8))
        let files = try tenant.rawFiles()
        let devices = try #require(files.first { $0["name"] as? String == "devices" })
        let root = try #require((devices["parents"] as? [String])?.first)
        // A second "devices" folder, made earlier than the first by another device.
        let older = try tenant.create(name: "devices", parent: root, folder: true, createdTime: "2020-01-01T00:00:00.000Z")
        try tenant.create(name: "b.json", parent: older, content: Data("{\"b\":2}".utf8))

        let other = try tenant.storage(.appData)
        #expect(try other.list("devices").map(\.name) == ["a.json", "b.json"])
        #expect(try other.read("devices/b.json") == Data("{\"b\":2}".utf8))
        #expect(try other.read("devices/a.json") == Data("{\"a\":1}".utf8))

        try other.write("devices/c.json", Data("{}".utf8))
        let made = try #require(try tenant.rawFiles().first { $0["name"] as? String == "c.json" })
        #expect((made["parents"] as? [String])?.first == older)
        // Writing a file again updates it by id: no second copy.
        try other.write("devices/a.json", Data("{\"a\":3}".utf8))
        #expect(try tenant.rawFiles().filter { $0["name"] as? String == "a.json" }.count == 1)
        let fresh = try tenant.storage(.appData)
        #expect(try fresh.read("devices/a.json") == Data("{\"a\":3}".utf8))
    }

    @Test("two devices whose first syncs made the same folders twice still get each other's words")
    func twoFirstSyncs() throws {
        try withDrive("twice") { drive in
            let a = try drive.device("a"), b = try drive.device("b")
            let hund = try a.add("hund", meaning: "dog")
            let katze = try b.add("katze", meaning: "cat")
            // b writes its files at the moment a's first sync writes its own: neither saw
            // the other's folders yet.
            var ran = false
            a.cloud.beforeWrite = { _ in
                guard !ran else { return }
                ran = true
                try b.sync()
            }
            try a.sync()
            a.cloud.beforeWrite = nil
            try drive.syncRounds([a, b])
            #expect(try a.has(katze) && b.has(hund))
            let names = try drive.tenant.rawFiles().filter { $0["mimeType"] as? String == GoogleDriveStorage.folderType }.map {
                $0["name"] as? String ?? ""
            }
            // The scenario really made two "devices" folders.
            #expect(names.filter { $0 == "devices" }.count == 2, "\(names)")
        }
    }
}
