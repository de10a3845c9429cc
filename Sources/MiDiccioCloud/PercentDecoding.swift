/// `%XX` escapes in addresses, decoded without Foundation's `removingPercentEncoding`,
/// which lives in the part of Foundation the everyday binary leaves out (README,
/// "Start-up").
extension StringProtocol {
    /// The text with every `%XX` escape made its byte; nil when a `%` is not followed by
    /// two hexadecimal digits or the bytes are not UTF-8.
    package var percentDecoded: String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The value of one hexadecimal digit, either case.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
