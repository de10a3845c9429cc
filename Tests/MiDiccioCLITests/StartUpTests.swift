import Foundation
import Testing

/// Issue 12, item 6: the everyday commands start fast because `midiccio` loads no
/// networking; whatever goes online runs in `midiccio-online`, which `midiccio` hands the
/// command line to. The libraries a process loads are read from the dynamic loader's own
/// report (`LD_DEBUG=libs`, on stderr), so nothing is inferred from how the binary was built.
/// On Linux SQLite is linked into each binary from its static library (README, "Start-up").
@Suite("Start-up: what each binary loads")
final class StartUpTests {
    let sandbox: Sandbox
    let processes: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        processes = try ChildProcesses(in: sandbox)
    }

    /// Libraries only the online commands need: the web server, HTTP, XML and their TLS.
    static let onlineLibraries = [
        "libmicrohttpd", "libcurl", "libFoundationNetworking", "libFoundationXML", "libxml2", "libcrypto", "libqrencode",
    ]

    /// The file names of the shared libraries the loader reports for one run.
    static func loadedLibraries(_ run: ChildRun) -> Set<String> {
        var names: Set<String> = []
        for line in run.errorOutput.split(separator: "\n") {
            guard let range = line.range(of: "calling init: ") else { continue }
            let path = line[range.upperBound...].trimmingCharacters(in: .whitespaces)
            names.insert(String(path.split(separator: "/").last ?? ""))
        }
        return names
    }

    @Test("the everyday commands load no web server, networking or XML library")
    func everydayCommandsStayLight() throws {
        #if os(Linux)
        let id = try sandbox.add("palabra", "--meaning", "word")
        for arguments in [["--version"], ["list", "--limit", "20"], ["add", "casa"], ["search", "pal"], ["show", id]] {
            let run = try processes.run(arguments, environment: ["LD_DEBUG": "libs"])
            #expect(run.succeeded, "\(run)")
            let loaded = Self.loadedLibraries(run)
            #expect(loaded.contains { $0.hasPrefix("libc.so") }, "the loader's report was not read: \(loaded.sorted())")
            // SQLite is linked into the binary on Linux: its shared library is not loaded.
            #expect(!loaded.contains { $0.hasPrefix("libsqlite3") }, "\(arguments) loaded a shared SQLite: \(loaded.sorted())")
            for library in Self.onlineLibraries {
                #expect(!loaded.contains { $0.hasPrefix(library) }, "\(arguments) loaded \(library): \(loaded.sorted())")
            }
        }
        #endif
    }

    @Test("the everyday binary leaves out Foundation's older half: no JSONSerialization, FileHandle, Thread or DateFormatter")
    func everydayBinaryLeavesTheOlderFoundationOut() throws {
        #if os(Linux)
        // Linked in, the older Foundation (swift-corelibs-foundation and CoreFoundation)
        // costs every command about a millisecond at its start (README, "Start-up"). Its
        // symbols are named `$s10Foundation…`; FoundationEssentials' are
        // `$s20FoundationEssentials…`, and stay.
        let child = try processes.launch(try BuiltTool.symbolLister(), ["--defined-only", processes.executable])
        let run = processes.finish(child)
        #expect(run.succeeded, "\(run)")
        let symbols = run.output.split(separator: "\n").compactMap { $0.split(separator: " ").last }
        #expect(symbols.contains { $0.hasPrefix("$s20FoundationEssentials") }, "the symbol list was not read: \(symbols.count) symbols")
        let older = symbols.filter { $0.hasPrefix("$s10Foundation") }.count
        #expect(older == 0, "symbols of the older Foundation, such as \(symbols.filter { $0.hasPrefix("$s10Foundation") }.prefix(3))")
        #endif
    }

    @Test("a command that goes online runs in midiccio-online, which loads the web server and networking")
    func onlineCommandsHandOff() throws {
        #if os(Linux)
        // `sync` without a remote fails with its own message, after the hand-off.
        let run = try processes.run(["sync"], environment: ["LD_DEBUG": "libs"])
        #expect(run.ending == .exited(1), "\(run)")
        #expect(run.errorOutput.contains("no remote"), "\(run)")
        let loaded = Self.loadedLibraries(run)
        for library in ["libmicrohttpd", "libFoundationNetworking"] {
            #expect(loaded.contains { $0.hasPrefix(library) }, "sync did not load \(library): \(loaded.sorted())")
        }
        // One SQLite in the process, linked in: none of what the online binary loads
        // brings a shared one beside it.
        #expect(!loaded.contains { $0.hasPrefix("libsqlite3") }, "sync loaded a shared SQLite: \(loaded.sorted())")
        #endif
    }

    @Test("help lists every command, the online ones too, and 'help serve' explains serve")
    func helpComesFromTheOnlineBinary() throws {
        let root = try processes.run(["--help"])
        #expect(root.succeeded, "\(root)")
        for command in ["list", "sync", "serve", "remote set"] {
            #expect(root.output.contains("  \(command)"), "no \(command) in: \(root.output)")
        }
        let serve = try processes.run(["help", "serve"])
        #expect(serve.succeeded && serve.output.contains("--port"), "\(serve)")
    }
}
