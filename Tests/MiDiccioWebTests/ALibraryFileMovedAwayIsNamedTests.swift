import Foundation
import MiDiccioKit
import MiDiccioStore
import MiDiccioTesting
import Testing

/// A person moves or renames the library file, or unplugs the drive holding it, while the
/// web app runs. Every request then failed with 500 and "cannot open library …: no such
/// file", as if the app were broken. It now says what happened and what to do, with the
/// status of a service that is unavailable for now, and makes no empty library in the
/// file's place; once the file is back, the app goes on with its words.
@Suite("A library file moved away while the web app runs")
final class ALibraryFileMovedAwayIsNamedTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("every request says the file is gone and how to go on, writes nothing, and the app goes on once it is back")
    func namedUntilPutBack() throws {
        #expect(try web.send("POST", "/api/words", json: #"{"term": "casa", "meaning": "house"}"#).status == 201)
        let away = web.directory + "/moved.sqlite"
        try FileManager.default.moveItem(atPath: web.libraryPath, toPath: away)

        for (method, target, json) in [
            ("GET", "/api/words", nil), ("GET", "/api/words?q=casa", nil),
            ("POST", "/api/words", #"{"term": "perro", "meaning": "dog"}"#),
        ] {
            let answer = try json.map { try web.send(method, target, json: $0) } ?? web.send(method, target)
            #expect(answer.status == 503, "\(method) \(target)")
            #expect(answer.text.contains("is not there any more"), "\(method) \(target): \(answer.text)")
            #expect(answer.text.contains("--library"), "\(method) \(target)")
        }
        #expect(!FileManager.default.fileExists(atPath: web.libraryPath), "no empty library was made in its place")

        try FileManager.default.moveItem(atPath: away, toPath: web.libraryPath)
        let listed = try web.send("GET", "/api/words")
        #expect(listed.status == 200)
        #expect(listed.text.contains("casa"))
        #expect(!listed.text.contains("perro"))
        #expect(try Database(path: web.libraryPath, create: false).text("PRAGMA integrity_check") == "ok")
    }
}
