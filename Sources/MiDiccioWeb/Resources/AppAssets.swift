import Foundation
import MiDiccioModel

/// The files of the web app: `index.html`, `app.css` and `app.js` beside this file,
/// compiled in by SwiftPM (`.embedInCode` in Package.swift) so `midiccio` is one
/// self-contained program: no resource bundle to find and no file read at run time.
///
/// They are real files so tools can check them: `make test` runs `node --check` on the
/// script and looks for inline code in the page (PageFileTests).
enum AppAssets {
    /// The page's script. User text only ever reaches the page through `textContent`
    /// (never innerHTML), so a word like `<script>` shows as itself.
    static let script = WebAsset(PackageResources.app_js, contentType: "text/javascript; charset=utf-8")

    /// The style sheet: system fonts, light and dark themes from the system setting,
    /// one column that works from phone width up.
    static let style = WebAsset(PackageResources.app_css, contentType: "text/css; charset=utf-8")

    /// The service worker: keeps the app shell for the "not reachable" page, never words.
    static let serviceWorker = WebAsset(PackageResources.sw_js, contentType: "text/javascript; charset=utf-8")

    /// The web app manifest that makes the app installable on a phone.
    static let manifest = WebAsset(PackageResources.manifest_webmanifest, contentType: "application/manifest+json")

    /// The app's icon, for the tab, the manifest and the home screen.
    static let icon = WebAsset(PackageResources.icon_svg, contentType: "image/svg+xml")

    /// The page a phone shows when the computer cannot be reached, naming the computer
    /// (`computerName`, escaped).
    static func offlinePage(computerName: String) -> Data {
        let template = String(decoding: PackageResources.offline_html, as: UTF8.self)
        return Data(template.replacingOccurrences(of: "{{computer-name}}", with: escapedAttribute(computerName)).utf8)
    }

    /// Where `index.html` takes the session's CSRF token (once, in a meta tag).
    static let csrfPlaceholder = "{{csrf-token}}"

    /// The page, with this session's CSRF token in its meta tag. It holds no user text:
    /// the script fetches words as JSON and inserts them with `textContent`.
    static func page(csrfToken: String, libraryKey: String = "") -> Data {
        // SecurityPolicy.randomToken() makes hex, but the policy takes any token its
        // caller gives, so it is escaped for the attribute it lands in.
        let template = String(decoding: PackageResources.index_html, as: UTF8.self)
        return Data(
            template.replacingOccurrences(of: csrfPlaceholder, with: escapedAttribute(csrfToken))
                .replacingOccurrences(of: libraryPlaceholder, with: escapedAttribute(libraryKey)).utf8)
    }

    /// Where the page names the library it was made for (`WebApp.libraryKey`).
    static let libraryPlaceholder = "{{library-key}}"

    /// `text` made safe inside a double- or single-quoted HTML attribute.
    static func escapedAttribute(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

/// One file served as it was compiled in, with a strong ETag over its bytes.
struct WebAsset: Sendable {
    /// The bytes sent.
    let body: Data
    /// The Content-Type header.
    let contentType: String
    /// A strong ETag: the bytes' length and 64-bit FNV-1a hash, quoted.
    ///
    /// An ETag only has to change when the bytes do, and these bytes change only with a
    /// new build; FNV-1a does that in a few lines without a crypto library (none ships
    /// with the toolchain on Linux). Computed once, when the asset is first served.
    let etag: String

    init(_ bytes: [UInt8], contentType: String) {
        body = Data(bytes)
        self.contentType = contentType
        etag = "\"\(bytes.count)-\(String(FNV1a.hash(bytes), radix: 16))\""
    }

    /// True when `ifNoneMatch` (the request's If-None-Match header) names this version,
    /// so a 304 without the body will do.
    ///
    /// If-None-Match compares weakly (RFC 9110, 13.1.2): `W/"x"` matches `"x"`, and `*`
    /// matches anything.
    func isCurrent(for ifNoneMatch: String?) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch.split(separator: ",").contains { part in
            let tag = part.trimmingCharacters(in: .whitespaces)
            return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == etag
        }
    }
}
