#if canImport(Glibc)
import Foundation
import Glibc
import MiDiccioTesting
import Testing

@testable import MiDiccioWeb

/// A server on 127.0.0.1 answered every account of the computer: as `nobody`, the
/// exploratory helper (round 7) downloaded the whole backup, added words, and pointed the
/// library's sync at a folder of its own. The kernel's socket table names the client's
/// user; another user's connection gets 403.
@Suite("Another user of this computer is refused by the web app")
struct AnotherUserOfThisComputerIsRefusedTests {
    @Test("the client's own socket is found in the kernel's table by its ports, with its user")
    func tableReading() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:4A1B 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000
               1: 0100007F:A3C2 0100007F:4A1B 01 00000000:00000000 00:00000000 00000000 65534        0 1002 1 0000
               2: 0100007F:4A1B 0100007F:A3C2 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0000
            """
        #expect(LocalPeer.owner(in: table, clientPort: 0xA3C2, serverPort: 0x4A1B) == 65534)
        #expect(LocalPeer.owner(in: table, clientPort: 0x4A1B, serverPort: 0xA3C2) == 0, "the server's end, not asked for")
        #expect(LocalPeer.owner(in: table, clientPort: 0x1111, serverPort: 0x4A1B) == nil, "a client elsewhere")
        let table6 = """
              sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 00000000000000000000000001000000:B00B 00000000000000000000000001000000:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 7 1 0
            """
        #expect(LocalPeer.owner(in: table6, clientPort: 0xB00B, serverPort: 0x1F90) == 1000)
    }

    /// `runuser` runs a command as `nobody`: only root may, elsewhere the test is skipped.
    static let canRunAsAnotherUser =
        geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")

    @Test(
        "a request from another user's account gets 403, saying why; this user's is answered",
        .enabled(if: canRunAsAnotherUser, "needs root, runuser and curl to send a request as nobody"))
    func anotherUserGets403() throws {
        let web = try WebFixture()
        let address = "http://\(web.host)/api/status"
        #expect(try Self.curl(address, as: nil).status == 200)
        let refused = try Self.curl(address, as: "nobody")
        #expect(refused.status == 403)
        #expect(refused.body.contains("started by another user of this computer"), "\(refused.body)")
    }

    /// The status and body curl gets for `address`, run as `user` (nil: this process's).
    static func curl(_ address: String, as user: String?) throws -> (status: Int, body: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: user == nil ? "/usr/bin/curl" : "/usr/sbin/runuser")
        let curl = ["-s", "-w", "\n%{http_code}", address]
        process.arguments = user.map { ["-u", $0, "--", "/usr/bin/curl"] + curl } ?? curl
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }
}
#endif
