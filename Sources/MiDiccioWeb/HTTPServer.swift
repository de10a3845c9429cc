import CMicroHTTPD
import Foundation

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Requests and responses

/// One HTTP request as libmicrohttpd parsed it, with its whole body.
public struct HTTPRequest: Sendable {
    /// The method in upper case (`GET`, `POST` ...).
    public var method: String
    /// The path without the query string, percent-decoded by libmicrohttpd.
    public var path: String
    /// Query arguments, decoded; the first value wins when a name repeats.
    public var query: [String: String]
    /// Headers by lower-cased name; the first value wins when a name repeats.
    public var headers: [String: String]
    /// The body (empty for GET).
    public var body: Data
    /// The port the server listens on, for the Host check.
    public var serverPort: UInt16

    /// Makes a request (tests build them without a socket).
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: Data = Data(), serverPort: UInt16 = 0
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
        self.serverPort = serverPort
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// A response: status, headers in order, body.
public struct HTTPResponse: Sendable {
    /// One header line.
    public struct Header: Sendable, Equatable {
        /// Its name.
        public var name: String
        /// Its value.
        public var value: String
    }

    /// The status code.
    public var status: Int
    /// Headers in the order they are sent.
    public var headers: [Header]
    /// The body.
    public var body: Data

    /// Makes a response with `contentType` (nil for none).
    public init(status: Int, contentType: String?, body: Data) {
        self.status = status
        self.headers = contentType.map { [Header(name: "Content-Type", value: $0)] } ?? []
        self.body = body
    }

    /// Adds (or replaces) a header.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.lowercased() == name.lowercased() }
        headers.append(Header(name: name, value: value))
    }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What the server asks of the application: how large a body may be, and an answer.
///
/// Called on libmicrohttpd's threads, several at once, hence `Sendable`.
public protocol HTTPHandler: Sendable {
    /// The largest body, in bytes, accepted for this request; a larger one gets 413
    /// without being read into memory.
    func bodyLimit(method: String, path: String) -> Int
    /// The response to a complete request. Must not throw or trap: every failure is a
    /// response.
    func respond(to request: HTTPRequest) -> HTTPResponse
    /// The 413 answer for a body over `limit` bytes (the server sends it without
    /// reading the body, and without calling `respond`).
    func payloadTooLarge(limit: Int) -> HTTPResponse
    /// Called once a request has ended: its response sent, or its connection gone.
    func requestEnded()
}

extension HTTPHandler {
    /// Most handlers have nothing to do once a response is out.
    public func requestEnded() {}
}

/// Why the server could not start.
public enum HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// Another program already listens on this port.
    case portInUse(host: String, port: UInt16)
    /// The host is not a numeric IPv4 or IPv6 address, or `localhost`.
    case badHost(String)
    /// libmicrohttpd refused to start for another reason.
    case cannotStart(host: String, port: UInt16, reason: String)

    public var description: String {
        switch self {
        case .portInUse(let host, let port):
            let other = port == UInt16.max ? port - 1 : port + 1
            return
                "port \(port) on \(host) is already in use (is MiDiccio already running?); choose another one, for example --port \(other)"
        case .badHost(let host):
            return "cannot listen on '\(host)': give a numeric address such as 127.0.0.1, ::1 or 192.168.1.20"
        case .cannotStart(let host, let port, let reason):
            return "cannot listen on \(host) port \(port): \(reason)"
        }
    }
}

// MARK: - Server

/// An HTTP server on libmicrohttpd: it owns the daemon, which runs while this object lives.
///
/// libmicrohttpd parses HTTP; this class only collects each request's body (up to the
/// handler's limit) and hands complete requests to an `HTTPHandler` on the daemon's
/// own thread pool. `deinit` stops the daemon, waiting for requests in progress.
public final class HTTPServer: @unchecked Sendable {
    /// The port it listens on (the one the kernel chose when asked for port 0).
    public let port: UInt16
    /// The address it listens on, as given.
    public let host: String
    private var daemon: OpaquePointer?
    private let context: Unmanaged<ServerContext>
    private let lock = NSLock()

    /// Starts listening on `host` (numeric address or `localhost`) and `port` (0: any free port).
    ///
    /// Throws `HTTPServerError.portInUse` when the port is taken, so the caller can
    /// name another one.
    public init(host: String, port: UInt16, threads: Int = 4, handler: any HTTPHandler) throws {
        let address = try SocketAddress(host: host, port: port)
        let context = Unmanaged.passRetained(ServerContext(handler: handler, port: port))
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_AUTO.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let daemon = address.withSockaddr { sockaddr in
            midiccio_mhd_start(
                flags, sockaddr, accessHandler, context.toOpaque(), requestCompleted, context.toOpaque(),
                // Headers of a request must fit in 64 KB; bodies are streamed to us.
                64 * 1024, UInt32(max(1, threads)), 30)
        }
        guard let daemon else {
            context.release()
            if address.isInUse() { throw HTTPServerError.portInUse(host: host, port: port) }
            throw HTTPServerError.cannotStart(host: host, port: port, reason: String(cString: strerror(errno)))
        }
        self.daemon = daemon
        self.context = context
        self.host = host
        self.port = port == 0 ? midiccio_mhd_bound_port(daemon) : port
        context.takeUnretainedValue().setPort(self.port)
    }

    /// Stops accepting requests and waits for those in progress. Safe to call twice.
    public func stop() {
        let daemon: OpaquePointer? = lock.withLock {
            defer { self.daemon = nil }
            return self.daemon
        }
        if let daemon { MHD_stop_daemon(daemon) }
    }

    deinit {
        stop()
        context.release()
    }
}

/// What the C callbacks reach through their context pointer.
private final class ServerContext: @unchecked Sendable {
    let handler: any HTTPHandler
    private let lock = NSLock()
    private var boundPort: UInt16

    init(handler: any HTTPHandler, port: UInt16) {
        self.handler = handler
        self.boundPort = port
    }

    func setPort(_ port: UInt16) { lock.withLock { boundPort = port } }
    var port: UInt16 { lock.withLock { boundPort } }
}

/// One request in progress: its headers and the body collected so far.
private final class PendingRequest {
    let limit: Int
    var body = Data()
    var tooLarge = false

    init(limit: Int) { self.limit = limit }
}

// MARK: - C callbacks

/// Called by libmicrohttpd once with the headers, then once per piece of body, then once
/// with no body left: the moment to answer.
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, state in
    guard let cls, let connection, let state, let uploadSize else { return MHD_Result.NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let method = method.map { String(cString: $0) } ?? "GET"
    let path = url.map { String(cString: $0) } ?? "/"

    guard let existing = state.pointee else {
        let limit = context.handler.bodyLimit(method: method, path: path)
        let pending = PendingRequest(limit: limit)
        if let declared = lookup(connection, MHD_ValueKind.HEADER_KIND, "Content-Length").flatMap({ Int($0) }), declared > limit {
            // Answer before reading the body: libmicrohttpd then closes the connection
            // instead of receiving megabytes nobody will keep.
            state.pointee = Unmanaged.passRetained(pending).toOpaque()
            return queue(context.handler.payloadTooLarge(limit: limit), on: connection)
        }
        state.pointee = Unmanaged.passRetained(pending).toOpaque()
        return MHD_Result.YES
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        if !pending.tooLarge, let uploadData {
            if pending.body.count + uploadSize.pointee > pending.limit {
                pending.tooLarge = true
                pending.body = Data()
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                    pending.body.append($0, count: uploadSize.pointee)
                }
            }
        }
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    if pending.tooLarge { return queue(context.handler.payloadTooLarge(limit: pending.limit), on: connection) }
    let request = HTTPRequest(
        method: method, path: path, query: values(connection, MHD_ValueKind.GET_ARGUMENT_KIND),
        headers: values(connection, MHD_ValueKind.HEADER_KIND), body: pending.body, serverPort: context.port)
    return queue(context.handler.respond(to: request), on: connection)
}

/// Releases what the access handler kept for a request, however the request ended.
private let requestCompleted: MHD_RequestCompletedCallback = { cls, _, state, _ in
    if let cls { Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().handler.requestEnded() }
    guard let state, let pending = state.pointee else { return }
    Unmanaged<PendingRequest>.fromOpaque(pending).release()
    state.pointee = nil
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    let created = response.body.withUnsafeBytes { midiccio_mhd_response_copying($0.baseAddress, $0.count) }
    guard let created else { return MHD_Result.NO }
    defer { MHD_destroy_response(created) }
    for header in response.headers {
        _ = MHD_add_response_header(created, header.name, header.value)
    }
    return MHD_queue_response(connection, UInt32(response.status), created)
}

private func lookup(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
    MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
}

/// Collects every value of `kind`; names are lower-cased for headers (HTTP header
/// names are case-insensitive), kept as sent for query arguments.
private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String] {
    let box = ValueBox(lowercaseNames: kind == MHD_ValueKind.HEADER_KIND)
    let unmanaged = Unmanaged.passRetained(box)
    defer { unmanaged.release() }
    _ = midiccio_mhd_each_value(
        connection, kind,
        { cls, _, key, value in
            guard let cls, let key else { return MHD_Result.YES }
            let box = Unmanaged<ValueBox>.fromOpaque(cls).takeUnretainedValue()
            var name = String(cString: key)
            if box.lowercaseNames { name = name.lowercased() }
            if box.values[name] == nil { box.values[name] = value.map { String(cString: $0) } ?? "" }
            return MHD_Result.YES
        }, unmanaged.toOpaque())
    return box.values
}

private final class ValueBox {
    let lowercaseNames: Bool
    var values: [String: String] = [:]
    init(lowercaseNames: Bool) { self.lowercaseNames = lowercaseNames }
}

// MARK: - Socket addresses

/// An IPv4 or IPv6 address and port, ready for bind().
private struct SocketAddress {
    private var storage = sockaddr_storage()
    let isIPv6: Bool

    init(host: String, port: UInt16) throws {
        let name = host.lowercased() == "localhost" ? "127.0.0.1" : host
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            isIPv6 = false
            withUnsafeBytes(of: v4) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        } else if inet_pton(AF_INET6, name.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            isIPv6 = true
            withUnsafeBytes(of: v6) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
        } else {
            throw HTTPServerError.badHost(host)
        }
    }

    private var length: socklen_t {
        socklen_t(isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>) -> T) -> T {
        withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self)) }
    }

    /// True when binding this address fails because something else holds it; asked
    /// after libmicrohttpd failed, which does not say why.
    func isInUse() -> Bool {
        #if canImport(Glibc)
        let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let result = withSockaddr { bind(descriptor, $0, length) }
        return result != 0 && errno == EADDRINUSE
    }
}
