import Foundation

/// The rules every request passes to reach a route (and, for a write, to run it), and
/// the headers every response carries.
///
/// The threats are those of a local web app: a web page in another tab sending requests
/// to 127.0.0.1 (CSRF), a hostile DNS name rebound to 127.0.0.1 (Host check), and a word
/// that is really HTML (escaping in the page, plus a CSP that would block an injected
/// script anyway).
public struct SecurityPolicy: Sendable {
    /// The per-session token the page carries in a meta tag and sends back in
    /// `X-CSRF-Token` with every POST, PUT and DELETE.
    public let csrfToken: String
    /// When set (serving beyond loopback), every request must carry it as a bearer
    /// token or the `midiccio_token` cookie.
    public let accessToken: String?
    /// The host names (without port) the server answers to.
    public let hostNames: Set<String>
    /// The browsers that traded the access token for a cookie of their own.
    public let browsers: PairedBrowsers

    /// The Content-Security-Policy of every response: only this server's own scripts
    /// and styles, no inline code, no plugins, no framing.
    public static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

    /// What a browser fetches without its cookie when installing the app (the manifest
    /// and its icon are fetched without credentials): they hold nothing of the library.
    public static let publicPaths: Set<String> = ["/manifest.webmanifest", "/icon.svg"]

    /// The name of the cookie that carries the access token after the first visit.
    public static let tokenCookie = "midiccio_token"

    /// Makes the policy for a server bound to `host`. Loopback servers answer to every
    /// loopback name; another host only to itself.
    public init(
        host: String, accessToken: String?, csrfToken: String = SecurityPolicy.randomToken(),
        browsers: PairedBrowsers? = nil
    ) {
        self.csrfToken = csrfToken
        self.accessToken = accessToken
        self.browsers = browsers ?? PairedBrowsers()
        let name = Self.hostHeaderName(host)
        hostNames = Self.loopbackHostNames.contains(name) ? Self.loopbackHostNames : [name]
    }

    /// Makes the policy of a server that answers to exactly `hostNames` (Host header
    /// names without port): `midiccio serve --lan` gives `MachineNames.all()`.
    public init(
        hostNames: Set<String>, accessToken: String?, csrfToken: String = SecurityPolicy.randomToken(),
        browsers: PairedBrowsers? = nil
    ) {
        self.csrfToken = csrfToken
        self.accessToken = accessToken
        self.browsers = browsers ?? PairedBrowsers()
        self.hostNames = Set(hostNames.map { Self.hostHeaderName($0) })
    }

    /// True when `host` is a wildcard address (0.0.0.0 or ::): listening on every
    /// interface, the same as `--lan`.
    public static func isWildcard(_ host: String) -> Bool {
        ["0.0.0.0", "::", "[::]"].contains(host)
    }

    /// `host` as a Host header writes it: lower case, an IPv6 address in brackets
    /// ("[::1]:8080").
    public static func hostHeaderName(_ host: String) -> String {
        let lower = host.lowercased()
        return lower.contains(":") && !lower.hasPrefix("[") ? "[\(lower)]" : lower
    }

    /// True when `host` (an address or name, IPv6 with or without brackets) is one of
    /// this computer's loopback names.
    public static func isLoopback(_ host: String) -> Bool {
        loopbackHostNames.contains(hostHeaderName(host))
    }

    /// The names of this computer's loopback address as a Host header writes them. A
    /// server bound to one of them answers to all: the browser may use any.
    public static let loopbackHostNames: Set<String> = ["127.0.0.1", "localhost", "[::1]"]

    /// 32 random bytes as hex, from the system's secure generator.
    public static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The response that refuses `request` before any route sees it (a foreign Host
    /// header, a missing access token), or nil when it may reach the routes.
    public func accessRefusal(of request: HTTPRequest) -> HTTPResponse? {
        // DNS rebinding: a page from evil.example whose name now points to 127.0.0.1
        // still sends "Host: evil.example:8080".
        guard let host = request.header("host")?.lowercased(), answersTo(host: host, port: request.serverPort, secure: request.isSecure)
        else {
            return .error(421, "this server answers only to its own address; open the address midiccio serve printed")
        }
        if let accessToken, !Self.publicPaths.contains(request.path), !carries(accessToken, request) {
            // A browser opening the app (a phone signed out, or paired before the server was
            // started with a new token) gets a page that says what to do, not the API's JSON
            // as its whole page (found by the exploratory helper, round 13B).
            if request.method == "GET", request.header("accept")?.utf8.firstRange(of: "text/html".utf8) != nil {
                return SignInPage.response(
                    401, title: "This browser is not paired with MiDiccio",
                    message: "MiDiccio on this computer needs its access token. On the computer itself, open the address "
                        + "'midiccio serve' printed (it ends in ?token=...). On a phone, pair it again: scan the code in "
                        + "Settings on the computer (a phone signed out there, or paired before the server was started "
                        + "with a new token, is paired no more).")
            }
            return .error(401, "this server needs its access token: open the address midiccio serve printed (it ends in ?token=...)")
        }
        return nil
    }

    /// True when `host`, a Host header, names this server: one of its names with its
    /// port, or without one when the port is the scheme's own (80, or 443 with TLS),
    /// which browsers leave out.
    public func answersTo(host: String, port: UInt16, secure: Bool = false) -> Bool {
        let defaultPort: UInt16 = secure ? 443 : 80
        return hostNames.contains { host == "\($0):\(port)" || (port == defaultPort && host == $0) }
    }

    /// The response that refuses a request about to change something, or nil when it
    /// may go ahead. Asked once a route has been found for `request`.
    ///
    /// Every method but GET and HEAD counts as a write, so a route added with another
    /// method is guarded without anyone remembering to list it here.
    public func writeRefusal(of request: HTTPRequest) -> HTTPResponse? {
        guard request.method != "GET", request.method != "HEAD" else { return nil }
        // Browsers send Origin on cross-site writes; a page elsewhere is refused even
        // before its (unknowable) CSRF token would be.
        if let origin = request.header("origin"),
            origin.lowercased() != "\(request.isSecure ? "https" : "http")://\(request.header("host")?.lowercased() ?? "")"
        {
            return .error(403, "requests from other sites are refused")
        }
        guard let sent = request.header("x-csrf-token") else {
            // The page always sends one: this is a script, told what it lacks.
            return .error(
                403, "a change needs the page's token in an X-CSRF-Token header (the csrf-token meta tag of the page)", field: "csrf")
        }
        guard Self.constantTimeEqual(sent, csrfToken) else {
            // Said for a person (a page left open while `serve` was started again), not
            // in the header's name: reloading keeps nothing typed, so copy it first. The
            // page takes the new token and sends the request again once (field "csrf").
            return .error(
                403, "this page is out of date (MiDiccio was started again since it opened): copy anything you typed, then reload the page",
                field: "csrf")
        }
        return nil
    }

    /// Adds the headers every response carries.
    public func harden(_ response: inout HTTPResponse) {
        response.setHeader("Content-Security-Policy", Self.contentSecurityPolicy)
        response.setHeader("X-Content-Type-Options", "nosniff")
        response.setHeader("Referrer-Policy", "no-referrer")
        response.setHeader("X-Frame-Options", "DENY")
        response.setHeader("Cross-Origin-Opener-Policy", "same-origin")
        if response.header("Cache-Control") == nil { response.setHeader("Cache-Control", "no-store") }
    }

    /// True when the request carries `token` as a bearer token or cookie.
    private func carries(_ token: String, _ request: HTTPRequest) -> Bool {
        // The printed address ends in ?token=..., Settings' in a one-time code; the page
        // route trades either for a cookie.
        if request.path == "/", request.method == "GET", let sent = request.query["token"],
            Self.constantTimeEqual(sent, token) || browsers.isLiveCode(sent)
        {
            return true
        }
        if let authorization = request.header("authorization"), authorization.hasPrefix("Bearer "),
            Self.constantTimeEqual(String(authorization.dropFirst(7)), token)
        {
            return true
        }
        for part in (request.header("cookie") ?? "").split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            // The cookie holds the browser's own secret (PairedBrowsers), not the token.
            if pair.hasPrefix(Self.tokenCookie + "="), browsers.recognize(String(pair.dropFirst(Self.tokenCookie.count + 1))) {
                return true
            }
        }
        return false
    }

    /// Compares without stopping at the first difference, so timing does not reveal
    /// how much of a guessed token was right.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
