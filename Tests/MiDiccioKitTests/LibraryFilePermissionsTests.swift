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
}
