import Foundation
import Testing

@Suite("Output for people is colourless unless it goes to a terminal that allows colour")
final class ColourlessOutputTests {
    let sandbox: Sandbox
    let id: String

    init() throws {
        sandbox = try Sandbox()
        id = try sandbox.add("perro", "--meaning", "dog", "--tag", "animals", "--example", "El perro ladra.")
        let gone = try sandbox.add("gato", "--meaning", "cat")
        sandbox.run("delete", gone)
    }

    private static let escape = "\u{1B}"

    private func peopleCommands() -> [[String]] {
        [
            ["list"], ["show", id], ["search", "perro"], ["trash"], ["tags"], ["add", "casa", "--meaning", "house"],
            ["edit", id, "--notes", "barks"], ["list", "--sort", "term"], ["help", "list"], ["show", "nothing1"],
            ["list", "--sort", "nonsense"],
        ]
    }

    private func expectNoEscapes(environment: [String: String], terminal: Bool) {
        for arguments in peopleCommands() {
            let result = sandbox.run(arguments, environment: environment, terminal: terminal)
            #expect(!result.output.contains(Self.escape), "\(arguments) printed colour: \(result.output.debugDescription)")
            #expect(!result.errorOutput.contains(Self.escape), "\(arguments) printed colour on stderr")
        }
    }

    @Test("nothing has ANSI escape codes when standard output is not a terminal")
    func notATerminal() {
        expectNoEscapes(environment: sandbox.environment, terminal: false)
    }

    @Test("nothing has ANSI escape codes when NO_COLOR is set, even on a terminal", arguments: ["1", "true"])
    func noColour(value: String) {
        var environment = sandbox.environment
        environment["NO_COLOR"] = value
        expectNoEscapes(environment: environment, terminal: true)
    }

    @Test("nothing has ANSI escape codes on a dumb terminal")
    func dumbTerminal() {
        var environment = sandbox.environment
        environment["TERM"] = "dumb"
        expectNoEscapes(environment: environment, terminal: true)
    }

    @Test("a terminal that allows colour does get it, so the checks above can fail")
    func colourOnATerminal() {
        let result = sandbox.run(["list"], environment: sandbox.environment, terminal: true)
        #expect(result.output.contains(Self.escape))
    }

    @Test("plain output keeps the columns aligned")
    func plainTableIsAligned() throws {
        try sandbox.add("mariposa", "--meaning", "butterfly")
        let lines = sandbox.run("list", "--sort", "term").output.split(separator: "\n")
        #expect(lines.count == 2)
        // Short id (8), two spaces, the term padded to the longest term (8), two spaces.
        for line in lines { #expect(line.dropFirst(20).first?.isLetter == true, "\(line)") }
        #expect(lines[0].hasSuffix("mariposa  butterfly"))
        #expect(lines[1].hasSuffix("perro     dog  #animals"))
    }
}
