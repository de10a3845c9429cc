import Foundation

// midiccio-bench: the figures a MiDiccio user cares about, printed as a table.
// Exit codes follow the tool's convention: 0 success, 1 failure, 64 bad usage.

/// Every subcommand by name; each one lives in its own file.
let subcommands: [String: BenchSubcommand] = [
    LibraryBenchmark.subcommand.name: LibraryBenchmark.subcommand,
    SyncBenchmark.subcommand.name: SyncBenchmark.subcommand,
    PurgeBenchmark.subcommand.name: PurgeBenchmark.subcommand,
    WebBenchmark.subcommand.name: WebBenchmark.subcommand,
    StartupBenchmark.subcommand.name: StartupBenchmark.subcommand,
    StudyBenchmark.subcommand.name: StudyBenchmark.subcommand,
    SnapshotFormsBenchmark.subcommand.name: SnapshotFormsBenchmark.subcommand,
]

/// The top-level help: OVERVIEW / USAGE / OPTIONS / SUBCOMMANDS.
func toolHelp() -> String {
    var text = """
        OVERVIEW: Measures MiDiccio on generated data and prints each figure against its target.

        Build in release mode first: swift build -c release --product midiccio-bench

        USAGE: midiccio-bench <subcommand> [options]

        OPTIONS:
          -h, --help  Show help information.

        SUBCOMMANDS:

        """
    let width = subcommands.keys.map(\.count).max() ?? 0
    for name in subcommands.keys.sorted() {
        text += "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(subcommands[name]!.abstract)\n"
    }
    text += "\nSee 'midiccio-bench help <subcommand>' for its options.\n"
    return text
}

/// Writes `text` to stderr.
func printError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}

/// Dispatches `arguments` (without the program name) and returns the exit code.
func runTool(_ arguments: [String]) -> Int32 {
    let isHelp: (String) -> Bool = { $0 == "-h" || $0 == "--help" }
    guard let first = arguments.first else {
        printError("Error: missing subcommand\nUsage: midiccio-bench <subcommand> [options]\n")
        return 64
    }
    if isHelp(first) || (first == "help" && arguments.count == 1) {
        print(toolHelp(), terminator: "")
        return 0
    }
    let name = first == "help" ? arguments[1] : first
    guard let subcommand = subcommands[name] else {
        printError(
            "Error: unknown subcommand '\(name)' (known: \(subcommands.keys.sorted().joined(separator: ", ")))\n"
                + "Usage: midiccio-bench <subcommand> [options]\n")
        return 64
    }
    let rest = Array(arguments.dropFirst())
    if first == "help" || rest.contains(where: isHelp) {
        print(subcommand.helpText, terminator: "")
        return 0
    }
    do {
        try subcommand.run(rest)
        return 0
    } catch let error as BenchUsageError {
        printError("Error: \(error.message)\nUsage: \(error.usage)\n")
        return 64
    } catch {
        printError("Error: \(error)\n")
        return 1
    }
}

exit(runTool(Array(CommandLine.arguments.dropFirst())))
