import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioSync

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The remotes a binary syncs with by itself. `midiccio` reaches only a folder (it links
/// no networking, so it starts fast); `midiccio-online` reaches every remote.
package enum RemoteReach: Sendable {
    /// A folder remote only; any other remote needs `midiccio-online`.
    case folderOnly
    /// Every remote, through the given storage maker (library path, environment, timeout).
    case every(@Sendable (RemoteConfig, String, [String: String], TimeInterval) -> any CloudStorage)

    /// True when this binary can sync with `remote` itself.
    package func reaches(_ remote: RemoteConfig) -> Bool {
        switch (self, remote) {
        case (.every, _), (.folderOnly, .folder): true
        case (.folderOnly, _): false
        }
    }

    /// The storage `remote` names, or nil when this binary cannot reach it.
    package func storage(
        for remote: RemoteConfig, libraryPath: String, environment: [String: String], timeout: TimeInterval
    ) -> (any CloudStorage)? {
        switch (self, remote) {
        case (.every(let make), _): make(remote, libraryPath, environment, timeout)
        case (.folderOnly, .folder(let path)): FolderStorage(root: path)
        case (.folderOnly, _): nil
        }
    }
}

/// Thrown by a command that must go online and cannot from this binary: `Tool` gives the
/// whole command line to `midiccio-online` instead.
package struct OnlineNeeded: Error {
    package init() {}
}

/// `midiccio-online`, the binary beside `midiccio` that runs every command, the ones that
/// go online included (the web app, sign-in, sync).
package enum OnlineSibling {
    /// Its file name.
    package static let name = "midiccio-online"

    /// Its path: beside this process's executable, symbolic links resolved.
    package static var path: String? {
        #if os(Linux)
        let executable = "/proc/self/exe"
        #else
        guard let executable = Bundle.main.executablePath else { return nil }
        #endif
        guard let own = FileSystem.realPath(executable) else { return nil }
        guard let slash = own.lastIndex(of: "/") else { return nil }
        return own[..<slash] + "/" + name
    }

    /// Replaces this process with `midiccio-online` given `arguments`; returns only when
    /// that fails, after saying why, with exit code 1.
    package static func run(_ arguments: [String], io: TerminalIO) -> Int32 {
        guard let path else {
            io.writeError("Error: cannot find \(name): the path of this program is unknown\n")
            return 1
        }
        fflush(nil)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        for pointer in argv { free(pointer) }
        io.writeError("Error: this command needs \(path) (\(reason)); install it beside midiccio\n")
        return 1
    }
}
