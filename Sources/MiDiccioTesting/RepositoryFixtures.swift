import Foundation

/// The path of a committed fixture under `Tests/Fixtures` (made by the scripts there),
/// found from this file's place in the repository: `testFixture("Anki/words.apkg")`.
public func testFixture(_ relativePath: String) -> String {
    URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // MiDiccioTesting
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()  // the repository
        .appendingPathComponent("Tests/Fixtures/\(relativePath)").path
}

/// The path of an Anki package fixture in Tests/Fixtures/Anki (made by
/// Tests/Fixtures/make_anki_fixtures.py, committed).
public func ankiFixture(_ name: String) -> String {
    testFixture("Anki/\(name)")
}
