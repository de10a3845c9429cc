import Dispatch
import Foundation
import MiDiccioCLICore
import MiDiccioKit
import MiDiccioWeb

#if canImport(Glibc)
import Glibc
#endif

/// `midiccio serve`: the web app on this library, until Ctrl-C.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        path: ["serve"], abstract: "Open your words in the browser: a small web app on this computer.",
        discussion: """
            Listens on 127.0.0.1 only. With --lan it listens on every interface so a phone on the home network
            can open it: it answers only to this computer's own names (its addresses, host name and
            HOSTNAME.local), every request must carry an access token, and it prints the pairing address with the
            token, and its QR code. The token is kept beside the library (LIBRARY.serve-token, readable by you
            only), so a paired phone stays paired across restarts; --new-token makes a new one (every paired
            browser must pair again). --host names one address instead. The command line and the web app can be
            used on the same library at the same time. Stop it with Ctrl-C.
            """,
        examples: [
            "midiccio serve", "midiccio serve --port 8081", "midiccio serve --lan",
            "midiccio serve --host 192.168.1.20 --token \"$(openssl rand -hex 16)\"",
        ])

    @Option(name: "port", valueName: "number", help: "The port to listen on (default: 8080; 0 picks a free one).", range: 0...65_535)
    var port = 8080
    @Option(name: "host", valueName: "address", help: "The address to listen on (default: 127.0.0.1).") var host = "127.0.0.1"
    @Flag(name: "lan", help: "Serve the home network: listen on every interface, with an access token and a QR code to pair a phone.")
    var lan = false
    @Option(
        name: "token", valueName: "secret",
        help: "The access token every request must carry (default beyond this computer: the stored one).")
    var token: String?
    @Flag(name: "new-token", help: "Make a new stored access token: browsers paired before must pair again.") var newToken = false
    @Option(name: "tls-cert", valueName: "file", help: "Serve HTTPS with this certificate (PEM); goes with --tls-key.") var tlsCert: String?
    @Option(name: "tls-key", valueName: "file", help: "The private key (PEM, unencrypted) of --tls-cert.") var tlsKey: String?

    /// True when other computers can reach the server.
    private var beyondLoopback: Bool { lan || !SecurityPolicy.isLoopback(host) }

    func validate() throws(UsageError) {
        if let token, token.count < 8 || token.contains(where: { $0.isWhitespace || $0 == ";" || $0 == "," }) {
            throw UsageError("--token must be at least 8 characters, without spaces, commas or semicolons")
        }
        if lan && host != "127.0.0.1" {
            throw UsageError("--lan listens on every interface; leave out --host, or give --host without --lan")
        }
        if (tlsCert == nil) != (tlsKey == nil) {
            throw UsageError("--tls-cert and --tls-key go together: give both files, or neither")
        }
        if newToken && (token != nil || !beyondLoopback) {
            throw UsageError(
                "--new-token renews the stored token of --lan (or --host); it goes with neither --token nor a loopback address")
        }
    }

    /// The PEM text of --tls-cert and --tls-key, or nil without them.
    private func tlsFiles() throws -> (certificate: String, key: String)? {
        guard let tlsCert, let tlsKey else { return nil }
        func read(_ path: String, _ what: String, _ marker: String) throws -> String {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw UsageError("cannot read the \(what) \(path)")
            }
            let text = String(decoding: data, as: UTF8.self)
            guard text.contains(marker) else { throw UsageError("\(path) is not a PEM \(what) (no '\(marker)' line)") }
            return text
        }
        return (try read(tlsCert, "certificate", "-----BEGIN CERTIFICATE-----"), try read(tlsKey, "private key", "PRIVATE KEY-----"))
    }

    func run(_ context: ToolContext) throws {
        // Open (or create) the library now, so a bad path fails here and not in the browser;
        // then close it: the app opens connections of its own while it is in use, and keeps
        // none open while it sits idle (a file restored from a backup meanwhile stays whole).
        let libraryPath = try context.library().path
        context.closeLibrary()
        let wildcard = lan || SecurityPolicy.isWildcard(host)
        let bindHost = lan ? "0.0.0.0" : host
        var accessToken = token
        var browsers = PairedBrowsers()
        if beyondLoopback && accessToken == nil {
            let tokenFile = PairingToken(libraryPath: libraryPath)
            let stored = try tokenFile.load(renew: newToken)
            accessToken = stored.token
            // The paired browsers are kept beside the token; a new token signs them all out.
            browsers = try PairedBrowsers(libraryPath: libraryPath)
            if stored.isNew {
                browsers.signOutAll()
                context.note("A new access token is kept in \(tokenFile.path).")
            }
        }
        // On every interface, the server answers to every name of this computer; on one
        // address, to that address only.
        let policy =
            wildcard
            ? SecurityPolicy(hostNames: MachineNames.all(), accessToken: accessToken, browsers: browsers)
            : SecurityPolicy(host: host, accessToken: accessToken, browsers: browsers)
        let app = WebApp(
            libraryPath: libraryPath, policy: policy, appVersion: "midiccio \(Tool.version)", environment: context.environment)
        app.notePurgedAtStart(context.purgedAtOpen)
        // Signals arrive as dispatch events (handled on a queue, not in a signal handler),
        // so stopping runs ordinary code: the daemon finishes requests in progress.
        let stop = DispatchSemaphore(value: 0)
        let sources = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            signal(SIGINT, SIG_DFL)
            signal(SIGTERM, SIG_DFL)
        }
        let server = try HTTPServer(host: bindHost, port: UInt16(port), tls: try tlsFiles(), handler: app)
        let name = wildcard ? MachineNames.pairingHost() : SecurityPolicy.hostHeaderName(host)
        let scheme = server.usesTLS ? "https" : "http"
        let address = "\(scheme)://\(name):\(server.port)/" + (accessToken.map { "?token=\($0)" } ?? "")
        app.setPairingAddress(beyondLoopback ? address : nil)
        context.io.write("MiDiccio is running at \(address)\n")
        if beyondLoopback, let code = PairingCode(address) {
            context.io.write("Open it on your phone: scan this code with its camera (on the same network).\n")
            context.io.write(code.terminalText)
        }
        context.note("Library: \(libraryPath). Press Ctrl-C to stop.")
        stop.wait()
        Self.finishActions(app, stop: stop, context: context)
        server.stop()
        context.note("Stopped.")
    }

    /// Told to stop while actions run (a bulk action, an import, a restore, a sync
    /// started from the page): waits for them to finish, saying so, so that what the
    /// person started is done and its page gets the answer; a second Ctrl-C stops at once,
    /// and what was not finished is undone (each action is one transaction).
    static func finishActions(_ app: WebApp, stop: DispatchSemaphore, context: ToolContext) {
        let running = app.actionsRunning()
        guard !running.isEmpty else { return }
        context.note(
            "Waiting for what is running to finish: \(running.joined(separator: "; ")). "
                + "Press Ctrl-C again to stop now (what it has not finished is then undone).")
        while !app.actionsRunning().isEmpty {
            if stop.wait(timeout: .now() + .milliseconds(100)) == .success {
                context.note("Stopping now: what was running is undone.")
                return
            }
        }
        // The page asks for the outcome every fraction of a second: a moment to fetch it.
        _ = stop.wait(timeout: .now() + .seconds(1))
        context.note("Finished.")
    }
}
