import Foundation
import MiDiccioCLICore
import MiDiccioKit
import MiDiccioWeb

/// `midiccio remote set icloud`: asks CloudKit for Apple's sign-in page, waits for Apple
/// to send the browser back to the API token's callback address with a web auth token
/// (or reads that address pasted back), checks the token with CloudKit, then stores the
/// sign-in and sets the remote.
///
/// Nothing changes here until CloudKit has accepted the token: the library is not even
/// opened before that, so a timeout, a refused sign-in, Ctrl-C or a bad API token leave
/// everything as it was. No token is ever printed.
struct ICloudSignInFlow {
    /// `--container`, `--environment`, `--zone`, `--api-token` and `--callback-url`, when given.
    let given: (container: String?, environment: String?, zone: String?, apiToken: String?, callbackURL: String?)
    /// `--no-browser`: the user pastes the address the browser ends on.
    let pasteBack: Bool
    /// `--device-name`, if given.
    let deviceName: String?
    /// How long to wait for the browser to come back.
    var timeout: TimeInterval = 5 * 60

    /// The flag that gives each value.
    static func flag(_ field: ICloudSignInSettings.Field) -> String {
        switch field {
        case .container: "--container"
        case .environment: "--environment"
        case .zone: "--zone"
        case .apiToken: "--api-token"
        case .callbackURL: "--callback-url"
        }
    }

    /// The settings from the flags, the environment and the build; a usage error naming
    /// the flag (or the variable, or the build) that holds a bad value, or saying how to
    /// give a missing one.
    func settings(_ environment: [String: String]) throws(UsageError) -> ICloudSignInSettings {
        do {
            return try ICloudSignInSettings.resolve(
                container: given.container, environment: given.environment, zone: given.zone, apiToken: given.apiToken,
                callbackURL: given.callbackURL, variables: environment)
        } catch {
            throw UsageError(Self.message(error))
        }
    }

    /// A settings problem in words for the command line.
    static func message(_ problem: ICloudSignInSettings.Problem) -> String {
        switch problem {
        case .missing(.container):
            return "no CloudKit container: give it with --container iCloud.ID (or set \(ICloudSignInSettings.containerVariable), "
                + "or build it in with make build \(ICloudSignInSettings.containerVariable)=...); the README's \"Sync through iCloud\" says how to make one"
        case .missing(.apiToken):
            return "no CloudKit API token: give it with --api-token TOKEN (or set \(ICloudSignInSettings.apiTokenVariable), "
                + "or build it in with make build \(ICloudSignInSettings.apiTokenVariable)=...); the README's \"Sync through iCloud\" says how to make one"
        case .missing(let field):
            return "\(flag(field)) is missing"
        case .invalid(let field, let origin, let reason):
            let source: String
            switch (field, origin) {
            case (_, .given), (_, .standard): source = flag(field)
            case (.container, .environment): source = ICloudSignInSettings.containerVariable
            case (.environment, .environment): source = ICloudSignInSettings.environmentVariable
            case (.apiToken, .environment): source = ICloudSignInSettings.apiTokenVariable
            case (.callbackURL, .environment): source = ICloudSignInSettings.callbackVariable
            case (_, .environment): source = flag(field)
            case (_, .builtIn): source = "the \(field == .apiToken ? "API token" : field.rawValue) built into this midiccio"
            }
            return "\(source) \(reason)"
        }
    }

    func run(_ context: ToolContext) throws {
        let settings = try self.settings(context.environment)
        let endpoints = CloudKitEndpoints.from(environment: context.environment)
        let signIn: ICloudSignIn
        do {
            signIn = try ICloudSignIn.start(settings, endpoints: endpoints)
        } catch {
            throw ToolFailure("\(error); nothing was changed")
        }
        let callback = settings.callback
        let token: String
        if pasteBack {
            // Holding the port keeps any other program on this computer from being sent
            // the token; a port already taken does not stop a sign-in pasted from elsewhere.
            let receiver = try? SignInRedirectReceiver(mode: .askToPaste, port: callback.port, path: callback.path, signIn: signIn)
            defer { receiver?.stop() }
            context.io.write(
                "Open this address in a browser, on this or any other device, and sign in with your Apple Account:\n\n  \(signIn.signInURL)\n\n"
            )
            context.note(
                "At the end the browser goes to an address that starts with \(callback.url) and may not load. "
                    + "Copy that whole address from the address bar, paste it here and press Enter:")
            token = try SignInTerminal.pastedCode(
                context, hint: "it starts with \(callback.url) and holds ckWebAuthToken=...", answer: signIn.answer(toPastedAddress:))
        } else {
            let receiver: SignInRedirectReceiver<ICloudSignIn>
            do {
                receiver = try SignInRedirectReceiver(mode: .receive, port: callback.port, path: callback.path, signIn: signIn)
            } catch {
                throw ToolFailure("\(error); nothing was changed. Stop that program, or add --no-browser to paste the address instead")
            }
            defer { receiver.stop() }
            context.io.write(
                "Sign in with your Apple Account in your browser. If no browser opened, open this address:\n\n  \(signIn.signInURL)\n\n")
            token = try SignInTerminal.openAndWait(signIn.signInURL, receiver: receiver, timeout: timeout, context)
        }
        let credentials: ICloudCredentials
        do {
            credentials = try signIn.finish(webAuthToken: token, endpoints: endpoints)
        } catch {
            throw ToolFailure("\(error); nothing was changed")
        }
        try store(credentials, database: settings.database, context)
    }

    /// Stores the sign-in (0600) and only then sets the remote; a failure to set it takes
    /// the new sign-in file away again unless an earlier iCloud remote uses it.
    private func store(_ credentials: ICloudCredentials, database: CloudKitDatabase, _ context: ToolContext) throws {
        let library = try context.library()
        let remote = RemoteConfig.iCloud(database)
        try library.storeICloudCredentials(credentials)
        let signOut: GoogleSignOut
        do {
            if let deviceName { try library.setDeviceName(deviceName) }
            signOut = try library.setRemote(
                remote, endingGoogleSignInWith: GoogleDriveEndpoints.from(environment: context.environment), signedIn: true)
        } catch {
            if case .iCloud? = try? library.remote() {
            } else {
                try? ICloudCredentials.remove(at: library.iCloudCredentialsPath)
            }
            throw error
        }
        context.io.write(
            "Signed in to iCloud; remote set to \(remote.displayName). The sign-in is kept in "
                + "\(library.iCloudCredentialsPath), readable only by you. Run 'midiccio sync' to sync now.\n")
        GoogleDriveSignInFlow.report(signOut, context)
    }
}
