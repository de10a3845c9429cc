import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a test server's control script (`Tests/WebDAV/server.sh`, `Tests/GoogleDrive/server.sh`)
/// and waits for it, without tying the server it leaves running to this process: its
/// standard streams are /dev/null (Foundation's `Process` waits for pipes that the
/// server, left in the background, would hold open for ever), and no signal is blocked
/// in it (a blocked SIGTERM would be inherited, and the server could then only be killed).
package enum ServerScript {
    /// Runs `bash script arguments...`; throws when it fails.
    package static func run(_ script: String, _ arguments: [String]) throws {
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let words: [String] = ["/bin/bash", script] + arguments
        var pointers: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/bash", &actions, &attributes, &pointers, environ) == 0 else {
            throw ServerScriptError(description: "cannot run \(script)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        guard status == 0 else {
            throw ServerScriptError(description: "\(script) \(arguments.first ?? "") failed with status \(status)")
        }
        #else
        throw ServerScriptError(description: "starting a local test server needs Linux")
        #endif
    }
}

/// A server script could not be run, or failed.
package struct ServerScriptError: Error, CustomStringConvertible {
    /// What went wrong.
    package var description: String
}
