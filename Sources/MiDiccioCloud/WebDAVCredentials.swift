import Foundation
import MiDiccioFiles
import MiDiccioModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The WebDAV password of one library, kept in a file beside it
/// (`library.sqlite.credentials`) that only its owner can read (mode 0600).
///
/// Never in the library's SQLite file: that file is copied into backups, sent to
/// support, opened by other tools. The password is stored with the address it belongs
/// to and is used only for that address, so changing the remote to another server never
/// sends the old password there.
public struct WebDAVCredentials: Hashable, Sendable, CustomStringConvertible, CustomReflectable {
    /// The server folder the password is for.
    public var address: String
    /// The user name.
    public var user: String?
    /// The password.
    public var password: String

    /// Makes credentials.
    public init(address: String, user: String?, password: String) {
        self.address = address
        self.user = user
        self.password = password
    }

    /// Never shows the password.
    public var description: String { "credentials for \(address)" + (user.map { " (user \($0))" } ?? "") }

    /// Never shows the password, also not to `dump` or a debugger.
    public var customMirror: Mirror {
        Mirror(self, children: ["address": address, "user": user as Any, "password": "<hidden>"], displayStyle: .struct)
    }

    /// The credentials file of the library at `libraryPath`.
    public static func filePath(forLibrary libraryPath: String) -> String { FileSystem.sideFileBase(libraryPath) + ".credentials" }

    /// The credentials stored at `path`, or nil when there is no file.
    public static func load(from path: String) throws -> WebDAVCredentials? {
        guard let data = try FileSystem.secretContentsIfPresent(path) else { return nil }
        guard let object = JSONText.parse(data) as? [String: Any],
            object["format"] as? String == "midiccio-credentials",
            let webdav = object["webdav"] as? [String: Any],
            let address = webdav["url"] as? String,
            let password = webdav["password"] as? String
        else {
            // Says nothing about the content: it may hold a password.
            throw FileError(path: path, reason: "is not a MiDiccio credentials file; remove it and set the password again")
        }
        return WebDAVCredentials(address: address, user: webdav["user"] as? String, password: password)
    }

    /// Writes the credentials to `path`, replacing the file atomically. The new file is
    /// created with mode 0600 before any byte is written, so the password is never
    /// readable by others, not even for a moment.
    public func save(to path: String) throws {
        var webdav = [("url", JSONText.quote(address)), ("password", JSONText.quote(password))]
        if let user { webdav.append(("user", JSONText.quote(user))) }
        let object = [
            ("format", JSONText.quote("midiccio-credentials")), ("version", "1"),
            ("webdav", JSONText.object(webdav.sorted { $0.0 < $1.0 }, spaced: true)),
        ]
        try Self.writePrivately(JSONText.fileObject(object), to: path)
    }

    /// Removes the credentials file at `path`; no file is not an error.
    public static func remove(at path: String) throws {
        try FileSystem.removeIfPresent(path)
    }

    /// The permission bits of the file at `path` (0o600 ...), or nil when it is missing.
    public static func permissions(of path: String) -> Int? {
        FileSystem.status(path).map { Int($0.st_mode & 0o7777) }
    }

    /// Writes `data` to a new temporary file made with mode 0600 (O_CREAT | O_EXCL, so
    /// nobody can have opened it first), then renames it over `path`.
    private static func writePrivately(_ data: Data, to path: String) throws {
        try FileSystem.writeAtomically(data, to: path, ownerOnly: true)
    }
}
