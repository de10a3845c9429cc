import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioSync

/// Rule: signing in again, to another Google account or the same, keeps syncing. The
/// remote reads the same for every account (the app data folder), so what the library
/// kept of the old account's Drive (its index of the files) must go with the sign-in
/// (found by the exploratory helper, round 11: every later sync failed with 404, or found
/// nothing, for good).
@Suite(
    "Signing in to another Google account syncs with that account's Drive",
    .enabled(if: GoogleDriveTests.shouldRun, GoogleDriveTests.skipReason))
struct SigningInToAnotherGoogleAccountTests {
    /// `laptop`'s library signed in again, to the account of `drive`: the same library
    /// file, a Drive of another account behind the same remote; and its first sync.
    private func signIn(_ laptop: TestDevice, to drive: DriveDevices) throws -> (TestDevice, SyncReport) {
        let signedIn = try TestDevice(
            name: laptop.name, path: laptop.path, storage: drive.tenant.storage(.appData, credentials: drive.credentials),
            clock: laptop.clock)
        try signedIn.library.setRemote(.googleDrive(.appData), signedIn: true)
        signedIn.clock.advance(by: 1_000)
        return (signedIn, try signedIn.sync())
    }

    @Test("a laptop signed in again to the account the phone moved to exchanges every word with it", arguments: [false, true])
    func movedToAnotherAccount(busierOldAccount: Bool) throws {
        let old = try GoogleDriveTests.tenant("account-old-\(busierOldAccount)")
        let new = try GoogleDriveTests.tenant("account-new-\(busierOldAccount)")
        try withTemporaryDirectory { directory in
            let oldDrive = try DriveDevices(tenant: old, space: .appData, directory: directory)
            let newDrive = try DriveDevices(tenant: new, space: .appData, directory: directory)
            let laptop = try oldDrive.device("laptop")
            try laptop.library.setRemote(.googleDrive(.appData))
            let onLaptop = try (1...3).map { try laptop.add("portátil \($0)") }
            try laptop.sync()
            if busierOldAccount {
                // More changes in the old account than in the new: the old change token
                // points past everything the new account has.
                for round in 1...6 {
                    _ = try laptop.add("más \(round)")
                    laptop.clock.advance(by: 1_000)
                    try laptop.sync()
                }
            }
            // The phone is in the new account already, with words of its own.
            let phone = try newDrive.device("phone")
            let onPhone = try (1...2).map { try phone.add("teléfono \($0)") }
            try phone.sync()

            // The laptop signs in to the new account.
            let (signedIn, first) = try signIn(laptop, to: newDrive)
            #expect(first.startedOver && first.startedOverAfterSignIn)
            #expect(first.cloudNotes(cloud: "Google Drive").contains { $0.contains("since it was signed in again") })
            for _ in 0..<2 {
                for device in [signedIn, phone] {
                    device.clock.advance(by: 1_000)
                    try device.sync()
                }
            }
            for id in onLaptop + onPhone {
                #expect(try signedIn.has(id), "the laptop has \(id)")
                #expect(try phone.has(id), "the phone has \(id)")
            }
            #expect(try signedIn.everyWord() == phone.everyWord())
        }
    }

    /// The browser signed in to the wrong account, then the right one: the first sync
    /// back said files this device had written were gone and that it was a copy of another
    /// library, took a new id and left a ghost of itself on every device (round 13C).
    /// Signed in to the wrong account, then signed out (`remote remove`, Settings cleared) and
    /// in again to the right one, the careful way: it said it was a copy of another library
    /// file, took a new id and left a ghost of itself (found by the exploratory helper, round
    /// 19A).
    @Test(
        "signed in to another account and back, the laptop goes on where it had got to, under its own id",
        arguments: [false, true])
    func signedInToAnotherAccountAndBack(signedOutBetween: Bool) throws {
        let first = try GoogleDriveTests.tenant("account-back-first-\(signedOutBetween)")
        let other = try GoogleDriveTests.tenant("account-back-other-\(signedOutBetween)")
        try withTemporaryDirectory { directory in
            let firstDrive = try DriveDevices(tenant: first, space: .appData, directory: directory)
            let otherDrive = try DriveDevices(tenant: other, space: .appData, directory: directory)
            let laptop = try firstDrive.device("laptop")
            let phone = try firstDrive.device("phone")
            try laptop.library.setRemote(.googleDrive(.appData))
            _ = try (1...3).map { try laptop.add("portátil \($0)") }
            try firstDrive.syncRounds([laptop, phone])
            let id = laptop.id

            let (inOther, away) = try signIn(laptop, to: otherDrive)
            #expect(away.startedCloud, "a new account: MiDiccio starts there")
            let written = try inOther.add("escrita fuera")
            inOther.clock.advance(by: 1_000)
            try inOther.sync()
            if signedOutBetween { try inOther.library.setRemote(nil) }

            let (back, report) = try signIn(inOther, to: firstDrive)
            #expect(report.previousStateTakenUp, "\(report)")
            #expect(report.newIdentity == nil && !report.ownFilesGone, "\(report)")
            #expect(back.id == id)
            phone.clock.advance(by: 1_000)
            try phone.sync()
            #expect(try phone.has(written), "the word written while away reaches the phone")
            #expect(try phone.everyWord() == back.everyWord())
        }
    }

    @Test("signing in again to the same account carries on where the device had got to")
    func signedInAgainToTheSameAccount() throws {
        try withDrive("account-same") { drive in
            let laptop = try drive.device("laptop"), phone = try drive.device("phone")
            try laptop.library.setRemote(.googleDrive(.appData))
            _ = try (1...3).map { try laptop.add("portátil \($0)") }
            try drive.syncRounds([laptop, phone])
            let id = laptop.id

            try laptop.library.setRemote(.googleDrive(.appData), signedIn: true)
            let word = try phone.add("nueva")
            phone.clock.advance(by: 1_000)
            try phone.sync()
            laptop.clock.advance(by: 1_000)
            let report = try laptop.sync()
            #expect(report.pulled == 1 && report.pushed == 0, "only the phone's new word moved")
            #expect(!report.fullUpload && !report.startedOver && laptop.id == id)
            #expect(try laptop.has(word))
        }
    }

    @Test("a laptop signed in to a new, empty account starts MiDiccio there, and a phone that joins finds every word")
    func movedToANewEmptyAccount() throws {
        let old = try GoogleDriveTests.tenant("account-old-empty")
        let new = try GoogleDriveTests.tenant("account-new-empty")
        try withTemporaryDirectory { directory in
            let oldDrive = try DriveDevices(tenant: old, space: .appData, directory: directory)
            let newDrive = try DriveDevices(tenant: new, space: .appData, directory: directory)
            let laptop = try oldDrive.device("laptop")
            try laptop.library.setRemote(.googleDrive(.appData))
            let words = try (1...3).map { try laptop.add("nuevo \($0)") }
            try laptop.sync()

            let (signedIn, first) = try signIn(laptop, to: newDrive)
            #expect(first.startedCloud && !first.startedOver)
            let phone = try newDrive.device("phone")
            try phone.sync()
            for id in words { #expect(try phone.has(id)) }
            // Only the sign-in's first sync may start a cloud: emptied later, it stops.
            let cleaner = new.storage(.appData, credentials: newDrive.credentials)
            for path in try new.files().keys { _ = try cleaner.delete(path) }
            signedIn.clock.advance(by: 1_000)
            #expect(throws: (any Error).self) { try signedIn.sync() }
        }
    }

    /// A sync of the old account renewing its access token wrote the old sign-in back
    /// over the one the person had just made (found by the exploratory helper, round 22B
    /// #2): the library went on with the old account after "Signed in".
    @Test("a sign-in made while a sync of the old account runs is not written over by that sync's renewed access token")
    func aSignInMadeDuringASyncStays() throws {
        let old = try GoogleDriveTests.tenant("renewal-old")
        let new = try GoogleDriveTests.tenant("renewal-new")
        try withTemporaryDirectory { directory in
            let signIn = directory.appendingPathComponent("a.sqlite.google-drive").path
            let oldCredentials = try old.credentials(for: .appData)
            try oldCredentials.save(to: signIn)
            let tokens = GoogleAccessTokens(
                credentials: oldCredentials, path: signIn, service: GoogleTokenService(endpoints: old.endpoints, timeout: 5))
            // Its renewal goes to the file while the file holds its sign-in.
            _ = try tokens.refresh(rejected: nil)
            #expect(try GoogleDriveCredentials.load(from: signIn)?.accessToken != nil)
            // The person signs in to another account; the running sync renews again.
            let newCredentials = try new.credentials(for: .appData)
            try newCredentials.save(to: signIn)
            _ = try tokens.refresh(rejected: try tokens.current())
            let kept = try #require(try GoogleDriveCredentials.load(from: signIn))
            #expect(kept.refreshToken == newCredentials.refreshToken)
            #expect(kept.accessToken == nil, "the old account's access token was written over the new sign-in")
        }
    }
}
