import Foundation
import MiDiccioFiles
import Synchronization

/// The browsers that traded the access token for a cookie: each has a secret of its own
/// in its cookie, so Settings can list them (user agent, last seen) and sign one out
/// without changing the token of the others.
///
/// Kept in a file beside the library (0600, written whole) when serving beyond this
/// computer, so a paired phone stays paired across restarts; in memory otherwise.
public final class PairedBrowsers: Sendable {
    /// One paired browser.
    public struct Browser: Sendable, Codable, Equatable {
        /// A public name for it, for signing it out (not its secret).
        public var id: String
        /// What its cookie carries.
        var secret: String
        /// Its User-Agent header when it paired.
        public var userAgent: String
        /// When it paired and was last seen, in seconds since 1970.
        public var paired: Double
        /// When it last sent a request, in seconds since 1970.
        public var lastSeen: Double
    }

    /// The file, or nil to keep them in memory.
    public let path: String?
    private let state: Mutex<(browsers: [Browser], savedAt: Double)>
    /// The one-time pairing codes Settings has shown, with when each was made (seconds
    /// since 1970). Kept in memory only: a restart ends them.
    private let codes = Mutex([(code: String, made: Double)]())
    /// How long a pairing code opens the library, in seconds.
    static let codeLifetime = 15 * 60.0
    /// How many codes may wait at once: each showing of Settings makes one.
    static let codesKept = 8
    /// How stale `lastSeen` may be in the file: a request does not write the file each time.
    static let saveInterval = 60.0

    /// Browsers kept in memory only (a server for this computer alone).
    public init() {
        path = nil
        state = Mutex(([], Date().timeIntervalSince1970))
    }

    /// The browsers paired with the web app of the library at `libraryPath`, kept beside
    /// it (beside the file a symbolic link leads to, `FileSystem.sideFileBase`).
    public convenience init(libraryPath: String) throws {
        try self.init(path: FileSystem.sideFileBase(libraryPath) + ".serve-browsers")
    }

    /// The browsers kept in `path` (none yet when it does not exist).
    public init(path: String) throws {
        self.path = path
        var browsers: [Browser] = []
        if let data = try? FileSystem.secretContentsIfPresent(path) {
            do {
                browsers = try JSONDecoder().decode([Browser].self, from: data)
            } catch {
                throw PairingToken.Failure(
                    description: "\(path) is not a list of paired browsers; remove it (every browser then pairs again)")
            }
        }
        state = Mutex((browsers, Date().timeIntervalSince1970))
    }

    /// The paired browsers, the most recently seen first.
    public func list() -> [Browser] {
        state.withLock { $0.browsers }.sorted { $0.lastSeen > $1.lastSeen }
    }

    /// Pairs a browser that sent `userAgent`: the secret its cookie will carry.
    public func pair(userAgent: String) -> String {
        let now = Date().timeIntervalSince1970
        let browser = Browser(
            id: String(SecurityPolicy.randomToken().prefix(16)), secret: SecurityPolicy.randomToken(),
            userAgent: String(userAgent.prefix(300)), paired: now, lastSeen: now)
        let browsers = state.withLock {
            $0.browsers.append(browser)
            $0.savedAt = now
            return $0.browsers
        }
        save(browsers)
        return browser.secret
    }

    /// A new one-time pairing code, which pairs one browser within `codeLifetime`
    /// (`redeem`): what Settings' pairing address carries instead of the access token, so
    /// a browser that paired from it holds no key to pair again once signed out.
    public func issueCode(now: Double = Date().timeIntervalSince1970) -> String {
        let code = SecurityPolicy.randomToken()
        codes.withLock {
            $0.removeAll { now - $0.made > Self.codeLifetime }
            $0.append((code, now))
            if $0.count > Self.codesKept { $0.removeFirst($0.count - Self.codesKept) }
        }
        return code
    }

    /// True when `code` is a pairing code not used yet and not expired; `consume` uses it up.
    public func isLiveCode(_ code: String, consume: Bool = false, now: Double = Date().timeIntervalSince1970) -> Bool {
        codes.withLock {
            $0.removeAll { now - $0.made > Self.codeLifetime }
            guard let index = $0.firstIndex(where: { SecurityPolicy.constantTimeEqual($0.code, code) }) else { return false }
            if consume { $0.remove(at: index) }
            return true
        }
    }

    /// True when `secret` is a paired browser's; notes that it was seen now.
    func recognize(_ secret: String) -> Bool {
        let now = Date().timeIntervalSince1970
        let (found, toSave): (Bool, [Browser]?) = state.withLock {
            guard let index = $0.browsers.firstIndex(where: { SecurityPolicy.constantTimeEqual($0.secret, secret) }) else {
                return (false, nil)
            }
            $0.browsers[index].lastSeen = now
            guard now - $0.savedAt > Self.saveInterval else { return (true, nil) }
            $0.savedAt = now
            return (true, $0.browsers)
        }
        if let toSave { save(toSave) }
        return found
    }

    /// Signs out the browser `id`: its cookie no longer opens anything. False when
    /// there is no such browser.
    @discardableResult
    public func signOut(_ id: String) -> Bool {
        let (found, browsers) = state.withLock {
            let before = $0.browsers.count
            $0.browsers.removeAll { $0.id == id }
            return ($0.browsers.count != before, $0.browsers)
        }
        if found { save(browsers) }
        return found
    }

    /// Signs every browser out (a new token was made).
    public func signOutAll() {
        state.withLock { $0.browsers = [] }
        save([])
    }

    /// Writes the list whole, readable by its owner only. A failure only costs the
    /// browsers their pairing at the next start, so it is not fatal.
    private func save(_ browsers: [Browser]) {
        guard let path, let data = try? JSONEncoder().encode(browsers) else { return }
        try? FileSystem.writeAtomically(data, to: path, ownerOnly: true)
    }
}
