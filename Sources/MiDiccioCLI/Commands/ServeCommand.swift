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
            Listens on 127.0.0.1 only, unless --host names another address; then --token is required and every
            request must carry it (the printed address does). The command line and the web app can be used on
            the same library at the same time. Stop it with Ctrl-C.
            """,
        examples: [
            "midiccio serve", "midiccio serve --port 8081",
            "midiccio serve --host 192.168.1.20 --token \"$(openssl rand -hex 16)\"",
        ])

    @Option(valueName: "number", help: "The port to listen on (default: 8080; 0 picks a free one).", range: 0...65_535)
    var port = 8080
    @Option(valueName: "address", help: "The address to listen on (default: 127.0.0.1).") var host = "127.0.0.1"
    @Option(valueName: "secret", help: "A secret every request must carry; required with --host beyond this computer.")
    var token: String?

    func validate() throws(UsageError) {
        if let token, token.count < 8 || token.contains(where: { $0.isWhitespace || $0 == ";" || $0 == "," }) {
            throw UsageError("--token must be at least 8 characters, without spaces, commas or semicolons")
        }
        if !SecurityPolicy.isLoopback(host) && token == nil {
            throw UsageError(
                "listening on \(host) lets other computers reach your library; add --token SECRET so only people with the secret can")
        }
    }

    func run(_ context: ToolContext) throws {
        // Open (or create) the library now, so a bad path fails here and not in the browser.
        let library = try context.library()
        let app = WebApp(
            libraryPath: library.path, policy: SecurityPolicy(host: host, accessToken: token),
            appVersion: "midiccio \(Tool.version)", environment: context.environment)
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
        let server = try HTTPServer(host: host, port: UInt16(port), handler: app)
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let address = "http://\(shownHost):\(server.port)/" + (token.map { "?token=\($0)" } ?? "")
        context.io.write("MiDiccio is running at \(address)\n")
        context.note("Library: \(library.path). Press Ctrl-C to stop.")
        stop.wait()
        server.stop()
        context.note("Stopped.")
    }
}
