import Foundation
import MiDiccioKit
import MiDiccioTesting
import MiDiccioWeb
import Testing

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

    @Test("an uploaded .apkg is previewed as the import page shows it, imported, and the import undone")
    func previewImportUndo() throws {
        let package = try #require(FileManager.default.contents(atPath: ankiFixture("words.apkg")))
        let preview = try web.send("POST", "/api/import?name=words.apkg&dryRun=1", body: package)
        #expect(preview.status == 200)
        #expect(preview.json["format"] as? String == "apkg")
        #expect(preview.json["formatTitle"] as? String == "Anki deck package")
        #expect(preview.json["rows"] as? Int == 5)
        #expect(preview.json["droppedMediaReferences"] as? Int == 4)
        #expect(preview.json["notesWithoutTerm"] as? Int == 1)
        #expect((preview.json["sample"] as? [[String: Any]])?.first?["term"] as? String == "hablar")
        #expect(try web.library().counts().words == 0)

        let answer = try web.send("POST", "/api/import?name=words.apkg", body: package)
        #expect(answer.status == 200)
        #expect(answer.json["added"] as? Int == 5)
        #expect(try web.library().counts().words == 5)

        let undo = try web.send("POST", "/api/import/undo")
        #expect(undo.status == 200)
        #expect(undo.json["trashed"] as? Int == 5)
        #expect(try web.library().counts().words == 0)
    }
}
