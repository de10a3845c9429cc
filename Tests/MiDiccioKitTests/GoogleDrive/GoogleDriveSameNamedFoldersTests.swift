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

    @Test("a visible MiDiccio folder made twice at once, one never listed here, is read once a listing shows it")
    func aTopFolderNeverListedIsLookedFor() throws {
        let tenant = try GoogleDriveTests.tenant("same-named-top")
        // Another device's "MiDiccio" folder, made as this one's first sync begins: Drive's
        // listings leave it out for a while (its contents, made later, they show at once).
        try tenant.setFaults(["listLag": 3])
        let theirs = try tenant.create(name: "MiDiccio", parent: "root", folder: true)
        try tenant.setFaults(["listLag": 0])
        let storage = try tenant.storage(.folder("MiDiccio"))
        try storage.write("devices/mine.json", Data("{}".utf8))
        try storage.beginPass(cache: nil)
        try storage.beginPass(cache: nil)
        // The other device writes its record into its folder; this one's changes show the
        // record and the folder around it, never their top.
        let devices = try tenant.create(name: "devices", parent: theirs, folder: true)
        let record = "0f3e2d1c-4b5a-4968-8776-a5b4c3d2e1f0.json"
        try tenant.create(name: record, parent: devices, content: Data("{\"b\":2}".utf8))
        #expect(try tenant.rawFiles().filter { $0["name"] as? String == "MiDiccio" }.count == 2)
        // Two looks: the first finds its top missing, and the listing it makes then (or the
        // next one) shows it. It was never looked for, and the record never read (round 26A #1).
        try storage.beginPass(cache: nil)
        try storage.beginPass(cache: nil)
        #expect(try storage.list("devices").map(\.name).sorted() == [record, "mine.json"])
        #expect(try storage.read("devices/" + record) == Data("{\"b\":2}".utf8))
    }

    @Test("files named as MiDiccio names its own, in another folder at the top of My Drive, make no sync list everything")
    func anotherTopFolderIsNotLookedFor() throws {
        let tenant = try GoogleDriveTests.tenant("same-named-other-top")
        let storage = try tenant.storage(.folder("MiDiccio"))
        try storage.write("devices/mine.json", Data("{}".utf8))
        try storage.beginPass(cache: nil)
        // Another library's folder, "Otra", at the top of My Drive.
        let other = try tenant.create(name: "Otra", parent: "root", folder: true)
        let devices = try tenant.create(name: "devices", parent: other, folder: true)
        try tenant.create(name: "0f3e2d1c-4b5a-4968-8776-a5b4c3d2e1f0.json", parent: devices, content: Data("{}".utf8))
        try storage.beginPass(cache: nil)
        try tenant.resetStats()
        try storage.beginPass(cache: nil)
        #expect(try tenant.stats().byEndpoint["files.list"] == 0, "one look at the changes, no listing")
        #expect(try storage.list("devices").map(\.name) == ["mine.json"])
    }
}
