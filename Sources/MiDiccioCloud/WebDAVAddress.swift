import Foundation
import MiDiccioModel

/// The address of a MiDiccio folder on a WebDAV server, checked and without
/// credentials: `https://cloud.example.com/remote.php/dav/files/ana/MiDiccio`.
///
/// Its text never holds a user name or password, so it is safe to print, store and put
/// in an error message.
public struct WebDAVAddress: Hashable, Sendable, CustomStringConvertible {
    /// The folder's URL: http or https, a host, a path without a trailing slash, no
    /// user, password, query or fragment.
    public let url: URL
    /// The folder's URL path, percent-decoded ("/remote.php/dav/files/ana/MiDiccio").
    public let decodedPath: String

    /// The address as text, the form that is stored and shown.
    public var description: String { url.absoluteString }

    /// "host" or "host:port", for messages about the connection.
    public var hostAndPort: String {
        let host = url.host ?? "?"
        return url.port.map { "\(host):\($0)" } ?? host
    }

    /// `text` with every # and ? after its server name escaped: the URL meant when they are
    /// part of a folder's name. Without a user name or password written into it: the
    /// message shows it.
    /// Said as " (URL)", or "" when there is no path to escape.
    static func escapingMarks(_ text: String) -> String {
        guard let schemeEnd = text.firstRange(of: "://") else { return "" }
        let rest = text[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(of: "/") else { return "" }
        let authority = rest[..<slash]
        let host = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        // Character by character: `replacingOccurrences` would link the older Foundation into
        // the everyday binary (README, "Start-up").
        let path = rest[slash...].map { $0 == "#" ? "%23" : $0 == "?" ? "%3F" : String($0) }.joined()
        return " (" + String(text[..<schemeEnd.upperBound]) + host + path + ")"
    }

    /// Checks `text` and splits any credentials off it.
    ///
    /// Returns the address with the user name and password written into the URL
    /// (`https://ana:secret@host/dav`), which are kept out of the address itself. Throws
    /// a message for people when `text` is not an http or https URL with a host.
    public static func parse(_ text: String) throws(WebDAVAddressError) -> (address: WebDAVAddress, user: String?, password: String?) {
        let trimmed = Self.pathEscaped(text.trimmed)
        guard !trimmed.isEmpty else { throw WebDAVAddressError(message: "the WebDAV URL is empty") }
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased() else {
            throw WebDAVAddressError(
                message: "the WebDAV URL is not a URL; write it like https://cloud.example.com/remote.php/dav/files/NAME/MiDiccio")
        }
        guard scheme == "http" || scheme == "https" else {
            throw WebDAVAddressError(message: "the WebDAV URL must start with https:// or http://, not \(scheme)://")
        }
        guard let host = components.host, !host.isEmpty else {
            throw WebDAVAddressError(message: "the WebDAV URL has no server name; write it like https://cloud.example.com/MiDiccio")
        }
        guard components.query == nil, components.fragment == nil else {
            // A folder whose name holds # or ? is reached with them escaped: said so, the URL
            // was refused with no way on (found by the exploratory helper, round 20B #9).
            throw WebDAVAddressError(
                message: "the WebDAV URL must not have a query (?...) or fragment (#...); a folder whose name holds # or ? is "
                    + "written with them escaped, # as %23 and ? as %3F" + Self.escapingMarks(text.trimmed))
        }
        var clean = URLComponents()
        clean.scheme = scheme
        clean.percentEncodedHost = components.percentEncodedHost
        clean.port = components.port
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        clean.percentEncodedPath = path
        guard let url = clean.url else {
            throw WebDAVAddressError(message: "the WebDAV URL cannot be read; check its spelling")
        }
        guard let decoded = path.percentDecoded, !decoded.utf8.contains(0) else {
            throw WebDAVAddressError(message: "the WebDAV URL's path has a broken %-escape")
        }
        let address = WebDAVAddress(url: url, decodedPath: decoded)
        let user = components.user.flatMap { $0.isEmpty ? nil : $0 }
        let password = components.password.flatMap { $0.isEmpty ? nil : $0 }
        return (address, user, password)
    }

    /// `text` with every byte of its path that a URL cannot hold as it is escaped, and its
    /// `%XX` escapes kept: a browser's address bar shows a folder as `Mi%20Diccio/ñandú`,
    /// and URLComponents, given such a mix, escaped the escapes too (`Mi%2520Diccio`), so
    /// the sync said the folder was not there, or made a second, empty cloud in a folder
    /// named `Mi%20Diccio` (found by the exploratory helper, round 13C). A `%` not followed
    /// by two hexadecimal digits is itself escaped. The scheme, host and credentials are
    /// left as they are.
    static func pathEscaped(_ text: String) -> String {
        guard let scheme = text.utf8.firstRange(of: "://".utf8) else { return text }
        let rest = text.utf8[scheme.upperBound...]
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return text }
        let path = Array(text.utf8[slash...])
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?#[]".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        func isHex(_ byte: UInt8) -> Bool { hex.contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) }
        var escaped: [UInt8] = []
        var index = 0
        while index < path.count {
            let byte = path[index]
            if byte == UInt8(ascii: "%"), index + 2 < path.count, isHex(path[index + 1]), isHex(path[index + 2]) {
                escaped += path[index...index + 2]
                index += 3
                continue
            }
            if allowed.contains(byte) {
                escaped.append(byte)
            } else {
                escaped += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
            index += 1
        }
        return String(decoding: Array(text.utf8[..<slash]) + escaped, as: UTF8.self)
    }

    private init(url: URL, decodedPath: String) {
        self.url = url
        self.decodedPath = decodedPath
    }

    /// The same address from text known to be valid (as stored by `setRemote`); nil
    /// when it is not.
    public init?(checked text: String) {
        guard let parsed = try? Self.parse(text) else { return nil }
        self = parsed.address
    }
}

/// A WebDAV URL that cannot be used, with a message for people. Never includes the URL's
/// password.
public struct WebDAVAddressError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What is wrong.
    public var message: String
    /// The message.
    public var description: String { message }
}
