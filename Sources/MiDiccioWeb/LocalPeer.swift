#if canImport(Glibc)
import Glibc
#endif

/// Who is at the other end of a connection made from this computer.
///
/// A server on 127.0.0.1 is reachable by every account of the computer, not only by the
/// person who started it: on a shared machine another user could read the library, or
/// point its sync at a folder of theirs (found by the exploratory helper, round 7). On
/// Linux the kernel's table of TCP sockets (`/proc/net/tcp` and `tcp6`) names the user
/// owning each one, the client's socket among them; `HTTPServer` answers 403 to a
/// connection whose client belongs to another user (root excepted, who can read the
/// library anyway). A client on another machine is not in the table: `serve --lan` and
/// `--host` keep their pairing token for those. Elsewhere nothing is known, and nothing
/// is refused.
enum LocalPeer {
    /// True when the client end of the connected TCP socket `fd` is a socket of this
    /// computer owned by another user than this process's (and not by root).
    static func isAnotherUser(_ fd: Int32) -> Bool {
        #if canImport(Glibc)
        guard fd >= 0, let peer = port(of: fd, getpeername), let ours = port(of: fd, getsockname) else { return false }
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = read(table), let owner = owner(in: text, clientPort: peer, serverPort: ours) else { continue }
            return owner != geteuid() && owner != 0
        }
        return false
        #else
        return false
        #endif
    }

    /// True when the client of the connected TCP socket `fd` runs on this computer: it
    /// came over loopback, or from the very address it reached (a browser on this
    /// computer opening its network address). A phone on the network is not. Elsewhere
    /// than Linux, or when the socket cannot be asked, every client counts as this
    /// computer's, as before the question was asked.
    static func isThisComputer(_ fd: Int32) -> Bool {
        #if canImport(Glibc)
        guard fd >= 0, let peer = address(of: fd, getpeername), let ours = address(of: fd, getsockname) else { return true }
        return sameComputer(client: peer, server: ours)
        #else
        return true
        #endif
    }

    /// True when a client at address `client` (4 or 16 bytes) of a server reached at
    /// `server` is this computer: a loopback address (127.0.0.0/8, ::1, or either mapped
    /// into IPv6) or the server's own address.
    static func sameComputer(client: [UInt8], server: [UInt8]) -> Bool {
        func plain(_ address: [UInt8]) -> [UInt8] {
            // An IPv4 address mapped into IPv6 (::ffff:a.b.c.d) is that IPv4 address.
            if address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF, address[11] == 0xFF {
                return Array(address[12...])
            }
            return address
        }
        let client = plain(client), server = plain(server)
        if client.count == 4, client[0] == 127 { return true }
        if client.count == 16, client == [UInt8](repeating: 0, count: 15) + [1] { return true }
        return client == server
    }

    /// The user id of the socket in `table` (the text of `/proc/net/tcp` or `tcp6`) whose
    /// local port is `clientPort` and whose remote port is `serverPort`: the client's own
    /// socket of a connection to a server on `serverPort`. Nil when there is none.
    static func owner(in table: String, clientPort: UInt16, serverPort: UInt16) -> UInt32? {
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // sl, local_address, rem_address, st, tx_queue:rx_queue, tr:tm->when, retrnsmt, uid, ...
            guard fields.count > 7, let local = hexPort(fields[1]), let remote = hexPort(fields[2]) else { continue }
            if local == clientPort && remote == serverPort, let uid = UInt32(fields[7]) { return uid }
        }
        return nil
    }

    /// The port of an `ADDRESS:PORT` field, the port in hexadecimal.
    private static func hexPort(_ field: Substring) -> UInt16? {
        guard let colon = field.lastIndex(of: ":") else { return nil }
        return UInt16(field[field.index(after: colon)...], radix: 16)
    }

    #if canImport(Glibc)
    /// The port `get` (`getpeername` or `getsockname`) gives for `fd`, IPv4 or IPv6.
    private static func port(
        of fd: Int32, _ get: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> UInt16? {
        endpoint(of: fd, get)?.port
    }

    /// The IP address `get` (`getpeername` or `getsockname`) gives for `fd`: 4 bytes for
    /// IPv4, 16 for IPv6.
    private static func address(
        of fd: Int32, _ get: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> [UInt8]? {
        endpoint(of: fd, get)?.address
    }

    /// The port and IP address `get` gives for `fd`, IPv4 or IPv6; nil for another family.
    private static func endpoint(
        of fd: Int32, _ get: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32
    ) -> (port: UInt16, address: [UInt8])? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let got = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { get(fd, $0, &length) } }
        guard got == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    (UInt16(bigEndian: pointer.pointee.sin_port), withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) })
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    (UInt16(bigEndian: pointer.pointee.sin6_port), withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) })
                }
            }
        default:
            return nil
        }
    }

    /// The whole text of a file of `/proc` (whose size `stat` does not tell), or nil.
    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
    #endif
}
