import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// An import or restore sent twice with the same idempotency key (issue 13: two clicks on
/// Import 0.3 s apart imported 100,000 words twice) runs once.
@Suite("A second submit of the same upload is refused")
final class SecondSubmitOfAnUploadTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("the same key imports once; a new key, or a first submit that failed, may import again")
    func importOnce() throws {
        let sheet = Data("term\tmeaning\nuno\tone\ndos\ttwo\n".utf8)
        #expect(try web.send("POST", "/api/import?name=w.tsv&key=k1", body: sheet).json["added"] as? Int == 2)
        let again = try web.send("POST", "/api/import?name=w.tsv&key=k1", body: sheet)
        #expect(again.status == 409)
        #expect(try web.library().counts().words == 2)
        // A failed submit gives its key back.
        #expect(try web.send("POST", "/api/import?name=w.apkg&key=k2", body: Data("not a package".utf8)).status == 422)
        #expect(try web.send("POST", "/api/import?name=w.tsv&key=k2", body: sheet).status == 200)
        #expect(try web.library().counts().words == 4)
        // Previews carry no key and may run any number of times.
        #expect(try web.send("POST", "/api/import?name=w.tsv&key=k2&dryRun=1", body: sheet).status == 200)
    }

    @Test("the same key restores a backup once")
    func restoreOnce() throws {
        let library = try web.library()
        try library.add(WordContent(term: "uno", meaning: "one"))
        let backup = try web.send("GET", "/api/backup").body
        #expect(try web.send("POST", "/api/backup/restore?replace=1&key=r1", body: backup).status == 200)
        #expect(try web.send("POST", "/api/backup/restore?replace=1&key=r1", body: backup).status == 409)
    }
}
