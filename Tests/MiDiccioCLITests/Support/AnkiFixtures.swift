import Foundation

/// The path of an Anki package fixture in Tests/Fixtures/Anki (made by
/// Tests/Fixtures/make_anki_fixtures.py, committed).
func ankiFixture(_ name: String) -> String {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // the test target
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/Anki/\(name)").path
}
