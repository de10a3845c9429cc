import Foundation
import MiDiccioTesting

/// The e-reader databases made by Tests/Fixtures/Import/make_fixtures.py and committed.
enum ImportFixtures {
    /// The folder holding them, found from this file's place in the repository.
    static let folder = testFixture("Import")

    /// A fixture copied into the sandbox, so that no test can change the committed file.
    static func copy(_ name: String, into sandbox: Sandbox, as copyName: String? = nil) throws -> String {
        let target = sandbox.path(copyName ?? name)
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: folder + "/" + name, toPath: target)
        return target
    }
}
