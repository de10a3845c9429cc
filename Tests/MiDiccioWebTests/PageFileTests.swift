import Foundation
import Testing

/// The page's files as the server sends them (the bytes compiled in from
/// Sources/MiDiccioWeb/Resources/) pass the checks a tool can make: the script parses,
/// and the page holds nothing the Content-Security-Policy would block.
@Suite("The page's files pass their checks")
final class PageFileTests {
    let web: WebFixture

    init() throws { web = try WebFixture() }

    @Test("the script parses: node --check finds no syntax error in app.js")
    func scriptParses() throws {
        let node = try #require(
            Self.executable(anyOf: ["node", "nodejs"]),
            "node is not installed: install Debian's nodejs (make test does)")
        let script = try web.send("GET", "/app.js")
        #expect(script.status == 200)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("midiccio-page-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("app.js")
        try script.body.write(to: file)

        let check = Process()
        check.executableURL = URL(fileURLWithPath: node)
        check.arguments = ["--check", file.path]
        let errors = Pipe()
        check.standardError = errors
        check.standardOutput = FileHandle.nullDevice
        try check.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "node --check app.js:\n\(message)")
    }

    @Test("the page has no inline script, no inline style and no on... handler: the CSP would block them")
    func pageHasNoInlineCode() throws {
        let page = try web.send("GET", "/").text
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(InlineCode.offences(in: page) == [])
    }

    @Test("the page takes this session's CSRF token in one place, with no placeholder left")
    func pageTakesTheToken() throws {
        let page = try web.send("GET", "/").text
        #expect(page.components(separatedBy: web.csrfToken).count == 2)
        #expect(!page.contains("{{"))
    }

    @Test(
        "the page check catches each kind of inline code",
        arguments: [
            "<script>alert(1)</script>", "<SCRIPT>alert(1)</SCRIPT>", #"<script src="/app.js">alert(1)</script>"#,
            "<style>body { color: red }</style>", #"<p style="color: red">x</p>"#, #"<button onclick="go()">x</button>"#,
            "<img src=x onerror=alert(1)>", #"<a href="javascript:alert(1)">x</a>"#, #"<body ONLOAD='go()'>"#,
            #"<script src="https://cdn.example/x.js"></script>"#, #"<link rel="stylesheet" href="//cdn.example/x.css">"#,
        ])
    func checkCatchesInlineCode(snippet: String) {
        let page = "<!doctype html><html><head><title>t</title></head><body>\(snippet)</body></html>"
        #expect(InlineCode.offences(in: page).count == 1, "\(snippet)")
    }

    @Test("the page check lets through what the page may hold")
    func checkAllowsTheSafeForms() {
        let page = """
            <!doctype html><head><script src="/app.js" defer></script><link rel="stylesheet" href="/app.css">
            <link rel="icon" href="data:,"></head><body><!-- <script>not code</script> -->
            <p title="a > b" data-style="x">on= in text, style= in text</p><a href="/api/backup" download>x</a></body>
            """
        #expect(InlineCode.offences(in: page) == [])
    }

    /// The full path of the first of `names` found on PATH.
    static func executable(anyOf names: [String]) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in names where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }
}

/// Finds in an HTML page what `script-src 'self'; style-src 'self'` would block, or what
/// would fetch from elsewhere: one sentence per offending tag.
///
/// A tag scanner, not a full HTML parser: enough for a page we write ourselves, and it
/// errs towards reporting (a `<script>` inside an attribute value is not a tag, but
/// one inside a comment is skipped).
enum InlineCode {
    static func offences(in html: String) -> [String] {
        let text = html.replacing(#/<!--.*?-->/#.dotMatchesNewlines(), with: "")
        let tag = #/<([a-zA-Z][a-zA-Z0-9-]*)((?:"[^"]*"|'[^']*'|[^'">])*)>/#
        let attribute = #/([^\s"'=<>\/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/#
        var offences: [String] = []
        for match in text.matches(of: tag) {
            let name = match.output.1.lowercased()
            var attributes: [String: String] = [:]
            for pair in match.output.2.matches(of: attribute) {
                attributes[pair.output.1.lowercased()] = String(pair.output.2 ?? pair.output.3 ?? pair.output.4 ?? "")
            }
            let problems = problems(tag: name, attributes: attributes, content: text[match.range.upperBound...])
            offences += problems.map { "<\(name)>: \($0)" }
        }
        return offences
    }

    private static func problems(tag: String, attributes: [String: String], content: Substring) -> [String] {
        var problems: [String] = []
        switch tag {
        case "script":
            let body = content.prefix { $0 != "<" }
            if attributes["src"] == nil || !body.allSatisfy(\.isWhitespace) { problems.append("inline script") }
        case "style":
            problems.append("style element")
        default:
            break
        }
        for (name, value) in attributes {
            let trimmed = value.trimmingCharacters(in: .whitespaces).lowercased()
            if name == "style" { problems.append("style attribute") }
            if name.hasPrefix("on") { problems.append("event handler attribute \(name)") }
            if trimmed.hasPrefix("javascript:") { problems.append("javascript: address in \(name)") }
            let fetches = name == "src" || (tag == "link" && name == "href")
            if fetches && (trimmed.hasPrefix("http:") || trimmed.hasPrefix("https:") || trimmed.hasPrefix("//")) {
                problems.append("\(name) fetches from another site")
            }
        }
        return problems.isEmpty ? [] : [problems.sorted().joined(separator: ", ")]
    }
}
