import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The names that really name this computer on the home network: the addresses of its
/// network interfaces, its host name and `HOSTNAME.local` (the name mDNS gives it).
/// `midiccio serve --lan` answers to these and no other name, so a DNS name rebound to
/// the computer's address still gets 421.
public enum MachineNames {
    /// This computer's host name, as `gethostname` has it ("" when unknown).
    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return text(buffer)
    }

    /// The text of a NUL-terminated C buffer.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Every address of every interface that is up, as a Host header writes it
    /// (IPv6 in brackets, without a zone); loopback addresses included.
    public static func interfaceAddresses() -> [String] {
        var first: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&first) == 0 else { return [] }
        defer { freeifaddrs(first) }
        var addresses: [String] = []
        var entry = first
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, current.pointee.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var raw = v4.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                }
                addresses.append(text(buffer))
            case AF_INET6:
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var raw = v6.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                }
                addresses.append("[\(text(buffer))]")
            default: continue
            }
        }
        return addresses
    }

    /// The Host names (lower case, without port) of this computer: loopback names,
    /// interface addresses, the host name and its `.local` form.
    public static func all() -> Set<String> {
        var names = SecurityPolicy.loopbackHostNames.union(interfaceAddresses().map { $0.lowercased() })
        let host = hostName.lowercased()
        if !host.isEmpty {
            names.insert(host)
            let label = host.split(separator: ".").first.map(String.init) ?? host
            names.insert(label)
            names.insert(label + ".local")
        }
        return names
    }

    /// The address a phone on the home network should open: the first IPv4 address of a
    /// private range (192.168/16, 10/8, 172.16/12), else any non-loopback IPv4 address,
    /// else `HOSTNAME.local`.
    public static func pairingHost() -> String {
        let v4 = interfaceAddresses().filter { !$0.hasPrefix("[") && !$0.hasPrefix("127.") }
        let privateRange = v4.first { address in
            let parts = address.split(separator: ".").compactMap { Int($0) }
            guard parts.count == 4 else { return false }
            return parts[0] == 10 || (parts[0] == 192 && parts[1] == 168) || (parts[0] == 172 && (16...31).contains(parts[1]))
        }
        if let address = privateRange ?? v4.first { return address }
        let label = hostName.split(separator: ".").first.map(String.init) ?? ""
        return label.isEmpty ? "localhost" : label.lowercased() + ".local"
    }
}
