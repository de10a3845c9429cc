import Foundation
import MiDiccioCloud
import MiDiccioModel

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Why a PROPFIND answer could not be read. Says what was wrong, never echoes the
/// server's bytes (which could be anything, at any length).
struct WebDAVListingError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What was wrong.
    var message: String
    var description: String { message }
}

/// Reads the answer to a `PROPFIND` with `Depth: 1` (RFC 4918 §9.1): the files directly
/// inside one folder, with their sizes.
///
/// One SAX pass over the bytes, keeping only the entry being read and the entries found
/// so far. Elements are matched by namespace URI (`DAV:`), never by prefix, since
/// servers pick prefixes freely ("D:", "d:", none). Answers that are not WebDAV
/// listings, or that try to exhaust memory or the stack (a document type with entities,
/// deep nesting, endless entries, huge text), are refused with an error.
enum WebDAVListing {
    /// How much of an answer is read before it is refused.
    struct Limits: Sendable, Hashable {
        /// The most bytes in an answer.
        var maxBytes = 32 * 1024 * 1024
        /// The deepest nesting of elements. A listing needs 6 (multistatus, response,
        /// propstat, prop, resourcetype, collection); servers add a few of their own.
        var maxDepth = 64
        /// The most entries (files and folders) in one folder.
        var maxEntries = 200_000
        /// The longest text inside one element that is read (href, status, length).
        var maxTextBytes = 16 * 1024

        /// The limits used unless told otherwise.
        static let standard = Limits()
    }

    /// The request body: asks only for the two properties a listing needs, so the answer
    /// stays small (servers otherwise send every property, locks included).
    static let requestBody = Data(
        """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/></D:prop></D:propfind>

        """.utf8)

    /// The files directly inside the folder whose URL path (percent-decoded, e.g.
    /// "/dav/MiDiccio/devices") is `folderPath`. Sub-folders, the folder itself, entries
    /// whose status is not 2xx and entries outside the folder are left out.
    static func files(in data: Data, folderPath: String, limits: Limits = .standard) throws(WebDAVListingError) -> [CloudEntry] {
        try listing(in: data, folderPath: folderPath, limits: limits).files
    }

    /// The files and the names of the sub-folders directly inside the folder, as `files`
    /// reads them (a collection, or an href ending in a slash, is a folder).
    static func listing(
        in data: Data, folderPath: String, limits: Limits = .standard
    ) throws(WebDAVListingError) -> (files: [CloudEntry], folders: [String]) {
        guard data.count <= limits.maxBytes else {
            throw WebDAVListingError(message: "the listing is larger than \(limits.maxBytes / 1_048_576) MB")
        }
        guard !data.isEmpty else { throw WebDAVListingError(message: "the listing is empty") }
        // A listing has no reason for a document type; refusing one rules out entity
        // expansion ("billion laughs") and external entities whatever the XML library does.
        if data.range(of: Data("<!DOCTYPE".utf8)) != nil || data.range(of: Data("<!ENTITY".utf8)) != nil {
            throw WebDAVListingError(message: "the listing declares a document type, which WebDAV listings never do")
        }
        // FoundationXML on Linux force-unwraps element names it cannot decode as UTF-8,
        // and parses in libxml2's recovery mode: bytes that are not UTF-8 text must
        // never reach it, and the end of the document is checked here (`rootClosed`).
        guard !data.contains(0), String(validating: data, as: UTF8.self) != nil else {
            throw WebDAVListingError(message: "the listing is not UTF-8 text")
        }
        try checkDeclaredEncoding(data)
        let reader = ListingReader(folderPath: normalized(folderPath), limits: limits)
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        let parsed = parser.parse()
        if let error = reader.error { throw error }
        guard parsed else {
            throw WebDAVListingError(message: "the listing is not well-formed XML (line \(parser.lineNumber))")
        }
        guard reader.sawRoot else { throw WebDAVListingError(message: "the listing has no multistatus element") }
        guard reader.rootClosed else { throw WebDAVListingError(message: "the listing stops before its end") }
        return reader.children
    }

    /// Refuses an XML declaration naming an encoding other than UTF-8 (or its ASCII
    /// subset): the bytes were checked as UTF-8.
    private static func checkDeclaredEncoding(_ data: Data) throws(WebDAVListingError) {
        let head = String(decoding: data.prefix(256), as: UTF8.self)
        guard head.hasPrefix("<?xml"), let end = head.range(of: "?>") else { return }
        let declaration = head[..<end.lowerBound].lowercased()
        guard let key = declaration.range(of: "encoding") else { return }
        let rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return }
        let name = rest.dropFirst().prefix { $0 != quote }
        guard ["utf-8", "utf8", "us-ascii", "ascii"].contains(String(name)) else {
            throw WebDAVListingError(message: "the listing is not in UTF-8")
        }
    }

    /// A decoded URL path without trailing slashes ("" for the server's root).
    static func normalized(_ path: String) -> String {
        var path = path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The percent-decoded path of an `href`, which may be a path ("/dav/a%20b") or a
    /// whole URL ("https://host/dav/a%20b"); nil when it is neither.
    static func decodedPath(ofHref href: String) -> String? {
        let text = href.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        let encodedPath: String
        if text.hasPrefix("/") {
            encodedPath = String(text.prefix { $0 != "?" && $0 != "#" })
        } else if let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https"
        {
            encodedPath = components.percentEncodedPath
        } else {
            return nil
        }
        return encodedPath.removingPercentEncoding ?? encodedPath
    }
}

/// The SAX delegate behind `WebDAVListing.files`: a small state machine over the
/// elements that matter, everything else skipped.
private final class ListingReader: NSObject, XMLParserDelegate {
    /// The elements the listing is made of; anything else is `.other`.
    private enum Element {
        case multistatus, response, href, propstat, prop, resourcetype, collection, contentLength, status, other
    }

    /// What one `response` element said.
    private struct Response {
        var href: String?
        var status: String?
        var sawPropstat = false
        var propstatStatus: String?
        var isCollection = false
        var contentLength: String?
        // Properties of the propstat being read; kept only if its status is 2xx.
        var pendingCollection = false
        var pendingLength: String?
        var okPropstat = false
    }

    private let folderPath: String
    private let limits: WebDAVListing.Limits
    private var stack: [Element] = []
    private var response: Response?
    private var text: String?
    private var textBytes = 0
    /// Every entry read, by its decoded path without trailing slashes: which of them are
    /// the folder's children is decided once all are read (`children`).
    private var seen: [(path: String, isFolder: Bool, size: Int)] = []
    private(set) var error: WebDAVListingError?
    private(set) var sawRoot = false
    private(set) var rootClosed = false

    init(folderPath: String, limits: WebDAVListing.Limits) {
        self.folderPath = folderPath
        self.limits = limits
    }

    private func stop(_ parser: XMLParser, _ message: String) {
        if error == nil { error = WebDAVListingError(message: message) }
        parser.abortParsing()
    }

    private func classify(_ name: String, _ namespace: String?, parent: Element?) -> Element {
        guard namespace == "DAV:" else { return .other }
        switch (parent, name) {
        case (nil, "multistatus"): return .multistatus
        case (.multistatus?, "response"): return .response
        case (.response?, "href"): return .href
        case (.response?, "status"): return .status
        case (.response?, "propstat"): return .propstat
        case (.propstat?, "prop"): return .prop
        case (.propstat?, "status"): return .status
        case (.prop?, "resourcetype"): return .resourcetype
        case (.prop?, "getcontentlength"): return .contentLength
        case (.resourcetype?, "collection"): return .collection
        default: return .other
        }
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        guard error == nil else { return }
        guard stack.count < limits.maxDepth else {
            stop(parser, "the listing nests elements deeper than \(limits.maxDepth) levels")
            return
        }
        let element = classify(elementName, namespaceURI, parent: stack.last)
        if stack.isEmpty {
            guard element == .multistatus else {
                stop(parser, "the answer is not a WebDAV listing (its root is not DAV: multistatus)")
                return
            }
            sawRoot = true
        }
        stack.append(element)
        switch element {
        case .response:
            response = Response()
        case .propstat:
            response?.sawPropstat = true
            response?.pendingCollection = false
            response?.pendingLength = nil
        case .collection:
            response?.pendingCollection = true
        case .href, .status, .contentLength:
            text = ""
            textBytes = 0
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard error == nil, text != nil else { return }
        textBytes += string.utf8.count
        guard textBytes <= limits.maxTextBytes else {
            stop(parser, "the listing has an element with more than \(limits.maxTextBytes) bytes of text")
            return
        }
        text? += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard error == nil, let element = stack.popLast() else { return }
        let parent = stack.last
        switch element {
        case .href:
            if response?.href != nil {
                stop(parser, "a listing entry has two hrefs")
                return
            }
            response?.href = text
        case .status where parent == .response:
            response?.status = text
        case .status:
            response?.propstatStatus = text
            response?.okPropstat = Self.isSuccess(text)
        case .contentLength:
            response?.pendingLength = text
        case .propstat:
            guard response?.propstatStatus != nil else {
                stop(parser, "a listing entry has a propstat without a status")
                return
            }
            if var current = response {
                if current.okPropstat {
                    current.isCollection = current.isCollection || current.pendingCollection
                    if let length = current.pendingLength { current.contentLength = length }
                }
                current.propstatStatus = nil
                current.okPropstat = false
                response = current
            }
        case .response:
            finishResponse(parser)
        case .multistatus:
            rootClosed = true
        default:
            break
        }
        if element == .href || element == .status || element == .contentLength { text = nil }
    }

    private func finishResponse(_ parser: XMLParser) {
        guard let current = response else { return }
        response = nil
        guard let href = current.href else {
            stop(parser, "a listing entry has no href")
            return
        }
        guard current.status != nil || current.sawPropstat else {
            stop(parser, "a listing entry has neither a status nor properties")
            return
        }
        if let status = current.status, !Self.isSuccess(status) { return }
        guard let path = WebDAVListing.decodedPath(ofHref: href) else {
            stop(parser, "a listing entry has an href that is not a URL or a path")
            return
        }
        let entryPath = WebDAVListing.normalized(path)
        guard seen.count < limits.maxEntries else {
            stop(parser, "the listing has more than \(limits.maxEntries) entries")
            return
        }
        if current.isCollection || path.hasSuffix("/") {
            seen.append((entryPath, true, 0))
            return
        }
        var size = 0
        if let text = current.contentLength {
            guard let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), value >= 0 else {
                stop(parser, "a listing entry has a size that is not a whole number of bytes")
                return
            }
            size = value
        }
        seen.append((entryPath, false, size))
    }

    /// The files and the sub-folders' names directly inside the folder listed.
    ///
    /// Its entries are those whose path's parent is the folder's path. A server that
    /// names the folder otherwise, its own entry among those listed, is taken at its word
    /// for it: one behind a reverse proxy that maps a sub-path (`/dav/` to `/`) without
    /// rewriting hrefs, or one that ignores case reached with the URL in another case
    /// (`/md` for `/MD`). Every listing read as empty there, and the devices never saw
    /// each other's files (found by the exploratory helper, round 13C). That entry must
    /// end as the folder's path does, ignoring case, whole segments at a time; any other
    /// folder a server lists is ignored, not trusted.
    var children: (files: [CloudEntry], folders: [String]) {
        var base = folderPath
        if !seen.contains(where: { $0.path == folderPath || Self.parent(of: $0.path) == folderPath }),
            let own = seen.first(where: { $0.isFolder && Self.names(folderPath, asItsTail: $0.path) })
        {
            base = own.path
        }
        var files: [CloudEntry] = []
        var folders: [String] = []
        for entry in seen where entry.path != base && Self.parent(of: entry.path) == base {
            let name = String(entry.path.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
            guard !name.isEmpty, name != ".", name != ".." else { continue }
            if entry.isFolder { folders.append(name) } else { files.append(CloudEntry(name: name, size: entry.size)) }
        }
        return (files, folders)
    }

    /// The path above `path` ("" for a top-level one), or nil for one without a slash.
    private static func parent(of path: String) -> String? {
        path.lastIndex(of: "/").map { String(path[..<$0]) }
    }

    /// True when `path`'s segments, ignoring case, are the last of `folder`'s, and there is
    /// at least one.
    private static func names(_ folder: String, asItsTail path: String) -> Bool {
        let tail = path.split(separator: "/").map { $0.lowercased() }
        let whole = folder.split(separator: "/").map { $0.lowercased() }
        return !tail.isEmpty && tail.count <= whole.count && Array(whole.suffix(tail.count)) == tail
    }

    func parser(_ parser: XMLParser, foundCDATA cdataBlock: Data) {
        guard let string = String(data: cdataBlock, encoding: .utf8) else { return }
        self.parser(parser, foundCharacters: string)
    }

    /// True for an HTTP status line with a 2xx code ("HTTP/1.1 200 OK").
    private static func isSuccess(_ line: String?) -> Bool {
        guard let parts = line?.split(separator: " "), parts.count >= 2, let code = Int(parts[1]) else { return false }
        return (200..<300).contains(code)
    }
}
