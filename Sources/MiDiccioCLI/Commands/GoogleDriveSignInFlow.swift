import Foundation
import MiDiccioCLICore
import MiDiccioKit
import MiDiccioWeb

/// `midiccio remote set gdrive`: signs in to Google (authorization code with PKCE,
/// through a loopback redirect or an address pasted back), then stores the sign-in and
/// sets the remote.
///
/// Nothing changes here until Google has exchanged the code for tokens: the library is
/// not even opened before that, so a timeout, a cancelled consent, Ctrl-C or a refused
/// code leave everything as it was. No token or secret is ever printed.
struct GoogleDriveSignInFlow {
    /// Where the files go (and so the scope asked for).
    let space: GoogleDriveSpace
    /// `--client-id`, if given.
    let clientID: String?
    /// `--client-secret-stdin`: the first line of standard input is the client's secret.
    let clientSecretFromInput: Bool
    /// `--no-browser`: the user pastes the address the browser ends on.
    let pasteBack: Bool
    /// `--device-name`, if given.
    let deviceName: String?
    /// How long to wait for the browser to come back.
    var timeout: TimeInterval = 5 * 60

    func run(_ context: ToolContext) throws {
        let client = try self.client(context)
        let endpoints = GoogleDriveEndpoints.from(environment: context.environment)
        let receiver = try SignInRedirectReceiver(mode: pasteBack ? .askToPaste : .receive) { redirectURI in
            try GoogleSignIn(space: space, clientID: client.id, redirectURI: redirectURI)
        }
        defer { receiver.stop() }
        let signIn = receiver.signIn
        let address = signIn.authorizationURL(at: endpoints)
        let code: String
        if pasteBack {
            context.io.write("Open this address in a browser, on this or any other device, and sign in to Google:\n\n  \(address)\n\n")
            context.note(
                "At the end the browser goes to an address that starts with http://127.0.0.1:\(receiver.port)/ and may not load. "
                    + "Copy that whole address from the address bar, paste it here and press Enter:")
            code = try pastedCode(for: signIn, context)
        } else {
            context.io.write("Sign in to Google in your browser. If no browser opened, open this address:\n\n  \(address)\n\n")
            code = try SignInTerminal.openAndWait(address, receiver: receiver, timeout: timeout, context)
        }
        receiver.stop()

        let grant: GoogleTokenService.Grant
        do {
            grant = try GoogleTokenService(endpoints: endpoints).exchange(
                code: code, verifier: signIn.verifier, redirectURI: signIn.redirectURI, clientID: client.id, clientSecret: client.secret)
        } catch {
            throw ToolFailure("\(error); nothing was changed")
        }
        guard let refreshToken = grant.refreshToken else { throw ToolFailure("Google gave no refresh token; nothing was changed") }
        let credentials = GoogleDriveCredentials(
            clientID: client.id, clientSecret: client.secret, refreshToken: refreshToken, scope: grant.scope ?? space.scope,
            accessToken: grant.accessToken, accessTokenExpiry: grant.expiry)
        guard credentials.covers(space) else {
            throw ToolFailure(
                "Google gave access that does not reach the \(space.displayName) (was its box left unticked on the consent screen?); "
                    + "nothing was changed. Run the command again and allow it")
        }
        try store(credentials, context)
    }

    /// Stores the sign-in (0600) and only then sets the remote; a failure to set it takes
    /// the new sign-in file away again unless an earlier Google Drive remote uses it.
    private func store(_ credentials: GoogleDriveCredentials, _ context: ToolContext) throws {
        let library = try context.library()
        let remote = RemoteConfig.googleDrive(space)
        try library.storeGoogleDriveCredentials(credentials)
        do {
            if let deviceName { try library.setDeviceName(deviceName) }
            try library.setRemote(remote, signedIn: true)
        } catch {
            if case .googleDrive? = try? library.remote() {
            } else {
                try? GoogleDriveCredentials.remove(at: library.googleDriveCredentialsPath)
            }
            throw error
        }
        context.io.write(
            "Signed in to Google Drive; remote set to \(remote.displayName). The sign-in is kept in "
                + "\(library.googleDriveCredentialsPath), readable only by you. Run 'midiccio sync' to sync now.\n")
    }

    // MARK: - The OAuth client

    /// `--client-id`, else the built-in client, else `MIDICCIO_GDRIVE_CLIENT_ID`; the secret
    /// from standard input (`--client-secret-stdin`), else the built-in one, else
    /// `MIDICCIO_GDRIVE_CLIENT_SECRET`.
    private func client(_ context: ToolContext) throws -> GoogleOAuthClient {
        var secret: String?
        if clientSecretFromInput {
            let line = (context.io.readLine() ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty else { throw UsageError("--client-secret-stdin read no secret from standard input") }
            secret = line
        }
        if let clientID {
            secret = secret ?? GoogleOAuthClient.secret(environment: context.environment)
            guard let client = GoogleOAuthClient(id: clientID, secret: secret, origin: .given) else {
                throw UsageError("the client secret must be one line of visible characters")
            }
            return client
        }
        guard var client = GoogleOAuthClient.standard(environment: context.environment) else {
            if let id = context.environment[GoogleOAuthClient.idVariable], !id.isEmpty {
                throw UsageError("\(GoogleOAuthClient.idVariable) must be an OAuth client id such as 1234-abc.apps.googleusercontent.com")
            }
            throw UsageError(
                "no OAuth client: give your own with --client-id ID (or set \(GoogleOAuthClient.idVariable)); the README's "
                    + "\"Sync through Google Drive\" says how to make one in the Google Cloud console")
        }
        if let secret {
            guard let withSecret = GoogleOAuthClient(id: client.id, secret: secret, origin: client.origin) else {
                throw UsageError("the client secret must be one line of visible characters")
            }
            client = withSecret
        }
        return client
    }

    // MARK: - The answer

    /// Reads pasted lines until one is the answer to `signIn`: its code, or the refusal
    /// it carries.
    private func pastedCode(for signIn: GoogleSignIn, _ context: ToolContext) throws -> String {
        try SignInTerminal.pastedCode(
            context, hint: "it starts with \(signIn.redirectURI) and holds code=...", answer: signIn.answer(toPastedAddress:))
    }

    // MARK: - Helpers

    /// Tells the user what became of the Google Drive sign-in when the remote changed.
    static func report(_ signOut: GoogleSignOut, _ context: ToolContext) {
        switch signOut {
        case .none:
            break
        case .revoked:
            context.note("Signed out of Google Drive: the sign-in is removed from this computer and revoked at Google.")
        case .notRevoked(let reason):
            context.note(
                "Signed out of Google Drive on this computer, but Google could not be asked to revoke the sign-in (\(reason)); "
                    + "you can remove MiDiccio's access at https://myaccount.google.com/permissions")
        }
    }
}
