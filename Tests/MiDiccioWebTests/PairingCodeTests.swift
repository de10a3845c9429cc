import Foundation
import MiDiccioWeb
import Testing

/// The QR code of the pairing address, drawn by libqrencode for the terminal and Settings.
@Suite("The pairing QR code")
struct PairingCodeTests {
    let address = "http://192.168.1.20:8080/?token=" + String(repeating: "a1", count: 32)

    @Test("the code has the finder patterns of a QR code and a size the standard allows")
    func codeIsAQRCode() throws {
        let code = try #require(PairingCode(address))
        #expect((code.size - 17) % 4 == 0 && code.size >= 21)
        // The top-left finder pattern: a dark 7x7 ring around a light ring around a dark 3x3.
        let row = (0..<7).map { code.modules[$0] }
        #expect(row == [true, true, true, true, true, true, true])
        #expect(code.modules[code.size + 1] == false)
        #expect(code.modules[3 * code.size + 3] == true)
    }

    @Test("the terminal drawing has one line per two rows of modules, quiet zone included")
    func terminalDrawing() throws {
        let code = try #require(PairingCode(address))
        let lines = code.terminalText.split(separator: "\n")
        #expect(lines.count == (code.size + 8 + 1) / 2)
        #expect(lines.allSatisfy { $0.filter { $0 == "\u{2580}" }.count == code.size + 8 })
    }

    @Test("the SVG has one square per dark module")
    func svgDrawing() throws {
        let code = try #require(PairingCode(address))
        #expect(code.svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(code.svg.components(separatedBy: "h1v1h-1z").count - 1 == code.modules.filter { $0 }.count)
    }
}
