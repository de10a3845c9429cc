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
            #expect(report.settingsTaken == ["study.desiredRetention", "study.newPerDay", "trash.autoPurgeDays"])
            #expect(try laptop.library.setting(.newPerDay) == "5")
            #expect(try laptop.library.setting(.autoPurgeDays) == "30")
            #expect(try laptop.library.setting(.desiredRetention) == "0.8")
            // They reach a device this laptop syncs with.
            let phone = try fixture.device("phone")
            try fixture.syncRounds([laptop, phone])
            #expect(try phone.library.setting(.newPerDay) == "5")

            // From the library file itself, the same.
            let other = try fixture.device("other")
            let fromFile = try other.library.restoreLibraryFile(from: old.path)
            #expect(fromFile.settingsTaken.contains("trash.autoPurgeDays"))
            #expect(try other.library.setting(.autoPurgeDays) == "30")
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

    @Test("a backup whose setting holds a value MiDiccio refuses changes nothing and names the setting; an unknown one is kept")
    func badSettingRefused() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            try a.add("perro", meaning: "dog")
            try a.library.setSetting(.newPerDay, to: "5")
            let backup = fixture.file("backup.json")
            try a.library.exportBackup(to: backup)
            let text = try String(contentsOfFile: backup, encoding: .utf8)
            let bad = fixture.file("bad.json")
            try text.replacingOccurrences(of: "\"value\": \"5\"", with: "\"value\": \"lots\"").write(
                toFile: bad, atomically: true, encoding: .utf8)
            let b = try fixture.device("b")
            #expect {
                try b.library.restoreBackup(from: bad)
            } throws: { error in
                guard case LibraryError.invalidBackup(_, let location, let message) = error else { return false }
                return location == "setting study.newPerDay" && message.contains("0 to 9999")
            }
            #expect(try b.library.list().isEmpty, "nothing restored")
            #expect(try b.library.setting(.newPerDay) == "20")

            // A name with a control character is named escaped, never as it is.
            let named = fixture.file("named.json")
            try text.replacingOccurrences(of: "\"study.newPerDay\"", with: "\"study\\u001b[2J\"").write(
                toFile: named, atomically: true, encoding: .utf8)
            #expect {
                try b.library.restoreBackup(from: named)
            } throws: { error in
                guard case LibraryError.invalidBackup(_, let location, _) = error else { return false }
                return location == "setting \"study\\u001b[2J\"" && !(location ?? "").contains("\u{1B}")
            }

            // A later version's setting is kept as it is, and syncs on.
            let later = fixture.file("later.json")
            try text.replacingOccurrences(of: "\"study.newPerDay\"", with: "\"study.someday\"").write(
                toFile: later, atomically: true, encoding: .utf8)
            let report = try b.library.restoreBackup(from: later)
            #expect(report.settingsTaken == ["study.someday"])
            #expect(try SyncStore(b.library).settings(pendingOnly: true).map(\.key) == ["study.someday"])
        }
    }
}
