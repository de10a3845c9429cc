#if canImport(Glibc)
import Foundation
import Glibc
import MiDiccioTesting

/// One client connection held open by a test: it sends what the test says, when it
/// says, and can come from any loopback address (127.0.0.2 is another client).
final class OpenSocket: @unchecked Sendable {
    let descriptor: Int32

    /// Connects to 127.0.0.1:`port` from `source`; reads wait at most `timeout` seconds.
    init(port: UInt16, from source: String = "127.0.0.1", timeout: Int = 10) throws {
        descriptor = try RawHTTP.connect(port: port, from: source, timeout: timeout)
    }

    deinit { close(descriptor) }

    /// Sends `text`; false when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool { send(Data(text.utf8)) }

    /// Sends `data`; false when the server has closed the connection.
    @discardableResult
    func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = Glibc.send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    /// Sends `count` bytes of body in pieces of 1 MB, stopping when the server closes the
    /// connection; returns how many bytes went out.
    func sendBody(count: Int, chunked: Bool = false) -> Int {
        let piece = Data(repeating: UInt8(ascii: "x"), count: 1_048_576)
        var sent = 0
        while sent < count {
            let size = min(piece.count, count - sent)
            var data = chunked ? Data((String(size, radix: 16) + "\r\n").utf8) : Data()
            data.append(piece.prefix(size))
            if chunked { data.append(Data("\r\n".utf8)) }
            guard send(data) else { return sent }
            sent += size
        }
        if chunked { send("0\r\n\r\n") }
        return sent
    }

    /// Reads until the server closes the connection (or the read times out) and parses
    /// what came as an HTTP answer.
    func answer() throws -> RawResponse {
        try RawHTTP.readAnswer(descriptor)
    }

    /// True when the server has already closed the connection (checked without waiting).
    var isClosedNow: Bool {
        var buffer = [UInt8](repeating: 0, count: 4_096)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// True when the server has closed the connection (a read returns end of file or an
    /// error before `seconds` pass).
    func isClosed(within seconds: Int) -> Bool {
        var wait = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
    }
}

/// This process's resident memory, from /proc/self/status: now (`VmRSS`) and its peak
/// (`VmHWM`), in bytes.
enum ResidentMemory {
    static func current() -> Int { value("VmRSS") }
    static func peak() -> Int { value("VmHWM") }

    /// Makes the peak start again from the current size (Linux's clear_refs).
    static func resetPeak() { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }

    private static func value(_ name: String) -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}
#endif
