import Foundation
import MiDiccioModel

/// What came back to a sign-in's loopback address (or was pasted by the user), read by
/// the sign-in it belongs to: Google's or Apple's.
public enum SignInAnswer: Sendable, Equatable {
    /// The value the sign-in waits for: Google's authorization code, or Apple's web auth
    /// token. Never printed.
    case code(String)
    /// This sign-in ended in the browser without one; the text says why, for people
    /// ("the sign-in was cancelled in the browser").
    case refused(String)
    /// The state is missing or another one: not an answer to this sign-in (an older
    /// sign-in, another tab, or a forgery), so it is ignored.
    case foreign
    /// Not an answer at all.
    case unreadable

    /// The query of an address pasted by the user: the whole address the browser showed
    /// (`http://127.0.0.1:PORT/path?name=value...`), or only its query when it starts
    /// with one of `names`. Nil when the text is no such address, or holds none of `names`.
    /// Values are form-decoded, as the browser shows them ("+" is a space, "%2F" a slash),
    /// and the first of two equal names counts.
    public static func query(ofPastedAddress text: String, holdingOneOf names: [String]) -> [String: String]? {
        let trimmed = text.trimmed
        guard !trimmed.isEmpty, trimmed.count <= 16 * 1024, !trimmed.contains(where: \.isWhitespace) else { return nil }
        let queryText: Substring
        if let mark = trimmed.firstIndex(of: "?") {
            queryText = trimmed[trimmed.index(after: mark)...]
        } else if names.contains(where: { trimmed.hasPrefix($0 + "=") }) {
            queryText = trimmed[...]
        } else {
            return nil
        }
        var query: [String: String] = [:]
        for pair in queryText.prefix(while: { $0 != "#" }).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decoded(parts[0]), let value = decoded(parts.count > 1 ? parts[1] : "") else { return nil }
            if query[name] == nil { query[name] = value }
        }
        return names.contains(where: { query[$0] != nil }) ? query : nil
    }

    private static func decoded(_ text: Substring) -> String? {
        String(text.map { $0 == "+" ? " " : $0 }).percentDecoded
    }
}

/// A sign-in whose answer comes back to a loopback address: it reads that address's
/// query (`SignInRedirectReceiver` in the web module listens for it).
public protocol LoopbackSignIn: Sendable {
    /// What the query of a request to the callback address says.
    func answer(to query: [String: String]) -> SignInAnswer
}
