import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioKit
@testable import MiDiccioWeb

/// A page left open while `serve` was started again on the same port with another library
/// took the new server's token and sent its change again: Empty Trash emptied the other
/// library's Trash, and Undo import undid its import (found by the exploratory helper,
/// round 8). The page names its library in every change, and another library's server
/// refuses it.
@Suite("A page made for another library changes nothing")
final class APageForAnotherLibraryChangesNothingTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    /// The library key the page carries in its meta tag.
    func pageKey() throws -> String {
        let page = try web.send("GET", "/").text
        let marker = #"<meta name="library-key" content=""#
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix { $0 != "\"" })
    }

    @Test("a change naming another library is refused with 409 and changes nothing; its own library's and a script's go ahead")
    func anotherLibrarysPageIsRefused() throws {
        let key = try pageKey()
        #expect(key.count == 16 && key == WebApp.libraryKey(of: web.libraryPath))
        let other = WebApp.libraryKey(of: web.directory + "/other.sqlite")
        #expect(other != key)
        let refused = try web.send(
            "POST", "/api/words", body: Data(#"{"term": "perro"}"#.utf8), headers: ["X-MiDiccio-Library": other])
        #expect(refused.status == 409)
        #expect(refused.json["field"] as? String == "library")
        #expect((refused.json["error"] as? String)?.contains("reload the page") == true)
        #expect(try web.library().counts().words == 0, "nothing was added")
        let trashEmpty = try web.send("POST", "/api/trash/empty", body: Data("{}".utf8), headers: ["X-MiDiccio-Library": other])
        #expect(trashEmpty.status == 409)

        let own = try web.send("POST", "/api/words", body: Data(#"{"term": "gato"}"#.utf8), headers: ["X-MiDiccio-Library": key])
        #expect(own.status == 201)
        let script = try web.send("POST", "/api/words", body: Data(#"{"term": "pez"}"#.utf8))
        #expect(script.status == 201)
        #expect(try web.library().counts().words == 2)
    }

    @Test("the key is the same for the same file however its path is written, and differs for another file")
    func theKeyNamesTheFile() throws {
        let link = web.directory + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: web.libraryPath)
        #expect(WebApp.libraryKey(of: link) == WebApp.libraryKey(of: web.libraryPath))
        #expect(WebApp.libraryKey(of: web.directory + "/./library.sqlite") == WebApp.libraryKey(of: web.libraryPath))
        #expect(WebApp.libraryKey(of: web.directory + "/copy.sqlite") != WebApp.libraryKey(of: web.libraryPath))
    }
}
