import Foundation
import MiDiccioFiles

/// The access token of `midiccio serve --lan`, kept beside the library in a file only
/// its owner can read (0600), so a paired phone stays paired across restarts.
public struct PairingToken: Sendable {
    /// The file: the library's path with `.serve-token` added.
    public let path: String

    /// The token file of the library at `libraryPath`.
    public init(libraryPath: String) { path = FileSystem.sideFileBase(libraryPath) + ".serve-token" }

    /// Why the token file could not be read or written.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, naming the file.
        public var description: String
    }

    /// The stored token, or a new one (stored) when there is none or `renew` is set.
    public func load(renew: Bool = false) throws -> (token: String, isNew: Bool) {
        if !renew, let data = try? FileSystem.secretContentsIfPresent(path) {
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard token.count >= 16, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw Failure(description: "\(path) does not hold a token; remove it or start with --new-token")
            }
            return (token, false)
        }
        let token = SecurityPolicy.randomToken()
        try store(token)
        return (token, true)
    }

    /// Writes `token` whole, to a file readable by its owner only from its creation on.
    private func store(_ token: String) throws {
        do {
            try FileSystem.writeAtomically(Data((token + "\n").utf8), to: path, ownerOnly: true)
        } catch {
            throw Failure(description: "\(error)")
        }
    }
}
