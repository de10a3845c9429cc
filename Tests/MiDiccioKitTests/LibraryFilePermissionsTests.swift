import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// A word list is personal: its files are readable by their owner only.
@Suite("A new library is readable by its owner only")
struct LibraryFilePermissionsTests {
    @Test("a new library and its WAL file are created with mode 0600")
    func ownerOnly() throws {
        let folder = NSTemporaryDirectory() + "midiccio-perm-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/library.sqlite"
        let library = try WordLibrary(path: path, environment: [:])
        try library.add(WordContent(term: "privado"))
        for file in [path, path + "-wal"] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(file) has mode \(String(mode?.intValue ?? 0, radix: 8))")
        }
    }

    @Test("a backup of it is written with mode 0600 too, whatever the umask")
    func backupOwnerOnly() throws {
        try withTemporaryLibrary { fixture in
            try fixture.library.add(WordContent(term: "privado"))
            let backup = fixture.file("backup.json")
            try fixture.library.exportBackup(to: backup)
            let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "mode \(String(mode?.intValue ?? 0, radix: 8))")
        }
    }
}
