import Foundation
import MiDiccioCloud
import MiDiccioLibrary
import MiDiccioSync

/// What became of this library's Google Drive sign-in when its remote changed.
public enum GoogleSignOut: Sendable, Equatable {
    /// There was no sign-in to end: the remote was not Google Drive, or still is.
    case none
    /// The sign-in file is gone and Google has revoked the refresh token.
    case revoked
    /// The sign-in file is gone, but Google could not be asked to revoke the token; the
    /// text says why (the token still works until the user removes MiDiccio's access in
    /// their Google account, or it expires).
    case notRevoked(String)
}

extension WordLibrary {
    /// Sets the remote as `setRemote(_:)` does and, when that ends this library's Google
    /// Drive sign-in (any remote but Google Drive, or none), asks Google to revoke it.
    ///
    /// The local change comes first and does not depend on Google: the revocation is
    /// best effort, with a short `timeout`, and its result is only reported.
    /// `signedIn` and `password` as for `setRemote(_:signedIn:password:)`.
    public func setRemote(
        _ remote: RemoteConfig?, endingGoogleSignInWith endpoints: GoogleDriveEndpoints, timeout: TimeInterval = 5,
        signedIn: Bool = false, password: WebDAVPassword? = nil
    ) throws -> GoogleSignOut {
        var ending: GoogleDriveCredentials?
        if case .googleDrive = remote {
        } else {
            // A damaged file has no token worth revoking; setRemote removes it all the same.
            ending = try? GoogleDriveCredentials.load(from: googleDriveCredentialsPath)
        }
        try setRemote(remote, signedIn: signedIn, password: password)
        guard let ending else { return .none }
        do {
            try GoogleTokenService(endpoints: endpoints, timeout: timeout).revoke(ending.refreshToken)
            return .revoked
        } catch {
            return .notRevoked("\(error)")
        }
    }
}
