import Foundation
import MiDiccioTesting
import MiDiccioWeb
import Testing

/// The app installs on a phone's home screen: a manifest, an icon, a service worker that
/// keeps the app shell (never words) and a page of its own for when the computer cannot
/// be reached; all under the same strict CSP.
@Suite("Installable on a phone")
final class InstallableAppTests {
    static let token = "installable-token-1234"
    let web: WebFixture

    init() throws { web = try WebFixture(accessToken: Self.token) }

    var bearer: [String: String] { ["Authorization": "Bearer \(Self.token)"] }

    @Test("the manifest names the app, starts at / and has an icon; both are fetched without the cookie")
    func manifestAndIcon() throws {
        let manifest = try web.send("GET", "/manifest.webmanifest")
        #expect(manifest.status == 200)
        #expect(manifest.headers["content-type"] == "application/manifest+json")
        #expect(manifest.json["start_url"] as? String == "/")
        #expect(manifest.json["display"] as? String == "standalone")
        let icons = manifest.json["icons"] as? [[String: Any]] ?? []
        #expect(icons.contains { $0["src"] as? String == "/icon.svg" })
        let icon = try web.send("GET", "/icon.svg")
        #expect(icon.status == 200 && icon.text.hasPrefix("<svg"))
        #expect(manifest.headers["content-security-policy"] == SecurityPolicy.contentSecurityPolicy)
        // Public means without the token, not from anywhere: the Host check still holds.
        #expect(try web.send("GET", "/icon.svg", host: "evil.example:\(web.server.port)").status == 421)
    }

    @Test("everything else still needs the token", arguments: ["/sw.js", "/offline.html", "/api/words", "/"])
    func otherPathsNeedTheToken(path: String) throws {
        #expect(try web.send("GET", path).status == 401)
    }

    @Test("the service worker keeps the shell and the offline page, and never an /api/ answer")
    func serviceWorkerCachesNoWords() throws {
        let worker = try web.send("GET", "/sw.js", headers: bearer)
        #expect(worker.status == 200)
        #expect(worker.headers["content-type"] == "text/javascript; charset=utf-8")
        #expect(worker.text.contains(#""/offline.html""#))
        #expect(!worker.text.contains("/api"))
        #expect(!worker.text.contains(#""/""#), "the page itself (with its CSRF token) is never cached")
    }

    @Test("the offline page names this computer and has no inline code")
    func offlinePageNamesTheComputer() throws {
        let page = try web.send("GET", "/offline.html", headers: bearer)
        #expect(page.status == 200)
        let name = try #require(MachineNames.hostName.split(separator: ".").first.map(String.init))
        #expect(page.text.contains("MiDiccio on \(name) is not reachable"))
        #expect(InlineCode.offences(in: page.text).isEmpty)
    }

    @Test("the page links the manifest and the icon")
    func pageLinksTheManifest() throws {
        let page = try web.send("GET", "/", headers: bearer)
        #expect(page.text.contains(#"<link rel="manifest" href="/manifest.webmanifest""#))
        #expect(page.text.contains(#"<link rel="icon" href="/icon.svg">"#))
    }
}
