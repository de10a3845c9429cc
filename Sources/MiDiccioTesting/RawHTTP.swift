import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What came back: status, headers by lower-cased name, body.
package struct RawResponse {
    /// The status code.
    package var status: Int
    /// The headers, names in lower case.
    package var headers: [String: String]
    /// The body.
    package var body: Data

    /// The body as text.
    package var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object (empty when it is not one).
    package var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }

    /// The `words` array of a JSON answer.
    package var words: [[String: Any]] { json["words"] as? [[String: Any]] ?? [] }
}

/// A deliberately plain HTTP/1.1 client over a blocking socket: it sends exactly the
/// bytes a test writes (a forged Host header, a broken body) and reads until the
/// server closes the connection.
package enum RawHTTP {
    /// No answer could be had.
    package struct Failure: Error {
        /// What went wrong.
        package var message: String
    }

    /// Sends `request` to 127.0.0.1:`port` and reads the answer until the server closes
    /// the connection, waiting at most `timeout` seconds for each read.
    package static func exchange(port: UInt16, request: Data, timeout: Int = 10) throws -> RawResponse {
        let descriptor = try connect(port: port, timeout: timeout)
        defer { close(descriptor) }
        // The server may answer (413) and close before the whole body is sent; a failed
        // send is then expected, and the answer is still there to read.
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return try readAnswer(descriptor)
    }

    /// Reads from `descriptor` until the server closes the connection (or a read times
    /// out) and parses what came as an HTTP answer.
    package static func readAnswer(_ descriptor: Int32) throws -> RawResponse {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return try parse(received)
    }

    /// A blocking socket connected to 127.0.0.1:`port`, from the loopback address
    /// `source` when given (another client, as far as the server's per-address limit
    /// goes); reads wait at most `timeout` seconds.
    package static func connect(port: UInt16, from source: String? = nil, timeout: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(message: "socket failed") }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, size) }
            }
            guard bound == 0 else {
                close(descriptor)
                throw Failure(message: "cannot bind to \(source)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemConnect(descriptor, $0, size) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(message: "cannot connect to port \(port)")
        }
        return descriptor
    }

    /// The answer in `received`, the bytes a server sent.
    package static func parse(_ received: Data) throws -> RawResponse {
        guard let split = received.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(message: "no HTTP answer (got \(received.count) bytes)")
        }
        let head = String(decoding: received[..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return RawResponse(status: status, headers: headers, body: Data(received[split.upperBound...]))
    }
}

/// connect(2), under a name the static `RawHTTP.connect` does not hide.
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ size: socklen_t) -> Int32 {
    connect(descriptor, address, size)
}
