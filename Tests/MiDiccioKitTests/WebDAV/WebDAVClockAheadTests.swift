import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// A computer whose clock is set weeks ahead does not empty the Trash early on every
/// device: through a real WebDAV server (lighttpd), whose answers carry its clock.
@Suite(
    "A clock set ahead does not empty the Trash early through WebDAV",
    .enabled(if: WebDAVTestServer.shouldRun, WebDAVTestServer.skipReason))
struct WebDAVClockAheadTests {
    private static let day: Int64 = 86_400_000

    @Test("a device 40 days ahead of the server keeps a word deleted minutes before, and is told its clock is ahead")
    func clockAheadKeepsTheTrash() throws {
        let server = try WebDAVTestServer.require()
        let address = try server.freshAddress("clock-ahead")
        try withWebDAVDirectory { directory in
            let now = SystemClock().now()
            let correct = try webdavDevice(name: "correct", directory: directory, storage: server.storage(address), start: now)
            let ahead = try webdavDevice(
                name: "ahead", directory: directory, storage: server.storage(address),
                start: Timestamp(milliseconds: now.milliseconds + 40 * Self.day))
            let word = try correct.add("palabra")
            try correct.library.setSetting(.autoPurgeDays, to: "30")
            try correct.sync()
            try ahead.sync()
            _ = try correct.library.delete([word])
            try correct.sync()

            let report = try ahead.sync()
            #expect(try ahead.word(word).isDeleted)
            #expect(try !ahead.library.isPurged(word))
            #expect(report.autoPurged == 0)
            let measured = try #require(report.aheadOfCloud)
            #expect(abs(measured - 40 * Self.day) < 3_600_000)
            try correct.sync()
            #expect(try !correct.library.isPurged(word) && correct.word(word).isDeleted)
        }
    }
}
