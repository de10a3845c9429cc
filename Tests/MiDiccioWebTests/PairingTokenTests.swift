import Foundation
import MiDiccioWeb
import Testing

/// The access token of `serve --lan` is kept beside the library, readable by its owner
/// only, the same across restarts until renewed.
@Suite("The stored access token")
final class PairingTokenTests {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-token-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    @Test("a token is made when there is none, kept 0600, and the same at the next start")
    func tokenIsKept() throws {
        let file = PairingToken(libraryPath: directory + "/library.sqlite")
        let first = try file.load()
        #expect(first.isNew)
        #expect(first.token.count == 64)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let second = try file.load()
        #expect(!second.isNew)
        #expect(second.token == first.token)
    }

    @Test("--new-token makes another one")
    func renewMakesAnother() throws {
        let file = PairingToken(libraryPath: directory + "/library.sqlite")
        let first = try file.load()
        let renewed = try file.load(renew: true)
        #expect(renewed.isNew && renewed.token != first.token)
        #expect(try file.load().token == renewed.token)
    }

    @Test("a file that holds no token is an error naming it, and is left as it is")
    func brokenFileIsAnError() throws {
        let file = PairingToken(libraryPath: directory + "/library.sqlite")
        try "short\n".write(toFile: file.path, atomically: true, encoding: .utf8)
        #expect { try file.load() } throws: { "\($0)".contains(file.path) }
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == "short\n")
    }
}
