import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

@Suite("Times are whole milliseconds everywhere")
struct TimestampTests {
    /// A JSON time as the product notes require: UTC with exactly three fractional digits.
    private static func isThreeDigitUTC(_ text: String) -> Bool {
        text.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z/) != nil
    }

    @Test(
        "a time is written in ISO 8601 UTC with exactly three fractional digits",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"),
            (1, "1970-01-01T00:00:00.001Z"),
            (10, "1970-01-01T00:00:00.010Z"),
            (999, "1970-01-01T00:00:00.999Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_764_000_000_123, "2025-11-24T16:00:00.123Z"),
            (1_795_860_000_120, "2026-11-28T10:00:00.120Z"),
        ])
    func writesThreeDigits(milliseconds: Int64, expected: String) {
        let time = Timestamp(milliseconds: milliseconds)
        #expect(time.iso8601 == expected)
        #expect(Self.isThreeDigitUTC(time.iso8601))
        #expect(Timestamp(iso8601: time.iso8601) == time)
    }

    @Test("random times across three centuries survive writing and reading back")
    func everyMillisecondRoundTrips() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let time = Timestamp(milliseconds: Int64.random(in: -5_000_000_000_000...5_000_000_000_000, using: &generator))
            let text = time.iso8601
            #expect(Self.isThreeDigitUTC(text), "\(text)")
            #expect(Timestamp(iso8601: text) == time, "\(text)")
        }
    }

    @Test(
        "fewer than three fractional digits read as milliseconds",
        arguments: [
            ("2026-11-29T10:00:00Z", Int64(0)),
            ("2026-11-29T10:00:00.1Z", 100),
            ("2026-11-29T10:00:00.12Z", 120),
            ("2026-11-29T10:00:00.123Z", 123),
            ("2026-11-29t10:00:00.005z", 5),
        ])
    func readsShortFractions(text: String, millisecondsIntoSecond: Int64) throws {
        let time = try #require(Timestamp(iso8601: text))
        let whole = try #require(Timestamp(iso8601: "2026-11-29T10:00:00.000Z"))
        #expect(time.milliseconds - whole.milliseconds == millisecondsIntoSecond)
    }

    @Test(
        "a time with four or more fractional digits is refused, not rounded",
        arguments: [
            "2026-11-29T10:00:00.1234Z",
            "2026-11-29T10:00:00.0000Z",
            "2026-11-29T10:00:00.123456Z",
            "2026-11-29T10:00:00.999999999Z",
        ])
    func refusesFinerTimes(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    @Test(
        "text that is not a UTC time is refused",
        arguments: [
            "", "2026-11-29", "2026-11-29T10:00:00.123", "2026-11-29T10:00:00.123+01:00",
            "2026-13-01T00:00:00.000Z", "2025-02-29T00:00:00.000Z", "2026-11-29T24:00:00.000Z",
            "2026-11-29T10:60:00.000Z", "2026-11-29 10:00:00.000Z", "2026-11-29T10:00:00.Z",
            "2026-11-29T10:00:00.123Z ", "x026-11-29T10:00:00.123Z",
        ])
    func refusesMalformedText(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    @Test("a new word takes the clock's time to the millisecond and the store keeps it as an integer")
    func storedAsIntegerMilliseconds() throws {
        try withTemporaryLibrary { fixture in
            fixture.clock.advance(by: 7)
            let now = fixture.clock.now()
            let word = try fixture.library.add(WordContent(term: "reloj")).word
            #expect(word.createdAt == now)
            #expect(word.updatedAt == now)
            let stored = try fixture.library.required(word.id)
            #expect(stored.word.createdAt == now)
            #expect(WordField.allCases.allSatisfy { stored.times[$0] == now })
            for column in ["created_at", "updated_at", "term_time", "deleted_time"] {
                let type = try fixture.library.database.text("SELECT typeof(\(column)) FROM words")
                #expect(type == "integer", "\(column)")
            }
        }
    }

    @Test("every time in a backup file has exactly three fractional digits")
    func backupTimesHaveThreeDigits() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let first = try library.add(WordContent(term: "uno")).word
            fixture.clock.advance(by: 1_001)
            try library.add(WordContent(term: "dos"))
            fixture.clock.advance(by: 10)
            try library.delete([first.id])
            try library.exportBackup(to: fixture.file("backup.json"))

            let object = try JSONSerialization.jsonObject(with: fileBytes(fixture.file("backup.json"))) as? [String: Any]
            let exportedAt = try #require(object?["exportedAt"] as? String)
            #expect(Self.isThreeDigitUTC(exportedAt))
            #expect(Timestamp(iso8601: exportedAt) == fixture.clock.now())
            let entries = try #require(object?["words"] as? [[String: Any]])
            #expect(entries.count == 2)
            var times: [String] = []
            for entry in entries {
                for key in ["createdAt", "updatedAt", "deletedAt"] {
                    if let text = entry[key] as? String { times.append(text) }
                }
            }
            #expect(times.count == 5)
            #expect(times.allSatisfy(Self.isThreeDigitUTC), "\(times)")
        }
    }

    @Test("a backup round trip keeps every time exactly, Trash included")
    func backupRoundTripKeepsTimes() throws {
        try withTemporaryLibrary { fixture in
            let library = fixture.library
            let plain = try library.add(WordContent(term: "uno", meaning: "one")).word
            fixture.clock.advance(by: 1)
            let edited = try library.add(WordContent(term: "dos")).word
            fixture.clock.advance(by: 999)
            try library.edit(edited.id, WordEdit(meaning: "two"))
            fixture.clock.advance(by: 86_400_001)
            let trashed = try library.add(WordContent(term: "tres")).word
            fixture.clock.advance(by: 3)
            try library.delete([trashed.id])
            try library.exportBackup(to: fixture.file("backup.json"))
            let original = try [plain.id, edited.id, trashed.id].map { try #require(try library.word($0)) }

            let (other, _) = try fixture.sibling("other.sqlite", start: Timestamp(milliseconds: 42))
            let report = try other.restoreBackup(from: fixture.file("backup.json"))
            #expect(report.added == 3)
            for word in original {
                let restored = try #require(try other.word(word.id))
                #expect(restored == word)
                #expect(restored.createdAt.milliseconds == word.createdAt.milliseconds)
                #expect(restored.updatedAt.milliseconds == word.updatedAt.milliseconds)
                #expect(restored.deletedAt?.milliseconds == word.deletedAt?.milliseconds)
            }

            // And out again: the second export describes the same words to the character.
            try other.exportBackup(to: fixture.file("again.json"))
            let firstWords = try BackupFile.decode(fileBytes(fixture.file("backup.json")), file: "backup.json")
            let secondWords = try BackupFile.decode(fileBytes(fixture.file("again.json")), file: "again.json")
            #expect(Set(firstWords) == Set(secondWords))
        }
    }

    @Test("an HTTP server's Date reads as the time it names, and other forms do not read")
    func httpDate() {
        #expect(Timestamp(httpDate: "Sun, 06 Nov 1994 08:49:37 GMT")?.milliseconds == 784_111_777_000)
        #expect(Timestamp(httpDate: "Fri, 04 Dec 2026 23:40:05 GMT") == Timestamp(iso8601: "2026-12-04T23:40:05Z"))
        #expect(Timestamp(httpDate: "Thu, 29 Feb 2024 00:00:00 GMT") == Timestamp(iso8601: "2024-02-29T00:00:00Z"))
        for text in [
            "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "",
        ] {
            #expect(Timestamp(httpDate: text) == nil, "\(text)")
        }
    }

    @Test("a Date header sent twice reads as the earlier of its two times; one that does not read, as none")
    func httpDateSentTwice() {
        let one = "Fri, 04 Dec 2026 23:40:05 GMT", two = "Fri, 04 Dec 2026 23:40:09 GMT"
        #expect(Timestamp.earliest(httpDates: one) == Timestamp(httpDate: one))
        #expect(Timestamp.earliest(httpDates: two + ", " + one) == Timestamp(httpDate: one))
        #expect(Timestamp.earliest(httpDates: one + ",  " + two) == Timestamp(httpDate: one))
        for text in [one + ", yesterday", one + ", " + two + " later", "GMT", "", one + ", Sun, 31 Nov 1994 08:49:37 GMT"] {
            #expect(Timestamp.earliest(httpDates: text) == nil, "\(text)")
        }
    }
}
