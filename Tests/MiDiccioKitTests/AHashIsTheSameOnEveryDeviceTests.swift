import Testing

@testable import MiDiccioModel

/// The library's digest, a study answer's fuzz and the keys the web app checks are FNV-1a
/// hashes, which every device must compute alike: the published test values hold.
@Suite("A hash is the same on every device")
struct AHashIsTheSameOnEveryDeviceTests {
    @Test("FNV-1a gives the published 64-bit values, added at once or byte by byte")
    func publishedValues() {
        #expect(FNV1a.hash([UInt8]()) == 0xcbf2_9ce4_8422_2325)
        #expect(FNV1a.hash("a".utf8) == 0xaf63_dc4c_8601_ec8c)
        #expect(FNV1a.hash("foobar".utf8) == 0x8594_4171_f739_67e8)
        var pieces = FNV1a()
        pieces.add("foo".utf8)
        for byte in "bar".utf8 { pieces.add(byte) }
        #expect(pieces.value == FNV1a.hash("foobar".utf8))
    }

    @Test("a key is 16 hexadecimal digits, zeros first")
    func sixteenDigits() {
        #expect(UInt64(0xab).sixteenHexDigits == "00000000000000ab")
        #expect(UInt64.max.sixteenHexDigits == "ffffffffffffffff")
    }
}
