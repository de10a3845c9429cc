import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// Where in the user's Drive the files go (issue 11, "remote set gdrive"): the hidden
/// app data folder by default, or a visible folder of My Drive.
@Suite(
    "Where MiDiccio's files are in Google Drive",
    .enabled(if: GoogleDriveTests.shouldRun, GoogleDriveTests.skipReason))
struct GoogleDriveSpacesTests {
    @Test("by default every file is in the hidden app data folder, out of the user's sight")
    func appData() throws {
        try withDrive("appdata") { drive in
            let a = try drive.device("a"), b = try drive.device("b")
            let hund = try a.add("hund", meaning: "dog")
            try drive.syncRounds([a, b])
            #expect(try b.has(hund))
            let files = try drive.tenant.rawFiles()
            #expect(!files.isEmpty)
            #expect(files.allSatisfy { ($0["spaces"] as? [String]) == ["appDataFolder"] }, "\(files.map { $0["spaces"] ?? "" })")
        }
    }

    @Test("with a folder name, the files are in one folder of that name in My Drive, which both devices share")
    func visibleFolder() throws {
        try withDrive("visible", space: .folder("Mis palabras")) { drive in
            let a = try drive.device("a"), b = try drive.device("b")
            let hund = try a.add("hund", meaning: "dog")
            let katze = try b.add("katze", meaning: "cat")
            try drive.syncRounds([a, b])
            #expect(try b.has(hund) && a.has(katze))
            let files = try drive.tenant.rawFiles()
            #expect(files.allSatisfy { ($0["spaces"] as? [String]) == ["drive"] })
            let roots = files.filter { $0["name"] as? String == "Mis palabras" }
            #expect(roots.count == 1)
            let paths = try drive.tenant.files(folder: "Mis palabras").keys
            #expect(paths.contains("midiccio-sync.json"))
            #expect(paths.contains("devices/\(a.id).json") && paths.contains("devices/\(b.id).json"))
        }
    }

    @Test("a sign-in for the app data folder does not reach a visible folder, and says to sign in again")
    func scopeMismatch() throws {
        let tenant = try GoogleDriveTests.tenant("scope")
        let storage = tenant.storage(.folder("Words"), credentials: try tenant.credentials(for: .appData))
        let error = #expect(throws: CloudError.self) { try storage.write("devices/x.json", Data("{}".utf8)) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("sign in again"))
    }
}
