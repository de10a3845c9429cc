import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Ports of 127.0.0.1 for tests that must name one in advance (a sign-in's fixed
/// callback address), so parallel tests never wait for each other's port.
package enum LoopbackPort {
    /// A port no one listens on now.
    package static func free() throws -> Int {
        let held = try hold()
        close(held.socket)
        return held.port
    }

    /// A socket listening on a free port, as another program holding that port would;
    /// close it when done.
    package static func hold() throws -> (socket: Int32, port: Int) {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 && listen(socket, 1) == 0
            }
        }
        guard bound else {
            close(socket)
            throw ServerScriptError(description: "no free port on 127.0.0.1")
        }
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
        #else
        throw ServerScriptError(description: "holding a port needs Linux")
        #endif
    }
}
