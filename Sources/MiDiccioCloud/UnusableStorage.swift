import Foundation
import MiDiccioModel

/// A remote that cannot be used: every call fails with the reason.
package final class UnusableStorage: CloudStorage {
    package let displayName: String
    private let error: CloudError

    package init(displayName: String, error: CloudError) {
        self.displayName = displayName
        self.error = error
    }

    package var cloudNow: Timestamp? { nil }
    package func list(_ folder: String) throws -> [CloudEntry] { throw error }
    package func folders(in folder: String) throws -> [String] { throw error }
    package func read(_ path: String) throws -> Data? { throw error }
    package func write(_ path: String, _ data: Data) throws { throw error }
    package func delete(_ path: String) throws -> Bool { throw error }
}
