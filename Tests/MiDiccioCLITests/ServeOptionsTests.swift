import Foundation
import Testing

/// `serve`'s options for the home network and HTTPS refuse what cannot work, saying
/// which option and why, before anything listens.
@Suite("serve --lan and --tls options")
final class ServeOptionsTests {
    let sandbox: Sandbox

    init() throws { sandbox = try Sandbox() }

    @Test(
        "options that do not go together are refused with a message naming them",
        arguments: [
            (["serve", "--lan", "--host", "192.168.1.20"], "--lan"),
            (["serve", "--tls-cert", "cert.pem"], "--tls-key"),
            (["serve", "--tls-key", "key.pem"], "--tls-cert"),
            (["serve", "--new-token"], "--new-token"),
            (["serve", "--lan", "--new-token", "--token", "abcdefgh123"], "--new-token"),
        ])
    func conflictingOptions(arguments: [String], named: String) {
        let run = sandbox.run(arguments)
        #expect(run.status != 0)
        #expect(run.errorOutput.contains(named), "\(run.errorOutput)")
    }

    @Test("a certificate or key that is not PEM is refused, naming the file")
    func badPEMFiles() throws {
        let certificate = try sandbox.write("not a certificate\n", to: "cert.pem")
        let key = try sandbox.write("not a key\n", to: "key.pem")
        let run = sandbox.run(["serve", "--port", "0", "--tls-cert", certificate, "--tls-key", key])
        #expect(run.status != 0)
        #expect(run.errorOutput.contains(certificate), "\(run.errorOutput)")
        let missing = sandbox.run(["serve", "--port", "0", "--tls-cert", sandbox.path("none.pem"), "--tls-key", key])
        #expect(missing.status != 0)
        #expect(missing.errorOutput.contains("none.pem"), "\(missing.errorOutput)")
    }
}
