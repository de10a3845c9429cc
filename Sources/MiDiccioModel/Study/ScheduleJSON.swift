extension JSONText {
    /// A derived schedule as JSON: `state`, `due` (ISO 8601 with ms), `stability`,
    /// `difficulty` and `reviews` (the number of review events); the `study` object of
    /// `show --json` and of the web app's Study page.
    package static func schedule(_ schedule: StudySchedule, spaced: Bool = false) -> String {
        object(
            [
                ("state", quote(schedule.state.rawValue)),
                ("due", schedule.due.map { quote($0.iso8601) } ?? "null"),
                ("stability", schedule.stability.map { String($0) } ?? "null"),
                ("difficulty", schedule.difficulty.map { String($0) } ?? "null"),
                ("reviews", String(schedule.reviews)),
            ], spaced: spaced)
    }
}
