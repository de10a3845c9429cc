import CQRencode
import Foundation

/// The QR code of a pairing address, made by libqrencode: shown in the terminal by
/// `midiccio serve --lan` and as an SVG in the web app's Settings, so a phone's camera
/// opens the address with its token.
public struct PairingCode: Sendable, Equatable {
    /// Modules per side.
    public let size: Int
    /// Row by row, true for a dark module.
    public let modules: [Bool]
    /// Light modules around the code that scanners need (the standard's quiet zone).
    static let margin = 4

    /// Encodes `text` (error correction level M); nil when libqrencode cannot (too long).
    public init?(_ text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        // Bit 0 of each byte is the module's colour; the other bits say what it is part of.
        modules = (0..<(width * width)).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// True for a dark module; false outside the code (the quiet zone).
    func isDark(_ row: Int, _ column: Int) -> Bool {
        row >= 0 && column >= 0 && row < size && column < size && modules[row * size + column]
    }

    /// The code for a terminal: two rows of modules per line as half blocks, drawn black
    /// on white with ANSI colours so it scans on dark and light terminals alike.
    public var terminalText: String {
        let range = -Self.margin..<(size + Self.margin)
        var lines: [String] = []
        for top in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = ""
            var colours = ""
            for column in range {
                // The upper half block in the top module's colour, on the bottom module's;
                // colours are written only where they change.
                let foreground = isDark(top, column) ? "30" : "97"
                let background = isDark(top + 1, column) ? "40" : "107"
                if colours != foreground + background {
                    colours = foreground + background
                    line += "\u{1B}[\(foreground);\(background)m"
                }
                line += "\u{2580}"
            }
            lines.append(line + "\u{1B}[0m")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The code as an SVG image: one path of unit squares, with its quiet zone.
    public var svg: String {
        var path = ""
        for row in 0..<size {
            for column in 0..<size where isDark(row, column) {
                path += "M\(column + Self.margin) \(row + Self.margin)h1v1h-1z"
            }
        }
        let side = size + 2 * Self.margin
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>

            """
    }
}
