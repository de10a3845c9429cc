import Foundation
import MiDiccioCloud

/// One sign-in to iCloud through CloudKit Web Services.
///
/// `start` asks CloudKit who is signed in without a web auth token; CloudKit answers 421
/// with the address of Apple's sign-in page (`redirectURL`). The user signs in there, and
/// Apple sends the browser to the API token's callback address with `ckWebAuthToken` (some
/// answers name it `ckSession`). `finish` checks that token by asking again who is signed
/// in, and only then gives the credentials to store.
///
/// The callback carries no state of MiDiccio's (Apple fixes the address per API token),
/// so an answer is tied to a sign-in by time and place: whoever waits on the callback
/// address takes the first answer, once. Nothing here is printed: `description` names
/// the container only.
public struct ICloudSignIn: LoopbackSignIn, CustomStringConvertible, CustomReflectable {
    /// The container, API token and callback.
    public let settings: ICloudSignInSettings
    /// Apple's sign-in page for this API token.
    public let signInURL: String

    /// Why there is no web auth token when the browser came back without one: Apple does
    /// not say, and the likeliest reason is one the user cannot get past.
    public static let noTokenReason =
        "Apple gave no iCloud sign-in: the sign-in was cancelled, or this Apple Account has Advanced Data Protection turned on, "
        + "and accounts with Advanced Data Protection cannot use iCloud from the web, so MiDiccio cannot sync through them"

    /// A sign-in for `settings` whose page is `signInURL` (tests make their own).
    package init(settings: ICloudSignInSettings, signInURL: String) {
        self.settings = settings
        self.signInURL = signInURL
    }

    /// Asks CloudKit at `endpoints` for the address where the user signs in.
    public static func start(
        _ settings: ICloudSignInSettings, endpoints: CloudKitEndpoints, timeout: TimeInterval = 30
    ) throws(ICloudSignInFailure) -> ICloudSignIn {
        let api = Self.api(settings, webAuthToken: "", endpoints: endpoints, timeout: timeout)
        let caller: CloudKitAPI.Caller
        do {
            caller = try api.caller()
        } catch {
            throw Self.explained(error, settings)
        }
        guard case .signIn(let address) = caller else {
            throw ICloudSignInFailure("iCloud says someone is signed in before anyone signed in; it offers no sign-in page")
        }
        guard let url = URLComponents(string: address), ["https", "http"].contains(url.scheme?.lowercased() ?? "") else {
            throw ICloudSignInFailure("iCloud's sign-in address is not a web address")
        }
        return ICloudSignIn(settings: settings, signInURL: address)
    }

    /// Never shows the sign-in page's address (it holds the API token).
    public var description: String { "iCloud sign-in (\(settings.database))" }

    /// Never shows the tokens, also not to `dump` or a debugger.
    public var customMirror: Mirror {
        Mirror(self, children: ["database": settings.database.description, "callback": settings.callback.url, "secrets": "<hidden>"])
    }

    /// What a request to the callback address says: the web auth token, or why there is none.
    public func answer(to query: [String: String]) -> SignInAnswer {
        guard let token = query["ckWebAuthToken"] ?? query["ckSession"], !token.isEmpty else { return .refused(Self.noTokenReason) }
        // Tokens hold '+', which a query read as a form turns into a space; a token has none.
        let restored = token.replacingOccurrences(of: " ", with: "+")
        guard restored.count <= 8192, restored.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else { return .unreadable }
        return .code(restored)
    }

    /// What an address pasted by the user says: the whole callback address the browser
    /// ended on, or only its query. The callback address without a token is Apple's
    /// "no".
    public func answer(toPastedAddress text: String) -> SignInAnswer {
        if let query = SignInAnswer.query(ofPastedAddress: text, holdingOneOf: ["ckWebAuthToken", "ckSession"]) {
            return answer(to: query)
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let url = URLComponents(string: trimmed), url.port.map(UInt16.init) == settings.callback.port,
            (url.path.isEmpty ? "/" : url.path) == settings.callback.path
        {
            return .refused(Self.noTokenReason)
        }
        return .unreadable
    }

    /// Checks `webAuthToken` with CloudKit and returns the credentials to store: with the
    /// user's record name, and the newest token (CloudKit may hand back a new one).
    public func finish(
        webAuthToken: String, endpoints: CloudKitEndpoints, timeout: TimeInterval = 30
    ) throws(ICloudSignInFailure)
        -> ICloudCredentials
    {
        let api = Self.api(settings, webAuthToken: webAuthToken, endpoints: endpoints, timeout: timeout)
        let caller: CloudKitAPI.Caller
        do {
            caller = try api.caller()
        } catch {
            throw Self.explained(error, settings)
        }
        guard case .user(let name) = caller else {
            throw ICloudSignInFailure("iCloud did not accept the sign-in Apple gave (it may have expired); sign in again")
        }
        var credentials = api.session.current
        credentials.userRecordName = name
        return credentials
    }

    private static func api(
        _ settings: ICloudSignInSettings, webAuthToken: String, endpoints: CloudKitEndpoints, timeout: TimeInterval
    )
        -> CloudKitAPI
    {
        let credentials = ICloudCredentials(
            container: settings.database.container, environment: settings.database.environment, apiToken: settings.apiToken,
            webAuthToken: webAuthToken)
        return CloudKitAPI(
            endpoints: endpoints, session: ICloudSession(credentials: credentials, path: nil),
            options: CloudKitStorage.Options.impatient(timeout: timeout))
    }

    /// The failure for an error of the API, saying which token CloudKit refused when it
    /// refused one.
    private static func explained(_ error: any Error, _ settings: ICloudSignInSettings) -> ICloudSignInFailure {
        switch error as? CloudError {
        case .signInNeeded(let text)? where text.contains("API token"):
            return ICloudSignInFailure(
                "iCloud refused the API token for \(settings.database.container) (\(settings.database.environment.rawValue)); "
                    + "check that it was made for this container and environment in the CloudKit Console")
        case .failed(_, let reason)?:
            return ICloudSignInFailure(reason)
        case let error?:
            return ICloudSignInFailure(error.description)
        case nil:
            return ICloudSignInFailure("\(error)")
        }
    }
}

/// Why a sign-in to iCloud did not work, for people; never holds a token.
public struct ICloudSignInFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}
