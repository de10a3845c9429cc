import Foundation
import Testing

/// A mistyped sync folder (`clod` for `cloud`) quietly started a new, empty cloud: the
/// sync said "0 pulled" and the other devices' words never came. The first sync into a
/// folder without MiDiccio data now says it started one there.
@Suite("A sync into a folder without MiDiccio data says it started it there")
final class ASyncIntoAnEmptyFolderSaysItStartedThereTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test("the first sync says so and names the way to check the path; a device joining that cloud later is not told")
    func startedThere() throws {
        let cloud = sandbox.path("clod")
        #expect(sandbox.run("remote", "set", "folder", cloud).status == 0)
        try sandbox.add("casa")
        let first = sandbox.run("sync")
        #expect(first.status == 0, "\(first.errorOutput)")
        #expect(first.errorOutput.contains("There was no MiDiccio data in"), "\(first.errorOutput)")
        #expect(first.errorOutput.contains("midiccio remote show"))
        #expect(!sandbox.run("sync").errorOutput.contains("There was no MiDiccio data"))

        let other = sandbox.path("other.sqlite")
        #expect(sandbox.run(["remote", "set", "folder", cloud, "--library", other]).status == 0)
        let joined = sandbox.run(["sync", "--library", other])
        #expect(joined.status == 0)
        #expect(!joined.errorOutput.contains("There was no MiDiccio data"), "\(joined.errorOutput)")
    }
}
