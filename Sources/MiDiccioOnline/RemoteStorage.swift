import Foundation
import MiDiccioCloud
import MiDiccioSync

extension RemoteConfig {
    /// The storage this remote names.
    ///
    /// - Parameters:
    ///   - libraryPath: the library's file, beside which its credentials file lies; nil
    ///     uses only `MIDICCIO_WEBDAV_PASSWORD` (pass it wherever a library is at hand).
    ///   - environment: where `MIDICCIO_WEBDAV_PASSWORD` is looked up.
    ///   - timeout: seconds a WebDAV request may stay silent; a short one also means
    ///     fewer, shorter retries (for syncs that must not keep anyone waiting).
    ///
    /// Never throws: a remote that cannot be used (a damaged credentials file, say)
    /// gives a storage whose every call fails with the reason, so the problem surfaces
    /// where sync errors are reported.
    public func makeStorage(
        libraryPath: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        timeout: TimeInterval? = nil
    ) -> any CloudStorage {
        switch self {
        case .folder(let path):
            return FolderStorage(root: path)
        case .webdav(let url, let user):
            guard let address = WebDAVAddress(checked: url) else {
                return UnusableStorage(
                    displayName: displayName,
                    error: .failed(path: "/", reason: "the stored WebDAV URL cannot be used; set the remote again"))
            }
            let password: String?
            do {
                password = try Self.webdavPassword(for: address, libraryPath: libraryPath, environment: environment)
            } catch {
                return UnusableStorage(displayName: displayName, error: .unauthorized("the password cannot be read: \(error)"))
            }
            let options = timeout.map(WebDAVStorage.Options.impatient(timeout:)) ?? WebDAVStorage.Options()
            let fromVariable = !(environment[Self.passwordVariable] ?? "").isEmpty
            return WebDAVStorage(address: address, user: user, password: password, passwordFromVariable: fromVariable, options: options)
        case .googleDrive(let space):
            let notSignedIn = UnusableStorage(
                displayName: displayName,
                error: .signInNeeded("this library is not signed in to Google Drive; sign in with: midiccio remote set gdrive"))
            guard let libraryPath else { return notSignedIn }
            let path = GoogleDriveCredentials.filePath(forLibrary: libraryPath)
            let credentials: GoogleDriveCredentials
            do {
                guard let stored = try GoogleDriveCredentials.load(from: path) else { return notSignedIn }
                credentials = stored
            } catch {
                return UnusableStorage(displayName: displayName, error: .signInNeeded("\(error)"))
            }
            guard credentials.covers(space) else {
                return UnusableStorage(
                    displayName: displayName,
                    error: .signInNeeded(
                        "this library's Google Drive sign-in does not reach the \(space.displayName); sign in again with: midiccio remote set gdrive"
                    ))
            }
            let endpoints = GoogleDriveEndpoints.from(environment: environment)
            let tokens = GoogleAccessTokens(
                credentials: credentials, path: path, service: GoogleTokenService(endpoints: endpoints, timeout: timeout ?? 15))
            let options = timeout.map(GoogleDriveStorage.Options.impatient(timeout:)) ?? GoogleDriveStorage.Options()
            return GoogleDriveStorage(space: space, tokens: tokens, endpoints: endpoints, options: options)
        case .iCloud(let database):
            let notSignedIn = UnusableStorage(
                displayName: displayName,
                error: .signInNeeded("this library is not signed in to iCloud; sign in with: midiccio remote set icloud"))
            guard let libraryPath else { return notSignedIn }
            let path = ICloudCredentials.filePath(forLibrary: libraryPath)
            let credentials: ICloudCredentials
            do {
                guard let stored = try ICloudCredentials.load(from: path) else { return notSignedIn }
                credentials = stored
            } catch {
                return UnusableStorage(displayName: displayName, error: .signInNeeded("\(error)"))
            }
            guard credentials.covers(database) else {
                return UnusableStorage(
                    displayName: displayName,
                    error: .signInNeeded(
                        "this library's iCloud sign-in is for \(credentials.container) (\(credentials.environment.rawValue)), not \(database.container) (\(database.environment.rawValue)); sign in again with: midiccio remote set icloud"
                    ))
            }
            let options = timeout.map(CloudKitStorage.Options.impatient(timeout:)) ?? CloudKitStorage.Options()
            return CloudKitStorage(
                database: database, session: ICloudSession(credentials: credentials, path: path),
                endpoints: CloudKitEndpoints.from(environment: environment), options: options)
        }
    }
}
