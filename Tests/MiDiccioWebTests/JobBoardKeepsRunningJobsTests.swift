import Testing

@testable import MiDiccioWeb

/// The job board forgets old jobs past its capacity, but never one still running: its page
/// is polling it, and a 404 would tell the user the server was restarted.
@Suite("The job board keeps running jobs")
struct JobBoardKeepsRunningJobsTests {
    @Test("past its capacity the oldest finished job is forgotten, a running one never")
    func runningJobsStay() {
        let board = JobBoard()
        board.update("running", phase: "Importing", done: 1, total: 10, unit: "rows")
        for index in 0..<150 {
            board.update("done\(index)", phase: "Importing", done: 1, total: 1, unit: "rows")
            board.finish("done\(index)")
        }
        #expect(board.progress("running")?.finished == false)
        #expect(board.progress("done0") == nil)
        #expect(board.progress("done149")?.finished == true)
    }
}
