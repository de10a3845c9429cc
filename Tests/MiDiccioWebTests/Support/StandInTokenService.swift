import Foundation
import MiDiccioKit
import MiDiccioWeb
import Synchronization

/// Google's side of a sign-in, as small as a route test needs: `consent(to:)` does what
/// the consent screen does (a code for the sign-in address, and the address Google sends
/// the browser back to), and `POST /oauth/token` exchanges that code only with the
/// verifier whose S256 challenge the address carried and the same redirect address.
final class StandInTokenService: HTTPHandler {
    private struct Grant {
        var challenge: String
        var redirectURI: String
        var scope: String
    }

    private let grants = Mutex<[String: Grant]>([:])
    /// How many codes were exchanged.
    let exchanges = Mutex(0)

    /// Starts it on a free port of 127.0.0.1.
    static func start() throws -> (service: StandInTokenService, server: HTTPServer) {
        let service = StandInTokenService()
        let server = try HTTPServer(host: "127.0.0.1", port: 0, threads: 2, handler: service)
        return (service, server)
    }

    /// The consent screen's answer to the sign-in at `address`: the redirect address with
    /// a new code and the state handed back (or `error=access_denied` when `deny`).
    func consent(to address: String, deny: Bool = false) -> String {
        let query = Dictionary(
            (URLComponents(string: address)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
        let redirect = query["redirect_uri"] ?? ""
        var answer = URLComponents(string: redirect) ?? URLComponents()
        if deny {
            answer.queryItems = [URLQueryItem(name: "error", value: "access_denied"), URLQueryItem(name: "state", value: query["state"])]
        } else {
            let code = "4/code-" + UUID().uuidString
            grants.withLock {
                $0[code] = Grant(challenge: query["code_challenge"] ?? "", redirectURI: redirect, scope: query["scope"] ?? "")
            }
            answer.queryItems = [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: query["state"])]
        }
        // The path and query, as the browser then asks the server for them.
        return answer.percentEncodedPath + "?" + (answer.percentEncodedQuery ?? "").replacingOccurrences(of: "/", with: "%2F")
    }

    func bodyLimit(method: String, path: String) -> Int { 64 * 1024 }

    func payloadTooLarge(limit: Int, path: String) -> HTTPResponse { HTTPResponse(status: 413, contentType: nil, body: Data()) }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST" else { return answer(405, ["error": "invalid_request"]) }
        let form = Self.form(request.body)
        if request.path.hasSuffix("/revoke") { return answer(200, [:]) }
        guard request.path.hasSuffix("/token"), form["grant_type"] == "authorization_code", let code = form["code"] else {
            return answer(400, ["error": "unsupported_grant_type"])
        }
        let grant = grants.withLock { $0.removeValue(forKey: code) }
        guard let grant, let verifier = form["code_verifier"], (try? GoogleSignIn.challenge(for: verifier)) == grant.challenge,
            form["redirect_uri"] == grant.redirectURI
        else { return answer(400, ["error": "invalid_grant"]) }
        exchanges.withLock { $0 += 1 }
        return answer(
            200,
            [
                "access_token": "access-" + UUID().uuidString, "refresh_token": "refresh-" + UUID().uuidString, "expires_in": 3600,
                "scope": grant.scope, "token_type": "Bearer",
            ])
    }

    private func answer(_ status: Int, _ object: [String: Any]) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "application/json", body: (try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    private static func form(_ body: Data) -> [String: String] {
        var form: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            form[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return form
    }
}
