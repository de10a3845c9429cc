#if canImport(Glibc)
import Dispatch
import Foundation
import Glibc
import Synchronization

/// A TCP proxy on 127.0.0.1 in front of a local server that, on demand, delays the
/// server's answers, drops connections, or answers by itself ("503, retry after 2 s"):
/// a slow, flaky or overloaded server without touching the real one.
///
/// Only ever listens on and connects to the loopback address. It stops by itself when
/// released: the accept loop wakes every 50 ms, and delays sleep in short steps.
final class FaultProxy: @unchecked Sendable {
    private struct Settings {
        var delay: TimeInterval = 0
        var drops = 0
        var answers: [(head: String, body: Data, length: Int?)] = []
        var truncations: [Int] = []
        var losses = 0
        var connections = 0
    }

    /// The port the proxy listens on.
    let port: UInt16
    private let upstreamPort: UInt16
    private let listener: Int32
    private let settings = Mutex(Settings())
    private let stopped = Atomic<Bool>(false)
    private let openSockets = Mutex<Set<Int32>>([])
    private let running = DispatchGroup()

    /// Starts a proxy in front of the server at `upstream` ("http://127.0.0.1:PORT").
    init(upstream: String) throws {
        guard let components = URLComponents(string: upstream), components.host == "127.0.0.1", let port = components.port else {
            throw WebDAVTestSetupError("the proxy only fronts servers on 127.0.0.1, not \(upstream)")
        }
        upstreamPort = UInt16(port)
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw WebDAVTestSetupError("socket failed: \(errno)") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(listener, 64) == 0 else {
            close(listener)
            throw WebDAVTestSetupError("cannot listen on 127.0.0.1: \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        self.port = UInt16(bigEndian: address.sin_port)
        running.enter()
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// The proxy's URL.
    var url: String { "http://127.0.0.1:\(port)" }

    /// Delay before each piece of the server's answers is passed on, in seconds.
    var delay: TimeInterval {
        get { settings.withLock { $0.delay } }
        set { settings.withLock { $0.delay = newValue } }
    }

    /// Closes the next `count` new connections after reading their request, unanswered.
    func dropConnections(_ count: Int) { settings.withLock { $0.drops += count } }

    /// Answers the next new connections with these status lines and headers, one each
    /// ("503 Service Unavailable\r\nRetry-After: 2"), then closes them.
    func answer(_ heads: [String]) { settings.withLock { $0.answers += heads.map { ($0, Data(), nil) } } }

    /// Answers the next new connection with this status line and headers and `body`.
    /// With `claiming`, the `Content-Length` says that many bytes and the connection
    /// closes after `body`: an answer cut part way through, as a reset connection leaves it.
    func answer(_ head: String, body: Data, claiming length: Int? = nil) {
        settings.withLock { $0.answers.append((head, body, length)) }
    }

    /// Passes the next new connection's first request on with the last `count` bytes of
    /// its body left out and its `Content-Length` lowered to match: a server that keeps
    /// less than it was sent. A body without a length goes on as it came.
    func truncateNextBody(by count: Int) { settings.withLock { $0.truncations.append(count) } }

    /// Passes the next `count` new connections' first request on to the server, then
    /// closes them once the server's answer begins, without passing it on: a write that
    /// went through and lost only its answer.
    func loseAnswers(_ count: Int) { settings.withLock { $0.losses += count } }

    /// Connections accepted so far.
    var connections: Int { settings.withLock { $0.connections } }

    /// Stops accepting, closes every connection and waits (at most 5 s) for its threads.
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        for descriptor in openSockets.withLock({ $0 }) { shutdown(descriptor, Int32(SHUT_RDWR)) }
        _ = running.wait(timeout: .now() + 5)
    }

    // MARK: - Connections

    private func acceptLoop() {
        defer {
            close(listener)
            running.leave()
        }
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            track(client)
            running.enter()
            Thread { [self] in
                handle(client)
                running.leave()
            }.start()
        }
    }

    private func handle(_ client: Int32) {
        defer { untrackAndClose(client) }
        let (drop, answer, truncation, lose) = settings.withLock {
            settings -> (Bool, (head: String, body: Data, length: Int?)?, Int?, Bool) in
            settings.connections += 1
            if settings.drops > 0 {
                settings.drops -= 1
                return (true, nil, nil, false)
            }
            if !settings.answers.isEmpty { return (false, settings.answers.removeFirst(), nil, false) }
            if settings.losses > 0 {
                settings.losses -= 1
                return (false, nil, nil, true)
            }
            return (false, nil, settings.truncations.isEmpty ? nil : settings.truncations.removeFirst(), false)
        }
        if drop {
            _ = readRequest(client)
            return
        }
        if let answer {
            _ = readRequest(client)
            sendAll(
                client,
                Data("HTTP/1.1 \(answer.head)\r\nContent-Length: \(answer.length ?? answer.body.count)\r\nConnection: close\r\n\r\n".utf8)
                    + answer.body)
            return
        }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard upstream >= 0 else { return }
        track(upstream)
        defer { untrackAndClose(upstream) }
        var address = Self.loopback(port: upstreamPort)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return }
        if lose {
            // The whole request on, then the first bytes of the answer back, kept here.
            guard sendAll(upstream, readRequest(client)) else { return }
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = recv(upstream, &buffer, buffer.count, 0)
            return
        }
        running.enter()
        Thread { [self] in
            if let truncation, !forwardTruncated(from: client, to: upstream, dropping: truncation) {
                shutdown(upstream, Int32(SHUT_WR))
                running.leave()
                return
            }
            pump(from: client, to: upstream, delayed: false)
            shutdown(upstream, Int32(SHUT_WR))
            running.leave()
        }.start()
        pump(from: upstream, to: client, delayed: true)
        shutdown(client, Int32(SHUT_RDWR))
    }

    private func pump(from source: Int32, to target: Int32, delayed: Bool) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !stopped.load(ordering: .sequentiallyConsistent) {
            let count = recv(source, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            if delayed { pause(delay) }
            guard sendAll(target, Data(buffer[0..<count])) else { return }
        }
    }

    /// Reads one request's head from `source` and sends the request on to `target` with
    /// its body (of a `Content-Length`) short of its last `count` bytes, the length
    /// lowered to match; the bytes left out are read and dropped. A request without a
    /// length (a body in chunks) goes on as it came. False when the connection ended first.
    private func forwardTruncated(from source: Int32, to target: Int32, dropping count: Int) -> Bool {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        func more() -> Bool {
            let read = recv(source, &buffer, buffer.count, 0)
            guard read > 0, !stopped.load(ordering: .sequentiallyConsistent) else { return false }
            received += buffer[0..<read]
            return true
        }
        let pattern = Array("\r\n\r\n".utf8)
        func headEnd() -> Int? {
            guard received.count >= pattern.count else { return nil }
            return (0...(received.count - pattern.count)).first { Array(received[$0..<$0 + pattern.count]) == pattern }
        }
        var end = headEnd()
        while end == nil {
            guard more() else { return false }
            end = headEnd()
        }
        let lines = String(decoding: received[..<end!], as: UTF8.self).components(separatedBy: "\r\n")
        let lengthLine = lines.firstIndex { $0.lowercased().hasPrefix("content-length:") }
        guard let lengthLine, let length = Int(lines[lengthLine].dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
            length > count
        else { return sendAll(target, Data(received)) }
        var head = lines
        head[lengthLine] = "Content-Length: \(length - count)"
        let bodyStart = end! + pattern.count
        while received.count < bodyStart + length {
            guard more() else { return false }
        }
        let kept = Data((head.joined(separator: "\r\n") + "\r\n\r\n").utf8) + Data(received[bodyStart..<bodyStart + length - count])
        return sendAll(target, kept + Data(received[(bodyStart + length)...]))
    }

    /// Sleeps `seconds` in short steps, cut short when the proxy stops.
    private func pause(_ seconds: TimeInterval) {
        var left = seconds
        while left > 0, !stopped.load(ordering: .sequentiallyConsistent) {
            let step = min(left, 0.05)
            Thread.sleep(forTimeInterval: step)
            left -= step
        }
    }

    /// Reads one request's head and its Content-Length body (2 s at most).
    private func readRequest(_ client: Int32) -> Data {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let deadline = Date(timeIntervalSinceNow: 2)
        var needed: Int?
        while Date() < deadline, received.count < 1 << 22 {
            if let needed, received.count >= needed { break }
            var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) >= 0 else { break }
            guard poller.revents != 0 else { continue }
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received.append(contentsOf: buffer[0..<count])
            if needed == nil, let end = received.range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                needed = end.upperBound - received.startIndex + length
            }
        }
        return received
    }

    @discardableResult
    private func sendAll(_ descriptor: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            var offset = 0
            while offset < bytes.count {
                // MSG_NOSIGNAL: a client that gave up must not kill the test process
                // with SIGPIPE.
                let sent = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }
    }

    private func track(_ descriptor: Int32) { _ = openSockets.withLock { $0.insert(descriptor) } }

    private func untrackAndClose(_ descriptor: Int32) {
        _ = openSockets.withLock { $0.remove(descriptor) }
        close(descriptor)
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
#endif
