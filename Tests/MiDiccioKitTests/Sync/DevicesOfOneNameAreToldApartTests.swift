import Foundation
import MiDiccioTesting
import Testing

@testable import MiDiccioKit

/// A library copied to a second laptop, or two computers given one host name, show in the
/// list of devices as two "vm" (found in a browser): nothing said which was which. A name
/// that more than one device has is followed by the start of each one's id.
@Suite("Devices of one name are told apart in the list of devices")
struct DevicesOfOneNameAreToldApartTests {
    @Test("two devices named alike get the start of their ids; a name of its own stays as it is")
    func labels() throws {
        try withSyncFixture { fixture in
            let root = fixture.file("Sync/MiDiccio")
            try FileManager.default.createDirectory(atPath: fixture.file("Sync"), withIntermediateDirectories: true)
            var engines: [SyncEngine] = []
            for (file, name) in [("a.sqlite", "portátil"), ("b.sqlite", "portátil"), ("c.sqlite", "mesa")] {
                let library = try WordLibrary(path: fixture.file(file), clock: ManualClock(start: SyncFixture.start), environment: [:])
                try library.setDeviceName(name)
                let engine = SyncEngine(library: library, storage: FolderStorage(root: root))
                try engine.sync()
                engines.append(engine)
            }
            let status = try engines[0].status()
            #expect(status.devices.count == 3)
            let labels = Dictionary(uniqueKeysWithValues: zip(status.devices.map(\.id), status.deviceLabels))
            for device in status.devices {
                let expected = device.name == "portátil" ? "portátil (\(device.id.prefix(8)))" : "mesa"
                #expect(labels[device.id] == expected)
            }
            #expect(Set(status.deviceLabels).count == 3, "every device told apart: \(status.deviceLabels)")
        }
    }
}
