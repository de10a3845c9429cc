import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioLibrary
import MiDiccioModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lets one sync of a library run at a time (the CLI, sync on open and the web app may
/// all start one). Two syncs at once could both claim the same change-file number and
/// one device's edits would never reach the others.
///
/// An advisory lock (flock) on `<library>.sync-lock`: the system releases it when the
/// process ends, so a crashed sync never leaves the library locked.
final class SyncLock {
    private let descriptor: Int32

    /// Takes the lock, waiting up to `timeout` seconds for another sync to finish.
    init(libraryPath: String, timeout: TimeInterval = 10) throws {
        let path = FileSystem.sideFileBase(libraryPath) + ".sync-lock"
        descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        guard descriptor >= 0 else {
            let code = errno
            // A library on a read-only disk, or in a folder this user cannot write: said
            // as for any write to it, not as the lock file (round 14C).
            if code == EROFS || code == EACCES || code == EPERM {
                throw LibraryError.fileError(
                    path: libraryPath,
                    reason: "the library cannot be written, so it cannot sync: its folder or its disk is read-only "
                        + "(\(FileSystem.errorText(code))); nothing was changed. Make it writable, or copy the library "
                        + "somewhere you can write and use that copy")
            }
            throw LibraryError.fileError(path: path, reason: "cannot create the sync lock (\(FileSystem.errorText(code)))")
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard Date() < deadline else {
                close(descriptor)
                throw SyncError.busy
            }
            usleep(50_000)
        }
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
