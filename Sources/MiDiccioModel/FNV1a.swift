/// The 64-bit FNV-1a hash: the same in every process and on every device, which Swift's
/// `Hasher` (seeded per process) is not. What the library's digest, a study answer's
/// fuzz, an asset's ETag and the keys the web app checks a change against are made of.
public struct FNV1a: Sendable {
    /// The hash of the bytes added so far.
    @inlinable public var value: UInt64 { state }
    /// `value`, which the inlined `add` changes.
    @usableFromInline var state: UInt64 = 0xcbf2_9ce4_8422_2325

    /// The hash of no bytes.
    @inlinable public init() {}

    /// Adds one byte.
    @inlinable public mutating func add(_ byte: UInt8) {
        state = (state ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    /// Adds `bytes`, in order.
    @inlinable public mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { add(byte) }
    }

    /// The hash of `bytes`.
    @inlinable public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash = FNV1a()
        hash.add(bytes)
        return hash.value
    }
}

extension UInt64 {
    /// The value as 16 lowercase hexadecimal digits, zeros first: a key or a file name
    /// part of one length whatever the value.
    public var sixteenHexDigits: String {
        let digits = String(self, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
