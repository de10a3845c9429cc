import Foundation
import MiDiccioModel
import Testing

/// Study days begin at midnight in the computer's time zone: the daily limits reset there,
/// and `stats` counts and labels each day by it. The everyday binary's Foundation has no
/// time-zone data, so its days began at midnight UTC: at 16:00 in California and at 09:00
/// in Tokyo, with every answer counted and dated on the UTC day (found by the exploratory
/// helper, round 12C). Real processes, each with its own `TZ`: two fixed zones half a day
/// either side of UTC, so that whenever this runs, in one of them the local date is not
/// UTC's.
@Suite("Study days follow the computer's time zone")
final class StudyDaysFollowTheComputersTimeZoneTests {
    let sandbox: Sandbox
    let children: ChildProcesses

    init() throws {
        sandbox = try Sandbox()
        children = try ChildProcesses(in: sandbox)
    }

    @Test(
        "an answer counts on today's local day, labelled with the local date, and the day starts at local midnight",
        arguments: [("Etc/GMT+12", -12), ("Etc/GMT-14", 14)])
    func answersCountOnTheLocalDay(zone: String, hours: Int) throws {
        let library = sandbox.path("\(hours).sqlite")
        let zoned = ["TZ": zone]
        let added = try children.run(["add", "uno", "--library", library], environment: zoned)
        #expect(added.succeeded, "\(added)")
        let id = try #require(added.output.firstMatch(of: /[0-9a-f]{8}-[0-9a-f-]{27}/).map { String($0.output) }, "\(added.output)")
        #expect(try children.run(["review", id, "good", "--library", library], environment: zoned).succeeded)

        let stats = try children.run(["stats", "--json", "--library", library], environment: zoned)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any], "\(stats)")
        let today = try #require((json["reviewsPerDay"] as? [[String: Any]])?.last)
        #expect(today["count"] as? Int == 1)
        // Local midnight is UTC 12:00 at UTC-12, and UTC 10:00 (the day before) at UTC+14.
        let start = try #require((today["day"] as? String).flatMap(Timestamp.init(iso8601:)))
        let midnightUTC = (24 - hours) % 24
        #expect(start.iso8601.contains(String(format: "T%02d:00:00.000Z", midnightUTC)), "\(start.iso8601)")

        let now = Date().addingTimeInterval(Double(hours) * 3_600)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: now)
        let localDate = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        let text = try children.run(["stats", "--library", library], environment: zoned).output
        let lastDay = text.split(separator: "\n").first { $0.contains("  1  #") }
        #expect(lastDay?.contains(localDate) == true, "\(localDate) in: \(text)")
    }

    @Test("the Study page's chart of answers a day labels today's bar with the local day of the month", arguments: [("Etc/GMT-14", 14)])
    func chartLabelsTheLocalDay(zone: String, hours: Int) throws {
        let library = sandbox.path("chart.sqlite")
        let zoned = ["TZ": zone]
        let added = try children.run(["add", "uno", "--library", library], environment: zoned)
        let id = try #require(added.output.firstMatch(of: /[0-9a-f]{8}-[0-9a-f-]{27}/).map { String($0.output) }, "\(added.output)")
        #expect(try children.run(["review", id, "good", "--library", library], environment: zoned).succeeded)
        let server = try children.start(["serve", "--port", "0", "--library", library], environment: zoned)
        let web = try WebClient(serverOutput: server)
        let chart = web.send("GET", "/study/reviews.svg")
        #expect(chart.status == 200)
        // At UTC+14 the local date is UTC's or the day after; the UTC date of the local
        // midnight (what the label said) is the day before it.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let day = calendar.component(.day, from: Date().addingTimeInterval(Double(hours) * 3_600))
        #expect(chart.text.contains(String(format: "%02d: 1", day)), "\(chart.text)")
    }
}
