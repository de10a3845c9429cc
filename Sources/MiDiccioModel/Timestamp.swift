#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point in time as whole milliseconds since the Unix epoch (UTC).
///
/// MiDiccio never holds a finer time than a millisecond: the product notes describe a
/// bug where microsecond times were rounded by a round trip through storage and
/// unchanged words moved forward on every sync. Every time in memory, in the store and
/// in files is one of these.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00.000Z.
    public var milliseconds: Int64

    /// Makes a time from milliseconds since the epoch.
    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// The time one millisecond later: the smallest step a MiDiccio time can take.
    public var next: Timestamp { Timestamp(milliseconds: milliseconds + 1) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.milliseconds < rhs.milliseconds
    }

    /// ISO 8601 in UTC with exactly three fractional digits: `2026-11-29T10:00:00.123Z`.
    public var iso8601: String {
        let ms = milliseconds
        var seconds = ms / 1000
        var millis = ms % 1000
        if millis < 0 {
            millis += 1000
            seconds -= 1
        }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = Timestamp.civilDate(fromDays: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":"
            + pad(secondOfDay % 60, 2) + "." + pad(millis, 3) + "Z"
    }

    public var description: String { iso8601 }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z`; returns nil for anything else.
    ///
    /// More than three fractional digits are refused rather than rounded, because a
    /// rounded time is exactly how the product notes' first bug began.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[start..<start + count] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            return value
        }
        func byte(_ index: Int, is expected: UInt8) -> Bool {
            index < bytes.count && bytes[index] == expected
        }
        guard let year = number(0, 4), byte(4, is: 0x2D), let month = number(5, 2), byte(7, is: 0x2D),
            let day = number(8, 2), byte(10, is: 0x54) || byte(10, is: 0x74),
            let hour = number(11, 2), byte(13, is: 0x3A), let minute = number(14, 2),
            byte(16, is: 0x3A), let second = number(17, 2)
        else { return nil }
        var index = 19
        var millis: Int64 = 0
        if byte(index, is: 0x2E) {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                digits += 1
                guard digits <= 3 else { return nil }
                millis = millis * 10 + Int64(bytes[index] - 0x30)
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<3 { millis *= 10 }
        }
        guard index == bytes.count - 1, bytes[index] == 0x5A || bytes[index] == 0x7A else { return nil }
        guard (1...12).contains(month), (1...Timestamp.daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = Timestamp.days(fromCivil: year, month, day)
        milliseconds = ((days * 86_400) + hour * 3600 + minute * 60 + second) * 1000 + millis
    }

    /// Reads an HTTP date in the form servers send (RFC 9110's IMF-fixdate, "Sun, 06 Nov
    /// 1994 08:49:37 GMT"); nil for anything else, the obsolete forms included.
    public init?(httpDate text: String) {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard parts.count == 6, parts[0].count == 4, parts[0].last == ",", parts[5] == "GMT",
            parts[1].count == 2, let day = Int64(parts[1]),
            let month = months.firstIndex(of: String(parts[2])).map({ Int64($0) + 1 }),
            parts[3].count == 4, let year = Int64(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
            let hour = Int64(clock[0]), let minute = Int64(clock[1]), let second = Int64(clock[2]),
            (1...Timestamp.daysIn(month: month, year: year)).contains(day), (0..<24).contains(hour),
            (0..<60).contains(minute), (0..<61).contains(second)
        else { return nil }
        let days = Timestamp.days(fromCivil: year, month, day)
        milliseconds = ((days * 86_400) + hour * 3600 + minute * 60 + min(second, 59)) * 1000
    }

    /// The time an HTTP `Date` header names, or the earliest of those it names when it came
    /// more than once (two proxies each adding one), joined by ", " as HTTP joins repeated
    /// headers; nil when any of them does not read. Read as one, such a header left the
    /// cloud's clock unknown, and the Trash's clean-up counted by a clock 31 days ahead
    /// (found by the exploratory helper, round 24B #2).
    public static func earliest(httpDates header: String) -> Timestamp? {
        if let one = Timestamp(httpDate: header) { return one }
        var earliest: Timestamp?
        for piece in header.split(separator: "GMT") {
            let value = piece.drop { $0 == "," || $0 == " " }
            guard !value.isEmpty else { continue }
            guard let date = Timestamp(httpDate: value + "GMT") else { return nil }
            earliest = min(earliest ?? date, date)
        }
        return header.hasSuffix("GMT") ? earliest : nil
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, after Howard Hinnant's algorithms)

    private static func civilDate(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

/// Where MiDiccio gets the current time; injected so tests can start at t = 0 or skew a device.
public protocol Clock: Sendable {
    /// The current time, in whole milliseconds.
    func now() -> Timestamp
}

/// The machine's real-time clock, truncated to the millisecond.
public struct SystemClock: Clock {
    /// Makes the system clock.
    public init() {}

    public func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(milliseconds: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}
