import MiDiccioModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Days and dates in the computer's time zone, from the C library (`localtime_r`,
/// `mktime`), which reads `TZ` and `/etc/localtime` as every program there does. The
/// everyday binary links only the part of Foundation without time-zone data (README
/// "Start-up"), where `Calendar.current` is GMT: study days then began at 16:00 in
/// California and at 09:00 in Tokyo, and `stats` put answers on the wrong day (found by the
/// exploratory helper, round 12C).
public enum LocalDay {
    /// The computer's calendar fields of `time` (year since 1900, month from 0, ...).
    public static func parts(_ time: Timestamp) -> tm {
        // Whole seconds, rounded down also before 1970.
        var seconds = time_t(time.milliseconds / 1000 - (time.milliseconds % 1000 < 0 ? 1 : 0))
        var parts = tm()
        localtime_r(&seconds, &parts)
        return parts
    }

    /// The start of the local day holding `time`: its midnight, or the first moment of the
    /// day where the clocks skip midnight (a change to summer time at 00:00).
    public static func start(of time: Timestamp) -> Timestamp {
        var day = parts(time)
        day.tm_hour = 0
        day.tm_min = 0
        day.tm_sec = 0
        day.tm_isdst = -1
        return start(&day) ?? time
    }

    /// The start of the local day `year`-`month`-`day`, or nil when there is no such date.
    public static func start(year: Int, month: Int, day: Int) -> Timestamp? {
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month - 1)
        fields.tm_mday = Int32(day)
        fields.tm_isdst = -1
        guard let start = start(&fields), fields.tm_mday == Int32(day), fields.tm_mon == Int32(month - 1) else { return nil }
        return start
    }

    /// The local date of `time` as YYYY-MM-DD.
    public static func date(_ time: Timestamp) -> String {
        let fields = parts(time)
        return "\(fields.tm_year + 1900)-\(twoDigits(fields.tm_mon + 1))-\(twoDigits(fields.tm_mday))"
    }

    /// A number below 100 with a leading zero.
    public static func twoDigits(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// `mktime` of local fields (normalising them), as a time; nil when it cannot say.
    private static func start(_ fields: inout tm) -> Timestamp? {
        let seconds = mktime(&fields)
        guard seconds != -1 || fields.tm_year == 69 else { return nil }
        // A midnight the clocks skip becomes the moment after the jump; one they pass
        // twice is the first.
        return Timestamp(milliseconds: Int64(seconds) * 1000)
    }
}
