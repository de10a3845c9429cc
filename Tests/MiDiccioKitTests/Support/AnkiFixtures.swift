import Foundation
import MiDiccioLibrary

/// The path of an Anki package fixture in Tests/Fixtures/Anki (made by
/// Tests/Fixtures/make_anki_fixtures.py, committed).
func ankiFixture(_ name: String) -> String {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // the test target
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/Anki/\(name)").path
}

extension ImportOptions {
    /// Options for importing an Anki package: the fields chosen, duplicates skipped or not.
    static func anki(fields: [[String]] = [], skipDuplicates: Bool = false) -> ImportOptions {
        var options = ImportOptions()
        options.ankiFields = fields
        options.skipDuplicates = skipDuplicates
        return options
    }
}
