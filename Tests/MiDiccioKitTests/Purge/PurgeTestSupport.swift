import Foundation
import MiDiccioTesting

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

// Support for the purge tests only: unique strings to plant in a word, and ways to look
// for them in a library's files and in the cloud. Names carry a `purge` prefix so they
// never collide with helpers elsewhere in this test target.

/// A string no other test uses and no random data contains by chance: lowercase ASCII
/// letters only, so the search index stores it as one token, byte for byte.
func purgeUniqueToken(_ label: String) -> String {
    let letters = Array("abcdefghijklmnopqrstuvwxyz")
    var generator = SystemRandomNumberGenerator()
    let tail = String((0..<16).map { _ in letters[Int(generator.next() % 26)] })
    return "zq" + label.lowercased().filter { $0.isLetter && $0.isASCII } + tail
}

/// True when `data` holds the UTF-8 bytes of `text` anywhere.
func purgeBytes(_ data: Data, contain text: String) -> Bool {
    data.range(of: Data(text.utf8)) != nil
}

/// The library's files (the database and its write-ahead log) that still hold `text`.
func purgeLibraryFiles(of library: WordLibrary, holding text: String) -> [String] {
    [library.path, library.path + "-wal"].filter { path in
        purgeBytes(FileManager.default.contents(atPath: path) ?? Data(), contain: text)
    }
}

/// How many entries of the search index match `token` (the index itself, not the words).
func purgeSearchIndexMatches(_ library: WordLibrary, _ token: String) throws -> Int64 {
    try library.guarded {
        try library.database.integer("SELECT count(*) FROM words_fts WHERE words_fts MATCH ?", [.text("\"\(token)\"")]) ?? 0
    }
}

/// Every cloud file that still holds something of a purged word: its id in a decoded
/// change file or snapshot, or any of `texts` in a file's raw bytes or, for change files
/// and snapshots, in their decompressed payload. Each finding says where and what.
func purgeCloudFindings(_ files: [String: Data], id: WordID, texts: [String]) -> [String] {
    var findings: [String] = []
    for (path, data) in files.sorted(by: { $0.key < $1.key }) {
        for text in texts where purgeBytes(data, contain: text) {
            findings.append("\(path) holds \(text) in its raw bytes")
        }
        guard path.hasSuffix(".chg") || path.hasSuffix(".snap") else { continue }
        do {
            let payload = Data(try BatchCodec.decompress(data))
            for text in texts where purgeBytes(payload, contain: text) {
                findings.append("\(path) holds \(text) in its decompressed payload")
            }
            let batch = try BatchCodec.decode(data)
            if batch.records.contains(where: { $0.word.id == id }) {
                findings.append("\(path) holds a record of the purged word")
            }
        } catch {
            findings.append("\(path) cannot be read: \(error)")
        }
    }
    return findings
}

extension TestDevice {
    /// This device's status, as `midiccio status` would show it.
    func status() throws -> SyncStatus {
        try engine.status()
    }
}

// MARK: - The fixture cloud of format 1

/// The folder holding a cloud written by MiDiccio's previous cloud format (version 1:
/// no purge markers, no synced settings), committed with the tests.
///
/// It was made once by two devices ("laptop" and "phone") whose engines had
/// `formatVersion = 1` and `snapshotInterval = 2`: the laptop added casa, perro and
/// gato, the phone added libro and edited casa, the laptop moved gato to the Trash and
/// edited casa again, each syncing in between; then every file of the `MemoryStorage`
/// was written to disk as is. The device records were written before version 2 added
/// `purgeCleanThrough`, so that field is absent from them.
let purgeFormat1FixtureFolder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/cloud-format1", isDirectory: true)

/// The fixture's files, by path relative to the cloud root ("devices/<id>.json").
func purgeFormat1FixtureFiles() throws -> [String: Data] {
    let root = purgeFormat1FixtureFolder.standardizedFileURL.path
    guard let enumerator = FileManager.default.enumerator(atPath: root) else {
        throw SyncTestFailure("the fixture cloud is missing at \(root)")
    }
    var files: [String: Data] = [:]
    while let relative = enumerator.nextObject() as? String {
        var isFolder: ObjCBool = false
        let path = root + "/" + relative
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
        files[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
    }
    guard files[CloudLayout.manifestPath] != nil else {
        throw SyncTestFailure("the fixture cloud at \(root) has no \(CloudLayout.manifestPath)")
    }
    return files
}

/// Copies the fixture cloud into `storage`, as if a sync client had just downloaded it.
func purgeLoadFormat1Fixture(into storage: MemoryStorage) throws {
    for (path, data) in try purgeFormat1FixtureFiles() {
        storage.plant(path, data)
    }
}

/// The manifest in `storage`, which must be readable.
func purgeManifest(_ storage: MemoryStorage) throws -> CloudManifest {
    guard let data = storage.files[CloudLayout.manifestPath], let manifest = CloudManifest.decode(data) else {
        throw SyncTestFailure("the cloud has no readable manifest")
    }
    return manifest
}
