import Foundation
import MiDiccioKit

/// Settings' "Phones and other browsers": the pairing address and its QR code, and the
/// paired browsers, each of which can be signed out.
extension WebApp {
    /// The pairing address and the paired browsers.
    func pairingStatus() -> HTTPResponse {
        let browsers = policy.browsers.list().map { browser in
            JSONText.object([
                ("id", JSONText.quote(browser.id)), ("userAgent", JSONText.quote(browser.userAgent)),
                ("paired", String(Int64(browser.paired * 1000))), ("lastSeen", String(Int64(browser.lastSeen * 1000))),
            ])
        }
        return .json(
            JSONText.object([("address", JSONText.optional(pairingAddress)), ("browsers", "[" + browsers.joined(separator: ",") + "]")]))
    }

    /// The pairing address's QR code as an SVG (404 when the server is for this computer
    /// only). Never cached: it holds the token.
    func pairingCode() -> HTTPResponse {
        guard let address = pairingAddress, let code = PairingCode(address) else {
            return .error(404, "this server is for this computer only; start it with midiccio serve --lan to pair a phone")
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
        return pairingStatus()
    }
}
