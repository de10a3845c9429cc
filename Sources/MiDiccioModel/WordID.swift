/// A word's identity: a random (version 4) UUID in lowercase text, never reused.
public struct WordID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The canonical text, e.g. `3f2a9c1e-8b4d-4e6f-9a1b-2c3d4e5f6a7b`.
    public let rawValue: String

    /// Accepts a UUID in any case and keeps it lowercase; nil when `text` is not a UUID.
    public init?(_ text: String) {
        var bytes = Array(text.utf8)
        guard bytes.withUnsafeMutableBytes(Self.lowercasedIfValid) else { return nil }
        rawValue = String(decoding: bytes, as: UTF8.self)
    }

    /// Lowercases `bytes` in place and says whether they are then an id's text: 36
    /// characters, hex digits with dashes at 8, 13, 18 and 23. (Only A–F lowercase to hex
    /// digits, so this accepts what lowercasing the whole text first would.)
    package static func lowercasedIfValid(_ bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard bytes.count == 36 else { return false }
        for index in 0..<36 {
            var byte = bytes[index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == 0x2D else { return false }
                continue
            }
            if byte >= 0x41 && byte <= 0x46 {
                byte |= 0x20
                bytes[index] = byte
            }
            guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
        }
        return true
    }

    /// Wraps text already checked to be a lowercase UUID (a decoder that checked the
    /// bytes itself), without checking it again.
    package init(uncheckedRawValue text: String) {
        rawValue = text
    }

    /// Makes a fresh random id from `generator`.
    public static func random<G: RandomNumberGenerator>(using generator: inout G) -> WordID {
        // Two 64-bit draws: sixteen one-byte draws cost as much as the rest of an import row.
        var bytes = [UInt8](repeating: 0, count: 16)
        for (half, value) in [generator.next(), generator.next()].enumerated() {
            for index in 0..<8 { bytes[half * 8 + index] = UInt8(truncatingIfNeeded: value >> (8 * UInt64(index))) }
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return WordID(bytes: bytes)!
    }

    /// The id a word purged under this id comes back under when a backup restores it
    /// (a purged id stays gone everywhere): derived from this one, the same on every
    /// device, so two devices restoring one backup, or one restoring it twice, make one
    /// word rather than a new copy each time. Not secret: a mix of the 16 bytes
    /// (SplitMix64's finaliser over both halves, each feeding the other), still a
    /// version 4 UUID.
    public var restoredAfterPurge: WordID {
        func mix(_ value: UInt64) -> UInt64 {
            var z = value &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let old = bytes
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 {
            high = high << 8 | UInt64(old[index])
            low = low << 8 | UInt64(old[8 + index])
        }
        let newHigh = mix(high ^ mix(low))
        let newLow = mix(low ^ newHigh)
        var result = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            result[index] = UInt8(truncatingIfNeeded: newHigh >> (8 * UInt64(7 - index)))
            result[8 + index] = UInt8(truncatingIfNeeded: newLow >> (8 * UInt64(7 - index)))
        }
        result[6] = (result[6] & 0x0F) | 0x40  // version 4
        result[8] = (result[8] & 0x3F) | 0x80  // RFC 4122 variant
        return WordID(bytes: result)!
    }

    /// The id's 16 bytes, as its hex digits spell them: the compact key of the reviews
    /// table, which sorts the same way as the text.
    package var bytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        var text = rawValue
        text.withUTF8 { utf8 in bytes.withUnsafeMutableBytes { Self.pack(UnsafeRawBufferPointer(utf8), into: $0) } }
        return bytes
    }

    /// The id whose 16 bytes are `bytes` (`bytes` read back); nil unless there are 16.
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        rawValue = String(unsafeUninitializedCapacity: 36) { text in
            var at = 0
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    text[at] = 0x2D
                    at += 1
                }
                text[at] = Self.hexDigits[Int(byte >> 4)]
                text[at + 1] = Self.hexDigits[Int(byte & 0x0F)]
                at += 2
            }
            return at
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Packs the 32 hex digits of a checked, lowercase id's text into the first 16 bytes of
    /// `bytes`.
    package static func pack(_ text: UnsafeRawBufferPointer, into bytes: UnsafeMutableRawBufferPointer) {
        var index = 0
        var high: UInt8?
        for character in text where character != 0x2D {
            let value = character <= 0x39 ? character &- 0x30 : character &- 0x57
            if let first = high {
                bytes[index] = first << 4 | value
                index += 1
                high = nil
            } else {
                high = value
            }
        }
    }

    /// Makes a fresh random id from the system's secure generator.
    public static func random() -> WordID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    public var description: String { rawValue }

    public static func < (lhs: WordID, rhs: WordID) -> Bool { lhs.rawValue < rhs.rawValue }
}
