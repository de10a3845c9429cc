import Foundation
import MiDiccioKit
import MiDiccioWeb
import Testing

/// The fixture made by Tests/Fixtures/make_anki_fixtures.py.
private func ankiFixture(_ name: String) -> String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/Anki/\(name)").path
}

@Suite("Anki packages through the web app's import")
final class AnkiPackageUploadTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("an uploaded .colpkg is recognised by its content and imported")
    func uploadedPackage() throws {
        let package = try #require(FileManager.default.contents(atPath: ankiFixture("words.colpkg")))
        let answer = try web.send("POST", "/api/import?name=words.colpkg", body: package)
        #expect(answer.status == 200)
        #expect(answer.json["added"] as? Int == 3)
        #expect(try web.library().counts().words == 3)
    }
}
