import Foundation
import MiDiccioKit

/// The Study page: the next card to study, answers and their undo, and the progress
/// charts (SVG made here, so the page needs no script or style of its own to draw them).
extension WebApp {
    /// `GET api/study?tag=&extraNew=N&extraFrom=M`: the first card of today's queue (null when nothing
    /// is due), how many are due and new now, when the next word falls due, and the daily
    /// limits. `extraNew` lets N new words in beyond what was left of today's limit when
    /// they were asked for, with M new words studied today (`studiedNew` then); each new
    /// word studied since counts against them (the page's "more new words", as `midiccio
    /// study --new`). `now` is this computer's time: the page counts the wait for
    /// `nextDue` from it, not from its own clock, which may differ (a phone's).
    func studyNext(_ request: HTTPRequest) throws -> HTTPResponse {
        let tag = request.query["tag"].flatMap { $0.isEmpty ? nil : $0 }
        var extraNew = 0
        if let text = request.query["extraNew"], !text.isEmpty {
            guard let value = Int(text), (0...9_999).contains(value) else {
                throw BadRequest(message: "extraNew must be a whole number from 0 to 9999", field: "extraNew")
            }
            extraNew = value
        }
        var extraFrom: Int?
        if let text = request.query["extraFrom"], !text.isEmpty {
            guard let value = Int(text), (0...1_000_000).contains(value) else {
                throw BadRequest(message: "extraFrom must be a whole number from 0 to 1000000", field: "extraFrom")
            }
            extraFrom = value
        }
        let (queue, newPerDay, reviewsPerDay, now) = try pool.withLibrary { library in
            let newPerDay = Int(try library.setting(.newPerDay)) ?? 20
            let reviewsPerDay = Int(try library.setting(.reviewsPerDay)) ?? 200
            let now = library.clock.now()
            var queue = try library.studyQueue(tag: tag, at: now)
            if extraNew > 0 {
                // What was left of the day's limit when the extra words were asked for
                // (`extraFrom`: the new words studied today then), plus them, less the new
                // words studied since: left + extra worked out again at every card never ran
                // out (round 14B). Without `extraFrom`, the day's limit raised by them.
                let studied = queue.studiedToday.new
                let from = extraFrom ?? min(studied, newPerDay)
                let limit = max(0, newPerDay - from) + extraNew - max(0, studied - from)
                queue = try library.studyQueue(tag: tag, newLimit: max(0, limit), at: now)
            }
            return (queue, newPerDay, reviewsPerDay, now)
        }
        let card = queue.cards.first.map { card in
            JSONText.object([("word", WordJSON.object(card.word, pretty: false)), ("study", JSONText.schedule(card.schedule))])
        }
        return .json(
            JSONText.object([
                ("card", card ?? "null"), ("due", String(queue.due.count)), ("new", String(queue.new.count)),
                ("studiedNew", String(queue.studiedToday.new)), ("studiedReviews", String(queue.studiedToday.reviews)),
                ("nextDue", JSONText.time(queue.nextDue)), ("now", JSONText.time(now)), ("newPerDay", String(newPerDay)),
                ("reviewsPerDay", String(reviewsPerDay)), ("dueBeyondLimit", String(queue.dueBeyondLimit)),
            ]))
    }

    /// `POST api/study/limits` with `{"newPerDay": N, "reviewsPerDay": N}` (either or
    /// both): sets the synced daily limits; both are checked before either is stored.
    func studyLimits(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        var changes: [(LibrarySetting, String)] = []
        for setting in [LibrarySetting.newPerDay, .reviewsPerDay] {
            let name = setting == .newPerDay ? "newPerDay" : "reviewsPerDay"
            guard let value = try body.integer(name) else { continue }
            do {
                changes.append((setting, try setting.validated(String(value))))
            } catch LibraryError.invalidWord(let problem) {
                throw BadRequest(message: "\(name) \(problem.message)", field: name)
            }
        }
        guard !changes.isEmpty else { throw BadRequest(message: "send newPerDay or reviewsPerDay", field: "newPerDay") }
        try pool.withLibrary { library in
            for (setting, value) in changes { try library.setSetting(setting, to: value) }
        }
        return try pool.withLibrary { library in
            .json(
                JSONText.object([
                    ("newPerDay", try library.setting(.newPerDay)), ("reviewsPerDay", try library.setting(.reviewsPerDay)),
                ]))
        }
    }

    /// `POST api/study/answer` with `{"id": ID, "grade": "good" or 1-4, "seconds": N}`:
    /// records the answer as this device's review event; answers the new schedule.
    func studyAnswer(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        guard let text = try body.string("id"), let id = WordID(text) else {
            throw BadRequest(message: "id must be a word id", field: "id")
        }
        // The grade as a number (1-4) or as a name ("good").
        let gradeText = (try? body.integer("grade")).map(String.init) ?? (try? body.string("grade")) ?? ""
        guard let grade = ReviewGrade(name: gradeText) else {
            throw BadRequest(message: "grade must be again, hard, good or easy (or 1-4)", field: "grade")
        }
        let seconds = try body.integer("seconds") ?? 0
        guard (0...86_400).contains(seconds) else {
            throw BadRequest(message: "seconds must be a whole number from 0 to 86400", field: "seconds")
        }
        // How many answers the card had when shown (`study.reviews` of `api/study/next`).
        let reviews = try body.integer("reviews")
        let (event, schedule) = try pool.withLibrary { try $0.answer(id, grade: grade, seconds: seconds, expectingReviews: reviews) }
        return .json(
            JSONText.object([
                ("id", JSONText.quote(id.rawValue)), ("study", JSONText.schedule(schedule)),
                // What `api/study/undo` takes to take back this answer and no other.
                ("answer", JSONText.object([("time", String(event.time.milliseconds)), ("grade", JSONText.quote(event.grade.name))])),
            ]))
    }

    /// `POST api/study/undo`: takes back an answer this device gave and has not synced yet,
    /// and names its word. With `{"id", "time", "grade"}` (the `answer` of
    /// `api/study/answer`) that answer alone, as the page sends: the latest by time may be
    /// another program's, or one given days ago. Without a body, the latest. 409 when there
    /// is none, or the answer was synced already.
    func studyUndo(_ request: HTTPRequest) throws -> HTTPResponse {
        let event: ReviewEvent?
        if request.body.isEmpty {
            event = try pool.withLibrary { try $0.undoLastReview() }
        } else {
            let body = try JSONBody(request.body)
            guard let text = try body.string("id"), let id = WordID(text) else {
                throw BadRequest(message: "id must be a word id", field: "id")
            }
            guard let time = try body.integer("time") else { throw BadRequest(message: "time must be given", field: "time") }
            guard let grade = ReviewGrade(name: try body.string("grade") ?? "") else {
                throw BadRequest(message: "grade must be again, hard, good or easy", field: "grade")
            }
            let (undone, wordGone) = try pool.withLibrary { library in
                let answer = ReviewEvent(
                    wordID: id, time: Timestamp(milliseconds: Int64(time)), grade: grade, device: library.deviceID, seconds: 0)
                return (try library.undoReview(answer) ? answer : nil, try library.word(id) == nil)
            }
            event = undone
            // Its word purged meanwhile (Empty Trash elsewhere): 410, and the answers before it
            // can still be undone. "Synced already" was said with no remote set, and the page
            // let go of every earlier answer (found by the exploratory helper, round 23B #6).
            if event == nil && wordGone {
                return .error(410, "not undone: that word was deleted permanently meanwhile (elsewhere), and its answers with it")
            }
            guard event != nil else {
                return .error(
                    409,
                    "not undone: that answer was synced already, or a sync is sending it (other devices count it), or it is no longer here")
            }
        }
        guard let event else {
            // An answer synced already stays; with none at all, sync is beside the point.
            let answered = try pool.withLibrary { try $0.reviewEventCount() } > 0
            return .error(
                409,
                answered
                    ? "nothing to undo: answers already synced, or being sent by a sync, stay, since other devices count them"
                    : "nothing to undo: no word has been answered yet")
        }
        let term = try pool.withLibrary { try $0.word(event.wordID)?.term }
        return .json(
            JSONText.object([
                ("id", JSONText.quote(event.wordID.rawValue)), ("term", JSONText.optional(term)),
                ("grade", JSONText.quote(event.grade.name)),
            ]))
    }

    /// `GET api/stats`: the figures `midiccio stats --json` prints.
    func studyStatsAnswer() throws -> HTTPResponse {
        let stats = try pool.withLibrary { try $0.studyStats() }
        let counts = StudyState.allCases.map { ($0.rawValue, String(stats.counts[$0] ?? 0)) }
        return .json(
            JSONText.object([
                ("reviewsPerDay", "[" + stats.reviewsPerDay.map(dayJSON).joined(separator: ",") + "]"),
                ("forecast", "[" + stats.forecast.map(dayJSON).joined(separator: ",") + "]"),
                ("trueRetention", stats.trueRetention.map { String($0) } ?? "null"),
                ("retentionAnswers", String(stats.retentionAnswers)), ("counts", JSONText.object(counts)),
            ]))
    }

    private func dayJSON(_ day: StudyStats.Day) -> String {
        JSONText.object([("day", JSONText.quote(day.start.iso8601)), ("count", String(day.count))])
    }

    /// `GET study/reviews.svg` (answers a day, the last 30 days) or `study/forecast.svg`
    /// (words falling due, the next 14 days): a bar chart drawn here. Never cached: the
    /// figures change with every answer.
    func studyChart(forecast: Bool) throws -> HTTPResponse {
        let stats = try pool.withLibrary { try $0.studyStats() }
        let days = forecast ? stats.forecast : stats.reviewsPerDay
        let title = forecast ? "Words due, next 14 days" : "Answers a day, last 30 days"
        let labels = days.enumerated().map { index, day in
            // The day of the month in the computer's time zone, as `stats` dates it (the UTC
            // date of a local midnight east of UTC is the day before: round 14B).
            forecast ? (index == 0 ? "today" : "+\(index)") : LocalDay.twoDigits(LocalDay.parts(day.start).tm_mday)
        }
        var response = HTTPResponse(
            status: 200, contentType: "image/svg+xml",
            body: Data(BarChart(title: title, values: days.map(\.count), labels: labels).svg.utf8))
        response.setHeader("Cache-Control", "no-store")
        return response
    }
}

/// A bar chart as an SVG document: numbers and dates only (no user text), colours as
/// attributes (no style element, so the strict CSP holds). Each part also has a class
/// (`chart-bg`, `chart-title`, `chart-label`, `chart-axis`, `bar`) that app.css colours
/// for light and dark pages once the page puts the chart inline.
struct BarChart {
    var title: String
    var values: [Int]
    var labels: [String]

    var svg: String {
        let width = 640.0, height = 240.0, left = 40.0, bottom = 28.0, top = 30.0
        let plotHeight = height - bottom - top
        let most = max(1, values.max() ?? 0)
        let slot = (width - left - 8) / Double(max(1, values.count))
        var parts = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\""
                + " font-family=\"sans-serif\" font-size=\"12\">",
            "<title>\(Self.escaped(title))</title>",
            "<rect width=\"100%\" height=\"100%\" class=\"chart-bg\" fill=\"#ffffff\" rx=\"8\"/>",
            "<text x=\"\(Int(left))\" y=\"18\" class=\"chart-title\" fill=\"#222222\" font-weight=\"bold\">\(Self.escaped(title))</text>",
            "<text x=\"\(Int(left) - 6)\" y=\"\(Int(top) + 4)\" class=\"chart-label\" fill=\"#555555\" text-anchor=\"end\">\(most)</text>",
            "<text x=\"\(Int(left) - 6)\" y=\"\(Int(height - bottom))\" class=\"chart-label\" fill=\"#555555\" text-anchor=\"end\">0</text>",
            "<line x1=\"\(Int(left))\" y1=\"\(Int(height - bottom))\" x2=\"\(Int(width) - 8)\" y2=\"\(Int(height - bottom))\""
                + " class=\"chart-axis\" stroke=\"#888888\"/>",
        ]
        let labelEvery = values.count > 16 ? 5 : 1
        for (index, value) in values.enumerated() {
            let barHeight = Double(value) / Double(most) * plotHeight
            let x = left + Double(index) * slot + slot * 0.15
            let y = height - bottom - barHeight
            parts.append(
                "<rect class=\"bar\" x=\"\(Self.number(x))\" y=\"\(Self.number(y))\" width=\"\(Self.number(slot * 0.7))\""
                    + " height=\"\(Self.number(barHeight))\" fill=\"#1f5fa8\"><title>\(Self.escaped(labels[index])): \(value)</title></rect>"
            )
            if index % labelEvery == 0 || index == values.count - 1, index < labels.count {
                parts.append(
                    "<text x=\"\(Self.number(x + slot * 0.35))\" y=\"\(Int(height) - 10)\" class=\"chart-label\" fill=\"#555555\""
                        + " text-anchor=\"middle\">\(Self.escaped(labels[index]))</text>")
            }
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    private static func number(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
