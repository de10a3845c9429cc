import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioCloud
@testable import MiDiccioLibrary
@testable import MiDiccioModel
@testable import MiDiccioOnline
@testable import MiDiccioStore
@testable import MiDiccioSync

/// Rule: each library is one device with a random device id, created with the library,
/// and a name (`--device-name`, default the host name).
@Suite("Each library is a device with its own random id and a name others can see")
struct DeviceIdentityTests {
    @Test("every new library gets its own random device id, kept when it is opened again")
    func randomIDKept() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            #expect(WordID(a.id) != nil, "a UUID: \(a.id)")
            #expect(a.id != b.id)
            #expect(try a.secondConnection().deviceID == a.id)
        }
    }

    @Test("a device is named after the host unless given a name, and other devices see its name")
    func nameSeenByOthers() throws {
        try withSyncFixture { fixture in
            let clock = ManualClock(start: SyncFixture.start)
            let unnamed = try WordLibrary(path: fixture.file("unnamed.sqlite"), clock: clock, environment: [:])
            #expect(try unnamed.deviceName() == ProcessInfo.processInfo.hostName)

            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.library.setDeviceName("Ana's laptop")
            try fixture.syncRounds([a, b])
            let seen = try b.engine.status().devices.first { $0.id == a.id }
            #expect(seen?.name == "Ana's laptop")
            #expect(seen?.isThisDevice == false)
            #expect(seen?.agrees == true, "both hold the same words")
        }
    }

    @Test("renaming a device updates its record in the cloud without uploading any word")
    func renameRepublishesRecord() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a"), b = try fixture.device("b")
            try a.add("uno")
            try fixture.syncRounds([a, b])
            try a.library.setDeviceName("Escritorio")
            a.cloud.resetRequests()
            let report = try a.sync()
            #expect(report.pushed == 0)
            #expect(a.cloud.requests("write").map(\.path) == [CloudLayout.devicePath(a.id)])
            #expect(try b.engine.status().devices.first { $0.id == a.id }?.name == "Escritorio")
        }
    }

    @Test("a device name must be 1 to 100 characters, with no escape sequence or direction control to show on a terminal")
    func nameIsValidated() throws {
        try withSyncFixture { fixture in
            let a = try fixture.device("a")
            #expect(throws: LibraryError.self) { try a.library.setDeviceName("   ") }
            #expect(throws: LibraryError.self) { try a.library.setDeviceName(String(repeating: "x", count: 101)) }
            try a.library.setDeviceName(String(repeating: "x", count: 100))
            for name in ["evil\u{1B}[7m", "\u{202E}lim", "tab\there"] {
                #expect(throws: LibraryError.self, "\(name.debugDescription)") { try a.library.setDeviceName(name) }
            }
            try a.library.setDeviceName("👨‍👩‍👧 tablet")
            #expect(try a.library.deviceName() == "👨‍👩‍👧 tablet")
        }
    }
}
