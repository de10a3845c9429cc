/// Tells UTF-16 text apart from UTF-8 by its first bytes, so that a file saved as UTF-16
/// (Windows Notepad's "Unicode", Excel's "Unicode Text") is named as such instead of being
/// called binary, or not a backup (found by the exploratory helper, round 23A #7).
public enum UTF16Text {
    /// True when `bytes`, a file's first bytes, start with a UTF-16 byte order mark, or
    /// when most of their first 64 pairs of bytes hold one zero byte, always at the same
    /// place (the Latin letters and digits of UTF-16 without a mark).
    public static func looksLike(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(128))
        if head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xFE, 0xFF]) { return true }
        let pairs = head.count / 2
        guard pairs >= 2 else { return false }
        var zeroFirst = 0, zeroSecond = 0
        for index in 0..<pairs {
            let (first, second) = (head[2 * index], head[2 * index + 1])
            if first == 0 && second != 0 { zeroFirst += 1 }
            if second == 0 && first != 0 { zeroSecond += 1 }
        }
        return max(zeroFirst, zeroSecond) * 4 >= pairs * 3
    }

    /// What to do with such a file.
    public static let advice =
        "save it again as UTF-8 (in Excel: \"CSV UTF-8\"; in LibreOffice: the character set \"Unicode (UTF-8)\"; in a text editor: the encoding UTF-8)"
}
