import CErrorPages
import CMicroHTTPD
import Dispatch
import Foundation
import MiDiccioFiles
import Synchronization

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
    /// True when the request came over TLS (HTTPS).
    public var isSecure: Bool
    /// True when the client runs on this computer (`LocalPeer.isThisComputer`), not on a
    /// phone or another computer of the network.
    public var fromThisComputer: Bool

    /// Makes a request (tests build them without a socket).
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
        body: Data = Data(), serverPort: UInt16 = 0, isSecure: Bool = false, fromThisComputer: Bool = true
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
        self.serverPort = serverPort
        self.isSecure = isSecure
        self.fromThisComputer = fromThisComputer
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
    /// A body sent from a file instead of `body` (a download of any size).
    public var file: FileBody?

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

/// A response body sent from an open file as libmicrohttpd reads it, so a download of any
/// size costs no memory. The file may be removed once this is made: the open descriptor
/// keeps its content until the body is sent.
public final class FileBody: Sendable {
    private let descriptor: Int32
    /// The bytes sent, from the file's start.
    public let size: Int
    private let handedOver = Atomic<Bool>(false)

    /// Opens the file at `path` for sending.
    public init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileError(path: path, reason: "cannot be read (\(FileSystem.errorText(errno)))") }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let reason = FileSystem.errorText(errno)
            close(descriptor)
            throw FileError(path: path, reason: "cannot be read (\(reason))")
        }
        self.descriptor = descriptor
        size = Int(status.st_size)
    }

    /// The descriptor, handed over once: whoever takes it closes it.
    func take() -> Int32? {
        handedOver.exchange(true, ordering: .acquiringAndReleasing) ? nil : descriptor
    }

    deinit {
        if !handedOver.load(ordering: .acquiring) { close(descriptor) }
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
    func payloadTooLarge(limit: Int, path: String) -> HTTPResponse
    /// Called once a request has ended: its response sent, or its connection gone.
    func requestEnded()
    /// The answer that refuses `request` from its headers alone (its body is empty
    /// here and not yet read), or nil to read the body and call `respond`. The server
    /// asks it as soon as the headers have arrived, so a request that would be refused
    /// anyway costs no memory for its body.
    func refusal(before request: HTTPRequest) -> HTTPResponse?
    /// The answer the server itself sends (400 for a broken address, 414 for a long one,
    /// 431 for too many header bytes): `status` and a sentence saying why. A handler
    /// adds its usual headers.
    func serverError(_ status: Int, _ reason: String) -> HTTPResponse
}

extension HTTPHandler {
    /// Most handlers have nothing to do once a response is out.
    public func requestEnded() {}
    /// A handler without access rules reads every body (up to its limit).
    public func refusal(before request: HTTPRequest) -> HTTPResponse? { nil }
    /// A plain-text answer.
    public func serverError(_ status: Int, _ reason: String) -> HTTPResponse {
        var response = HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Data((reason + "\n").utf8))
        response.setHeader("Connection", "close")
        return response
    }
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
/// libmicrohttpd parses HTTP; this class checks each request as soon as its headers are
/// in (the handler's `refusal(before:)`, the body limit), then collects its body (up to
/// the handler's limit, at no less than a minimum rate) and hands complete requests to an
/// `HTTPHandler` on the daemon's own thread pool. `deinit` stops the daemon, waiting for
/// requests in progress.
public final class HTTPServer: @unchecked Sendable {
    /// What one server accepts; the defaults are those of `midiccio serve`.
    public struct Limits: Sendable {
        /// Connections open at once, over all clients. libmicrohttpd's own default is
        /// about 1,000 (what `select` can watch); the server polls with epoll, so the
        /// real bound is the number of open files, raised at start when it is lower.
        /// Near it, the connections idle longest are dropped to make room
        /// (`IdleConnections`).
        public var connections = 4_000
        /// Connections open at once from one address: a browser opens about six.
        public var perAddress = 64
        /// Seconds a connection may stay silent before it is closed.
        public var idleTimeout = 20
        /// The slowest a body may arrive, in bytes per second, averaged from its headers
        /// on; a body slower than that is dropped once `rateGrace` seconds have passed.
        public var minimumRate = 2_048
        /// Seconds a body may take before its rate is judged.
        public var rateGrace = 10.0
        /// The bytes the request line and headers may take together; more gets 431.
        public var headerBytes = 32 * 1024
        /// The longest address (request target); longer gets 414.
        public var targetBytes = 8 * 1024

        /// The defaults.
        public init() {}
    }

    /// The port it listens on (the one the kernel chose when asked for port 0), known
    /// before the first connection is accepted.
    public let port: UInt16
    /// The address it listens on, as given.
    public let host: String
    /// True when it speaks HTTPS.
    public let usesTLS: Bool
    private var daemon: OpaquePointer?
    private let context: Unmanaged<ServerContext>
    private let lock = NSLock()
    private let idleConnections: IdleConnections

    /// Starts listening on `host` (numeric address or `localhost`) and `port` (0: any free port).
    ///
    /// `tls` holds a certificate and its private key, both PEM text, for HTTPS.
    /// Throws `HTTPServerError.portInUse` when the port is taken, so the caller can
    /// name another one.
    public init(
        host: String, port: UInt16, threads: Int = 4, limits: Limits = Limits(),
        tls: (certificate: String, key: String)? = nil, handler: any HTTPHandler
    ) throws {
        let address = try SocketAddress(host: host, port: port)
        // The socket is bound here, not by libmicrohttpd: the port the kernel chose is
        // then known before any connection can be accepted, and a taken port is told
        // from other failures by errno.
        let listener = try address.listening(backlog: 1024)
        let boundPort = port == 0 ? SocketAddress.port(of: listener) : port
        Self.raiseOpenFileLimit(to: limits.connections + 64)
        midiccio_mhd_set_error_page_maker(errorPageMaker)
        let idle = IdleConnections(limit: max(1, limits.connections))
        let context = Unmanaged.passRetained(
            ServerContext(handler: handler, port: boundPort, limits: limits, usesTLS: tls != nil, idle: idle))
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_AUTO.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let cLimits = midiccio_mhd_limits(
            // Room for the request line and headers, which the access handler then
            // checks against its own, smaller limits (so its 414 and 431 carry the
            // handler's headers), and for reading the body in pieces.
            memory_limit: (limits.headerBytes + limits.targetBytes) * 2 + 64 * 1024,
            threads: UInt32(max(1, threads)), timeout: UInt32(max(1, limits.idleTimeout)),
            connections: UInt32(max(1, limits.connections)), per_address: UInt32(max(1, limits.perAddress)))
        let daemon = midiccio_mhd_start(
            flags, listener, accessHandler, context.toOpaque(), requestCompleted, context.toOpaque(), uriLogger, connectionNotice, cLimits,
            tls?.certificate, tls?.key)
        guard let daemon else {
            close(listener)
            context.release()
            let reason = tls == nil ? String(cString: strerror(errno)) : "the TLS certificate or key was refused"
            throw HTTPServerError.cannotStart(host: host, port: boundPort, reason: reason)
        }
        self.daemon = daemon
        self.context = context
        self.host = host
        self.port = boundPort
        self.usesTLS = tls != nil
        self.idleConnections = idle
    }

    /// How many connections this server has dropped for being idle while it was near its
    /// connection limit.
    public var droppedIdleConnections: Int { idleConnections.droppedCount }

    /// Raises this process's soft limit on open files to `wanted` (at most the hard
    /// limit): each connection is one open file.
    private static func raiseOpenFileLimit(to wanted: Int) {
        #if canImport(Glibc)
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        #endif
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
    let port: UInt16
    let limits: HTTPServer.Limits
    let usesTLS: Bool
    let idle: IdleConnections
    /// Who each open connection's client is (`LocalPeer`), found at its first request:
    /// an idle connection costs no look-up.
    private let peers = Mutex([UInt: Peer]())

    /// Who is at the other end of a connection.
    struct Peer {
        /// Another user of this computer.
        var isForeign: Bool
        /// A client on this computer, not a phone of the network.
        var isThisComputer: Bool
    }

    /// Who the client of `connection` (`key`) is, looked up once per connection.
    func peer(_ key: UInt, socket: Int32) -> Peer {
        if let known = peers.withLock({ $0[key] }) { return known }
        let answer = Peer(isForeign: LocalPeer.isAnotherUser(socket), isThisComputer: LocalPeer.isThisComputer(socket))
        peers.withLock { $0[key] = answer }
        return answer
    }

    /// Forgets a closed connection.
    func closed(_ key: UInt) { peers.withLock { _ = $0.removeValue(forKey: key) } }

    init(handler: any HTTPHandler, port: UInt16, limits: HTTPServer.Limits, usesTLS: Bool, idle: IdleConnections) {
        self.handler = handler
        self.port = port
        self.limits = limits
        self.usesTLS = usesTLS
        self.idle = idle
    }
}

/// One request in progress: its headers and the body collected so far.
private final class PendingRequest {
    let limit: Int
    var body = Data()
    /// Bytes of body received, and when its headers arrived (for the rate check).
    var received = 0
    let started = DispatchTime.now().uptimeNanoseconds

    init(limit: Int) { self.limit = limit }
}

/// What the URI logger leaves in a request's state for the access handler: a bad
/// address (400) or an overlong one (414). Addresses of two statics, never released.
nonisolated(unsafe) private var badTargetMark: UInt8 = 0
nonisolated(unsafe) private var longTargetMark: UInt8 = 0

// MARK: - C callbacks

/// Hears of each connection opened and closed, for `IdleConnections`.
private let connectionNotice: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let connection else { return }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let key = UInt(bitPattern: connection)
    if code == MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_STARTED {
        // For libmicrohttpd's own error pages, which know only the connection.
        socketContext?.pointee = cls
        context.idle.opened(key, socket: midiccio_mhd_connection_fd(connection), now: DispatchTime.now().uptimeNanoseconds)
    } else {
        context.idle.closed(key)
        context.closed(key)
    }
}

/// Sees each request's target before libmicrohttpd decodes it, which would cut it at an
/// encoded NUL ("/app.js%00.html" would become "/app.js"): a target with a NUL or a
/// broken %-escape is marked for a 400, an overlong one for a 414.
private let uriLogger: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
    cls, uri, _ in
    guard let cls, let uri else { return nil }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let length = strlen(uri)
    if length > context.limits.targetBytes { return withUnsafeMutablePointer(to: &longTargetMark) { UnsafeMutableRawPointer($0) } }
    return uri.withMemoryRebound(to: UInt8.self, capacity: length) { isWellFormedTarget(UnsafeBufferPointer(start: $0, count: length)) }
        ? nil : withUnsafeMutablePointer(to: &badTargetMark) { UnsafeMutableRawPointer($0) }
}

/// True when every %-escape of `target` is two hex digits that do not make a NUL, and
/// no byte is a control character.
func isWellFormedTarget(_ target: UnsafeBufferPointer<UInt8>) -> Bool {
    func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
    var index = 0
    while index < target.count {
        let byte = target[index]
        if byte < 0x20 || byte == 0x7f { return false }
        if byte == UInt8(ascii: "%") {
            guard index + 2 < target.count, let high = hex(target[index + 1]), let low = hex(target[index + 2]),
                high != 0 || low != 0
            else { return false }
            index += 3
        } else {
            index += 1
        }
    }
    return true
}

/// Called by libmicrohttpd once with the headers, then once per piece of body, then once
/// with no body left: the moment to answer.
///
/// Everything that can refuse a request is asked at the first call, before a byte of
/// the body is read: a response queued then makes libmicrohttpd close the connection
/// after it instead of receiving the body.
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, state in
    guard let cls, let connection, let state, let uploadSize else { return MHD_Result.NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let method = method.map { String(cString: $0) } ?? "GET"
    let path = url.map { String(cString: $0) } ?? "/"

    let existing = state.pointee
    let badMark = withUnsafeMutablePointer(to: &badTargetMark) { UnsafeMutableRawPointer($0) }
    let longMark = withUnsafeMutablePointer(to: &longTargetMark) { UnsafeMutableRawPointer($0) }
    guard let existing, existing != badMark, existing != longMark else {
        // A request begins: its connection is no longer idle (once, not per body piece).
        context.idle.busy(UInt(bitPattern: connection))
        if context.peer(UInt(bitPattern: connection), socket: midiccio_mhd_connection_fd(connection)).isForeign {
            state.pointee = nil
            let refusal = "this MiDiccio was started by another user of this computer; start your own with 'midiccio serve'"
            return queue(context.handler.serverError(403, refusal), on: connection)
        }
        if existing == badMark {
            state.pointee = nil
            return queue(context.handler.serverError(400, "the address has a NUL or a broken %-escape in it"), on: connection)
        }
        if existing == longMark {
            state.pointee = nil
            return queue(context.handler.serverError(414, "the address is too long"), on: connection)
        }
        return firstCall(context, connection, method: method, path: path, state: state)
    }
    let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
    if uploadSize.pointee > 0 {
        let size = uploadSize.pointee
        uploadSize.pointee = 0
        pending.received += size
        if pending.received > pending.limit {
            // A chunked body says its size only as it comes: cut it at the limit. Past
            // its headers libmicrohttpd takes no answer, so the connection is closed.
            pending.body = Data()
            return MHD_Result.NO
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - pending.started) / 1e9
        if seconds > context.limits.rateGrace, Double(pending.received) < Double(context.limits.minimumRate) * seconds {
            pending.body = Data()
            return MHD_Result.NO
        }
        if let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { pending.body.append($0, count: size) }
        }
        return MHD_Result.YES
    }
    let request = HTTPRequest(
        method: method, path: path, query: values(connection, MHD_ValueKind.GET_ARGUMENT_KIND),
        headers: values(connection, MHD_ValueKind.HEADER_KIND), body: pending.body, serverPort: context.port, isSecure: context.usesTLS,
        fromThisComputer: context.peer(UInt(bitPattern: connection), socket: midiccio_mhd_connection_fd(connection)).isThisComputer)
    return queue(context.handler.respond(to: request), on: connection)
}

/// The access handler's first call: the headers are in, the body not yet read.
private func firstCall(
    _ context: ServerContext, _ connection: OpaquePointer, method: String, path: String,
    state: UnsafeMutablePointer<UnsafeMutableRawPointer?>
) -> MHD_Result {
    let headers = values(connection, MHD_ValueKind.HEADER_KIND)
    let headerBytes = headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 4 }
    if headerBytes > context.limits.headerBytes {
        return queue(context.handler.serverError(431, "the request's headers are too large"), on: connection)
    }
    let head = HTTPRequest(
        method: method, path: path, query: values(connection, MHD_ValueKind.GET_ARGUMENT_KIND), headers: headers,
        serverPort: context.port, isSecure: context.usesTLS)
    if let refusal = context.handler.refusal(before: head) {
        var refusal = refusal
        refusal.setHeader("Connection", "close")
        return queue(refusal, on: connection)
    }
    let limit = context.handler.bodyLimit(method: method, path: path)
    if let declared = headers["content-length"].flatMap({ Int($0) }), declared > limit {
        return queue(context.handler.payloadTooLarge(limit: limit, path: path), on: connection)
    }
    state.pointee = Unmanaged.passRetained(PendingRequest(limit: limit)).toOpaque()
    return MHD_Result.YES
}

/// Releases what the access handler kept for a request, however the request ended.
private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, state, _ in
    if let cls {
        let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
        if let connection { context.idle.idle(UInt(bitPattern: connection), now: DispatchTime.now().uptimeNanoseconds) }
        context.handler.requestEnded()
    }
    guard let state, let pending = state.pointee else { return }
    Unmanaged<PendingRequest>.fromOpaque(pending).release()
    state.pointee = nil
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    guard let created = libraryResponse(response) else { return MHD_Result.NO }
    defer { MHD_destroy_response(created) }
    return midiccio_mhd_queue(connection, UInt32(response.status), created)
}

/// `response` as libmicrohttpd's response object, which the caller destroys.
private func libraryResponse(_ response: HTTPResponse) -> OpaquePointer? {
    let created: OpaquePointer?
    if let file = response.file, let descriptor = file.take() {
        // libmicrohttpd closes the descriptor with the response; without one, it is ours.
        created = midiccio_mhd_response_from_file(UInt64(file.size), descriptor)
        if created == nil { close(descriptor) }
    } else {
        created = response.body.withUnsafeBytes { midiccio_mhd_response_copying($0.baseAddress, $0.count) }
    }
    guard let created else { return nil }
    for header in response.headers {
        _ = MHD_add_response_header(created, header.name, header.value)
    }
    return created
}

/// Answers in place of libmicrohttpd's own error pages (CErrorPages), with the handler's
/// `serverError`: the request never reached the access handler, so this is the only way
/// such an answer gets the handler's headers.
private let errorPageMaker: midiccio_mhd_error_page_maker = { connection, status in
    guard let connection, let cls = midiccio_mhd_connection_context(connection) else { return nil }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let reason =
        switch status {
        case 431: "the request's headers are too large"
        case 414: "the address is too long"
        case 413: "the request is too large"
        case 400..<500: "the request is malformed"
        default: "the server could not answer this request"
        }
    var page = context.handler.serverError(Int(status), reason)
    page.setHeader("Connection", "close")
    return libraryResponse(page)
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
    /// The address and port as given, for messages.
    let host: String
    let port: UInt16

    init(host: String, port: UInt16) throws {
        self.host = host
        self.port = port
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

    /// A socket bound to this address and listening, non-blocking, closed on exec.
    /// Throws `portInUse` when another program holds the address.
    func listening(backlog: Int32) throws -> Int32 {
        #if canImport(Glibc)
        let descriptor = socket(
            isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        #else
        let descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw HTTPServerError.cannotStart(host: host, port: port, reason: String(cString: strerror(errno))) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        #if !canImport(Glibc)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        #endif
        if withSockaddr({ bind(descriptor, $0, length) }) != 0 || listen(descriptor, backlog) != 0 {
            let failure = errno
            close(descriptor)
            if failure == EADDRINUSE { throw HTTPServerError.portInUse(host: host, port: port) }
            throw HTTPServerError.cannotStart(host: host, port: port, reason: String(cString: strerror(failure)))
        }
        return descriptor
    }

    /// The port a bound socket has (the kernel's choice when bound to port 0).
    static func port(of descriptor: Int32) -> UInt16 {
        var storage = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &size) }
        }
        guard found == 0 else { return 0 }
        return withUnsafeBytes(of: storage) { bytes in
            // sin_port and sin6_port sit at the same offset, in network byte order.
            UInt16(bigEndian: bytes.load(fromByteOffset: 2, as: UInt16.self))
        }
    }
}
