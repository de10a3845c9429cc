import Foundation
import MiDiccioKit

/// Settings' "Phones and other browsers": the pairing address and its QR code, and the
/// paired browsers, each of which can be signed out.
extension WebApp {
    /// Whether the server pairs browsers (`lan`), the paired browsers, and for a browser
    /// on this computer a pairing address with a new one-time code in it (`address`,
    /// `code`). A phone or another computer is shown no address: the access token it
    /// would carry (or a code) would let a browser signed out pair itself again.
    func pairingStatus(_ request: HTTPRequest) -> HTTPResponse {
        let browsers = policy.browsers.list().map { browser in
            JSONText.object([
                ("id", JSONText.quote(browser.id)), ("userAgent", JSONText.quote(browser.userAgent)),
                ("paired", String(Int64(browser.paired * 1000))), ("lastSeen", String(Int64(browser.lastSeen * 1000))),
            ])
        }
        var address: String?, code: String?
        if let base = pairingBase, request.fromThisComputer {
            let issued = policy.browsers.issueCode()
            (address, code) = (base + "?token=" + issued, issued)
        }
        return .json(
            JSONText.object([
                ("lan", pairingBase == nil ? "false" : "true"), ("address", JSONText.optional(address)),
                ("code", JSONText.optional(code)), ("browsers", "[" + browsers.joined(separator: ",") + "]"),
            ]))
    }

    /// The pairing address without its query: where a phone opens the server.
    private var pairingBase: String? {
        pairingAddress.map { address in address.firstIndex(of: "?").map { String(address[..<$0]) } ?? address }
    }

    /// The QR code, as an SVG, of the pairing address holding the one-time code `code`
    /// (from `pairingStatus`), for a browser on this computer. 404 when the server is for
    /// this computer only. Never cached: it holds the code.
    func pairingCode(_ request: HTTPRequest) -> HTTPResponse {
        guard let base = pairingBase else {
            return .error(404, "this server is for this computer only; start it with midiccio serve --lan to pair a phone")
        }
        guard request.fromThisComputer else {
            return .error(403, "a pairing code is shown only on the computer MiDiccio runs on")
        }
        guard let sent = request.query["code"], policy.browsers.isLiveCode(sent), let code = PairingCode(base + "?token=" + sent) else {
            return .error(404, "no such pairing code (each pairs one browser, within 15 minutes): open Settings again", field: "code")
        }
        return HTTPResponse(status: 200, contentType: "image/svg+xml", body: Data(code.svg.utf8))
    }

    /// The page the service worker keeps for when this computer cannot be reached.
    static func offlinePage() -> HTTPResponse {
        let name = MachineNames.hostName.split(separator: ".").first.map(String.init) ?? "this computer"
        var response = HTTPResponse(
            status: 200, contentType: "text/html; charset=utf-8", body: AppAssets.offlinePage(computerName: name))
        response.setHeader("Cache-Control", "no-cache")
        return response
    }

    /// Signs out the browser named in the body's `id`.
    func signOutBrowser(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        guard let id = try body.string("id"), policy.browsers.signOut(id) else {
            return .error(404, "no paired browser with that id", field: "id")
        }
        return pairingStatus(request)
    }
}
