import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioSync

/// Round 23A #5: a backup is the whole library, its settings included. A library set up
/// from a backup studied with the default limits and had no Trash clean-up, silently.
@Suite("A backup carries the library's settings")
struct ABackupCarriesTheLibrarySettingsTests {
    /// A backup of `a` with one word and `study.newPerDay` set to `newPerDay`: its path and text.
    private func backup(of a: TestDevice, newPerDay: String, _ fixture: SyncFixture) throws -> (path: String, text: String) {
        try a.add("perro", meaning: "dog")
        try a.library.setSetting(.newPerDay, to: newPerDay)
        let path = fixture.file("backup.json")
        try a.library.exportBackup(to: path)
        return (path, try String(contentsOfFile: path, encoding: .utf8))
    }

    /// Writes `text` as the backup file `name` and returns its path.
    private func write(_ text: String, as name: String, _ fixture: SyncFixture) throws -> String {
        let path = fixture.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("rule: a new laptop set up from a backup, or from the old library file, takes its settings, and they sync from there")
    func aNewLaptopTakesTheSettings() throws {
        try withSyncFixture { fixture in
            let old = try fixture.device("old")
            try old.add("perro", meaning: "dog")
            try old.library.setSetting(.newPerDay, to: "5")
            try old.library.setSetting(.autoPurgeDays, to: "30")
            try old.library.setSetting(.desiredRetention, to: "0.8")
            let backup = fixture.file("backup.json")
            try old.library.exportBackup(to: backup)

            let laptop = try fixture.device("laptop")
            let report = try laptop.library.restoreBackup(from: backup)
            #expect(report.settingsTaken == ["study.desiredRetention", "study.newPerDay"])
            #expect(try laptop.library.setting(.newPerDay) == "5")
            #expect(try laptop.library.setting(.desiredRetention) == "0.8")
            // The Trash's clean-up is never turned on by a restore: it deletes words for good
            // (round 25B #1). Named, with how to turn it on.
            #expect(report.settingsLeftOut == ["trash.autoPurgeDays = 30"])
            #expect(try laptop.library.setting(.autoPurgeDays) == "off")
            #expect(
                report.settingsNote(dryRun: false)?.contains(
                    "not taken: trash.autoPurgeDays = 30 (the Trash's clean-up deletes words for good, so a restore never turns it on: "
                        + "'midiccio config set trash.autoPurgeDays 30' does)") == true, "\(report.settingsNote(dryRun: false) ?? "")")
            // They reach a device this laptop syncs with.
            let phone = try fixture.device("phone")
            try fixture.syncRounds([laptop, phone])
            #expect(try phone.library.setting(.newPerDay) == "5")

            // From the library file itself, the same.
            let other = try fixture.device("other")
            let fromFile = try other.library.restoreLibraryFile(from: old.path)
            #expect(fromFile.settingsTaken.contains("study.newPerDay"))
            #expect(try other.library.setting(.newPerDay) == "5")
        }
    }

    @Test("rule: a setting changed in the library after the backup's stays; an older one takes the backup's, and a dry run changes none")
    func theLaterSettingWins() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try b.library.setSetting(.reviewsPerDay, to: "70")
            a.clock.advance(by: 1_000)
            try a.add("perro", meaning: "dog")
            try a.library.setSetting(.newPerDay, to: "5")
            try a.library.setSetting(.reviewsPerDay, to: "50")
            let backup = fixture.file("backup.json")
            try a.library.exportBackup(to: backup)
            a.clock.advance(by: 60_000)
            try a.library.setSetting(.newPerDay, to: "8")
            b.clock.advance(by: 120_000)
            try b.library.setSetting(.newPerDay, to: "9")

            // On a, the backup's newPerDay is older: a keeps 8; reviewsPerDay is the same.
            let onA = try a.library.restoreBackup(from: backup)
            #expect(onA.settingsTaken == [])
            #expect(onA.settingsKeptHere == ["study.newPerDay"], "a's later 8 is kept, and said")
            #expect(try a.library.setting(.newPerDay) == "8")
            // On b, reviewsPerDay was set before the backup's: the backup's later 50 wins;
            // b's newPerDay, set later, stays.
            let dry = try b.library.restoreBackup(from: backup, dryRun: true)
            #expect(dry.settingsTaken == ["study.reviewsPerDay"])
            #expect(try b.library.setting(.reviewsPerDay) == "70", "a dry run changes nothing")
            let onB = try b.library.restoreBackup(from: backup, replace: true)
            #expect(onB.settingsTaken == ["study.reviewsPerDay"])
            #expect(try b.library.setting(.reviewsPerDay) == "50")
            #expect(try b.library.setting(.newPerDay) == "9")
        }
    }

    @Test("a backup whose setting holds a value MiDiccio refuses changes nothing and names the setting; an unknown one is left out")
    func badSettingRefused() throws {
        try withSyncFixture { fixture in
            let text = try backup(of: try fixture.device("a"), newPerDay: "5", fixture).text
            let bad = try write(text.replacingOccurrences(of: "\"value\": \"5\"", with: "\"value\": \"lots\""), as: "bad.json", fixture)
            let b = try fixture.device("b")
            #expect {
                try b.library.restoreBackup(from: bad)
            } throws: { error in
                guard case LibraryError.invalidBackup(_, let location, let message) = error else { return false }
                return location == "setting study.newPerDay" && message.contains("0 to 9999")
            }
            #expect(try b.library.list().isEmpty, "nothing restored")
            #expect(try b.library.setting(.newPerDay) == "20")

            // A setting this MiDiccio does not know (a later version's, a name mistyped, one
            // with control characters) is left out, as readers leave out keys they do not know.
            for name in ["study.someday", "study.newperday", "study\\u001b[2J"] {
                let unknown = try write(
                    text.replacingOccurrences(of: "\"study.newPerDay\"", with: "\"\(name)\""), as: "unknown.json", fixture)
                let report = try b.library.restoreBackup(from: unknown)
                #expect(report.settingsTaken.isEmpty && report.settingsLeftOut.isEmpty, "\(name)")
            }
            #expect(try SyncStore(b.library).settings(pendingOnly: true).isEmpty)
            #expect(try b.library.setting(.newPerDay) == "20")
        }
    }

    @Test("rule: a backup's setting dated far after this computer's clock is left out, and named")
    func settingAheadLeftOut() throws {
        try withSyncFixture { fixture in
            let text = try backup(of: try fixture.device("a"), newPerDay: "8", fixture).text
            let settings = try #require(text.range(of: "\"settings\""))
            let stamp = try #require(
                text.range(of: #""time": "[^"]*""#, options: .regularExpression, range: settings.upperBound..<text.endIndex))
            let ahead = try write(
                text.replacingCharacters(in: stamp, with: #""time": "2999-01-01T00:00:00.000Z""#), as: "ahead.json", fixture)
            let b = try fixture.device("b")
            let report = try b.library.restoreBackup(from: ahead)
            #expect(report.settingsLeftOut == ["study.newPerDay = 8"])
            #expect(report.settingsNote(dryRun: false) == "not taken, dated far after this computer's clock: study.newPerDay = 8")
            #expect(try b.library.setting(.newPerDay) == "20")
            // It would have beaten every later change, on every device (round 25B #2).
            b.clock.advance(by: 1_000)
            try b.library.setSetting(.newPerDay, to: "25")
            #expect(try b.library.setting(.newPerDay) == "25")
        }
    }

    @Test("rule: a hand-edited backup giving a setting another value at the same time and writer still leaves every device agreeing")
    func sameStampOtherValueConverges() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            let text = try backup(of: a, newPerDay: "5", fixture).text
            let edited = try write(text.replacingOccurrences(of: "\"value\": \"5\"", with: "\"value\": \"7\""), as: "edited.json", fixture)
            #expect(try b.library.restoreBackup(from: edited).settingsTaken == ["study.newPerDay"])
            try fixture.syncRounds([a, b])
            #expect(try a.library.setting(.newPerDay) == b.library.setting(.newPerDay), "round 25B #4: they disagreed for good")
        }
    }

    @Test("a library file refused for a bad setting is named as itself, not as the temporary backup made of it")
    func libraryFileRefusalNamesTheFile() throws {
        try withSyncFixture { fixture in
            let old = try fixture.device("old")
            try old.add("perro", meaning: "dog")
            try old.library.setSetting(.newPerDay, to: "5")
            try old.library.writing { try old.library.database.run("UPDATE settings SET value = 'abc' WHERE key = 'study.newPerDay'") }
            let b = try fixture.device("b")
            #expect {
                try b.library.restoreLibraryFile(from: old.path)
            } throws: { error in
                guard case LibraryError.invalidBackup(let file, let location, _) = error else { return false }
                return file == old.path && location == "setting study.newPerDay"
            }
            #expect(try b.library.list().isEmpty)
        }
    }

    @Test("an undo of a restore names the settings it took, which it leaves")
    func undoNamesTheSettings() throws {
        try withSyncFixture { fixture in
            let saved = try backup(of: try fixture.device("a"), newPerDay: "5", fixture).path
            let b = try fixture.device("b")
            try b.add("gato", meaning: "cat")
            #expect(try b.library.restoreBackup(from: saved).settingsTaken == ["study.newPerDay"])
            let undone = try b.library.undoRestore()
            #expect(undone.settingsTaken == ["study.newPerDay"])
            #expect(undone.settingsLeftByUndoNote?.contains("stay as they are: study.newPerDay") == true)
            #expect(try b.library.setting(.newPerDay) == "5")
        }
    }
}
