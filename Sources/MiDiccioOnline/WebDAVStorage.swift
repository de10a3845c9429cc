import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioModel
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cloud storage in a folder on a WebDAV server: Nextcloud, ownCloud, Synology, a NAS,
/// Apache or lighttpd with their WebDAV modules, and many hosted services.
///
/// - `list` is a `PROPFIND` with `Depth: 1`, `read` a `GET`, `delete` a `DELETE`.
/// - `write` uploads to a hidden temporary name in the same folder with `PUT`, then
///   renames it onto the real name with `MOVE` and `Overwrite: T`, which servers do with
///   one rename: a reader sees the old file or the whole new one. Missing folders (the
///   MiDiccio folder itself included) are made with `MKCOL` when a `PUT` says they are
///   missing, so a sync that finds them in place spends no request on them.
/// - Nothing depends on ETags or `If-Match`, which some servers ignore: each device
///   writes only its own files, so there is no concurrent writer to detect.
/// - Every request has a timeout; 5xx answers, 429 and dropped connections are retried
///   with exponential backoff, honouring `Retry-After`. A retry is the whole request,
///   body included, on a new connection; a connection idle for more than half a second
///   is not reused, since servers close idle ones after a second or more.
/// - The user name and password go only into the `Authorization` header. They never
///   appear in a URL, an error, `displayName` or a description of this object.
///
/// Calls block the calling thread until the server answers; the sync engine is
/// synchronous and runs off the main thread.
public final class WebDAVStorage: CloudStorage, CustomStringConvertible, CustomReflectable, Sendable {
    /// How to write a file.
    public enum WriteMode: Sendable, Hashable {
        /// `PUT` to a temporary name, then `MOVE` onto the real one: atomic on every
        /// server that implements `MOVE` as a rename (two requests per file).
        case temporaryThenMove
        /// One `PUT` to the real name: atomic only where the server itself writes
        /// uploads to a temporary file first (lighttpd, Apache mod_dav, Nextcloud do).
        case directPut
    }

    /// Timeouts, retries and limits.
    public struct Options: Sendable {
        /// Seconds without any byte moving before a request fails as unavailable.
        public var timeout: TimeInterval = 15
        /// When to try a failed request again.
        public var retry: HTTPRetryPolicy = .standard
        /// The largest file `read` accepts, in bytes.
        public var maxFileBytes = 1 << 30
        /// The largest listing `list` accepts, in bytes.
        public var maxListingBytes = 32 * 1024 * 1024
        /// The most files one listing may hold.
        public var maxListingEntries = 200_000
        /// How a file is written. One `PUT` by default: sync never needs the rename,
        /// because every reader checks what it reads (zlib's checksum on change files
        /// and snapshots, a full parse of JSON records) and a file caught half written
        /// is skipped, never applied, and read again at the next sync. That keeps one
        /// changed word at 5 requests each way instead of 7.
        public var writeMode: WriteMode = .directPut
        /// Waits between retries (seconds); tests replace it to run without waiting.
        public var sleep: @Sendable (TimeInterval) -> Void = { Thread.sleep(forTimeInterval: $0) }
        /// Seconds a connection may sit unused and still carry the next request (half a
        /// second). Tests replace it: a long limit reuses connections across pauses, as
        /// this client once did; 0 never reuses one.
        var connectionIdleLimit = BlockingHTTPClient.standardIdleLimit
        /// Where a file to upload gets its named copy (nil: the temporary folder). Tests
        /// point it at a folder that does not exist.
        var copyFolder: String?

        /// The standard options: 15 s timeout, four attempts.
        public init() {}

    }

    /// The MiDiccio folder on the server (no credentials in it).
    public let address: WebDAVAddress
    /// The user name sent with every request, if any.
    public let user: String?
    /// The options in force.
    public let options: Options

    private let authorization: String?
    private let client: BlockingHTTPClient
    private let state = Mutex<(counts: [String: Int], folders: Set<String>)>(([:], []))
    /// True when a user is set and no password was found for it (none stored beside the
    /// library, none in the environment).
    private let noPassword: Bool
    /// True when the password came from `MIDICCIO_WEBDAV_PASSWORD`, which is used instead
    /// of the stored one: a refusal says so.
    private let passwordFromVariable: Bool

    /// Uses the folder at `address`, sending `user` and `password` with Basic
    /// authentication (over https or http) when a user is given; `passwordFromVariable`
    /// when the password is `MIDICCIO_WEBDAV_PASSWORD`'s.
    public init(
        address: WebDAVAddress, user: String?, password: String?, passwordFromVariable: Bool = false, options: Options = Options()
    ) {
        self.address = address
        self.user = user
        self.options = options
        self.passwordFromVariable = passwordFromVariable
        client = BlockingHTTPClient(idleLimit: options.connectionIdleLimit, copyFolder: options.copyFolder)
        noPassword = user != nil && password == nil
        if let user {
            authorization = "Basic " + Data("\(user):\(password ?? "")".utf8).base64EncodedString()
        } else {
            authorization = nil
        }
    }

    /// "webdav https://host/path": never the user name's password.
    public var displayName: String { "webdav \(address)" }

    /// The WebDAV server's clock, from the `Date` of its latest answer.
    public var cloudNow: Timestamp? { client.serverNow }

    /// The same as `displayName`: safe to print.
    public var description: String { displayName }

    /// Mirrors only what is safe to show, so `dump` and debuggers never print the
    /// password held in the Authorization header.
    public var customMirror: Mirror {
        Mirror(self, children: ["address": address.description, "user": user as Any], displayStyle: .class)
    }

    // MARK: - Request counts

    /// Requests sent so far by HTTP method ("GET", "PUT", "MOVE", "PROPFIND", "DELETE",
    /// "MKCOL", "HEAD"), every retry counted: what the server actually served.
    public var requestCounts: [String: Int] { state.withLock { $0.counts } }

    /// All requests sent so far.
    public var requestCount: Int { requestCounts.values.reduce(0, +) }

    /// Sets the request counts back to zero.
    public func resetCounts() { state.withLock { $0.counts = [:] } }

    // MARK: - CloudStorage

    /// The files directly in `folder` (a `PROPFIND` with `Depth: 1`); [] when the folder
    /// does not exist. A listing that cannot be trusted is an error, never a guess.
    public func list(_ folder: String) throws -> [CloudEntry] {
        try listing(folder).files
    }

    /// The folders directly in `folder` (the same `PROPFIND`); [] when it does not exist.
    public func folders(in folder: String) throws -> [String] {
        try listing(folder).folders
    }

    /// What a `PROPFIND` with `Depth: 1` of `folder` lists.
    private func listing(_ folder: String) throws -> (files: [CloudEntry], folders: [String]) {
        let answer = try send(
            "PROPFIND", folderURL(folder), path: folder, body: WebDAVListing.requestBody,
            headers: ["Depth": "1", "Content-Type": "application/xml; charset=utf-8"],
            maxBody: options.maxListingBytes
        ).answer
        switch answer.status {
        case 207, 200:
            var limits = WebDAVListing.Limits.standard
            limits.maxBytes = options.maxListingBytes
            limits.maxEntries = options.maxListingEntries
            do {
                let listing = try WebDAVListing.listing(in: answer.body, folderPath: decodedPath(folder), limits: limits)
                markExisting(folder)
                return listing
            } catch {
                throw CloudError.failed(path: folder.isEmpty ? "/" : folder, reason: "the server's listing cannot be read: \(error)")
            }
        case 404, 410:
            return ([], [])
        default:
            throw unexpected(answer, "PROPFIND", folder.isEmpty ? "/" : folder)
        }
    }

    /// The file's bytes (a `GET`), or nil when the server has no such file.
    public func read(_ path: String) throws -> Data? {
        try get(path, spillFrom: nil)?.body
    }

    /// The file (a `GET`): a body of a megabyte or more (a snapshot) is kept in a
    /// temporary file as it arrives and handed over held open, not held in memory.
    public func readBytes(_ path: String) throws -> CloudBytes? {
        try get(path, spillFrom: CloudBytes.fileFrom)?.bytes
    }

    /// The answer to a `GET` of the file; nil when the server has no such file.
    private func get(_ path: String, spillFrom: Int?) throws -> HTTPAnswer? {
        let answer = try send("GET", fileURL(path), path: path, maxBody: options.maxFileBytes, spillFrom: spillFrom).answer
        switch answer.status {
        case 200: return answer
        case 404, 410: return nil
        default: throw unexpected(answer, "GET", path)
        }
    }

    /// Uploads the file atomically (see `WriteMode`), making missing folders.
    public func write(_ path: String, _ data: Data) throws {
        try upload(path, .memory(data), exclusive: false)
    }

    /// Uploads the file only if nothing is there yet: `If-None-Match: *` on the `PUT`
    /// (or `Overwrite: F` on the `MOVE`). A server that ignores the condition writes it
    /// anyway, which the random part of every name sync creates makes harmless.
    public func create(_ path: String, _ data: Data) throws {
        try upload(path, .memory(data), exclusive: true)
    }

    /// `create` for bytes kept in a file (a large snapshot): sent with their length, read
    /// from the file as they go out, never held whole. The size the server then reports
    /// is checked (a `HEAD`): a server that kept another number of bytes than were sent is
    /// an error, and the short file is removed.
    public func create(_ path: String, bytes: CloudBytes) throws {
        try upload(path, bytes, exclusive: true)
    }

    private func upload(_ path: String, _ data: CloudBytes, exclusive: Bool) throws {
        let (folder, name) = split(path)
        switch options.writeMode {
        case .directPut:
            try put(path, data, folder: folder, exclusive: exclusive)
        case .temporaryThenMove:
            // A hidden name that no reader recognises: a crash between PUT and MOVE
            // leaves a stray file that every device ignores and its writer removes.
            let temporary = (folder.isEmpty ? "" : folder + "/") + ".\(name).\(String(UInt64.random(in: 0...UInt64.max), radix: 16)).tmp"
            try put(temporary, data, folder: folder, exclusive: false)
            do {
                try move(temporary, to: path, overwrite: !exclusive)
            } catch {
                _ = try? remove(temporary)
                throw error
            }
        }
    }

    /// Removes the file (a `DELETE`); true when it existed.
    @discardableResult
    public func delete(_ path: String) throws -> Bool {
        try remove(path)
    }

    // MARK: - Operations

    private func remove(_ path: String) throws -> Bool {
        let answer = try send("DELETE", fileURL(path), path: path).answer
        switch answer.status {
        case 200, 202, 204: return true
        case 404, 410: return false
        default: throw unexpected(answer, "DELETE", path)
        }
    }

    /// Uploads `data` to `path`; when the server says the folder is missing, makes it
    /// (and its parents) and uploads again.
    private func put(_ path: String, _ data: CloudBytes, folder: String, exclusive: Bool) throws {
        var madeFolder = false
        var headers = ["Content-Type": "application/octet-stream"]
        if exclusive { headers["If-None-Match"] = "*" }
        while true {
            let (answer, attempts): (HTTPAnswer, Int)
            // Into a folder not known to exist, a 500 is not waited out: nginx answers so to a
            // PUT into a missing folder (without create_full_put_path), and MiDiccio, making
            // folders only after a 404 or 409, never synced there (round 20B #2).
            let retrying500 = madeFolder || isKnown(folder)
            switch data {
            case .memory(let bytes):
                (answer, attempts) = try send(
                    "PUT", fileURL(path), path: path, body: bytes, headers: headers, retrying500: retrying500)
            case .file(let file):
                (answer, attempts) = try send(
                    "PUT", fileURL(path), path: path, bodyFile: file, headers: headers, retrying500: retrying500)
            }
            switch answer.status {
            case 200, 201, 204:
                if case .file(let file) = data {
                    do {
                        try checkSize(path, file.size)
                    } catch {
                        // A short file must not stay where a reader could take it whole.
                        _ = try? remove(path)
                        throw error
                    }
                }
                markExisting(folder)
                return
            case 412 where exclusive:
                // A retried PUT whose first attempt went through and lost only its answer
                // finds its own file there. Taken as someone else's, it was written again
                // under another name, and the copy left behind later made this library
                // call itself a copy of another (found by the exploratory helper, round 7).
                if attempts > 1, let there = try readBytes(path), try there.sameBytes(as: data) {
                    markExisting(folder)
                    return
                }
                throw CloudError.exists(path: path)
            case 404 where !madeFolder, 409 where !madeFolder:
                // RFC 4918 §9.7.1: 409 when a parent collection is missing (some
                // servers say 404).
                forget(folder)
                try makeFolder(folder)
                madeFolder = true
            case 500 where !madeFolder:
                // The folder is made when missing (MKCOL answers 405 when it is there), and the
                // upload sent again, this time waiting out 500s as any request does.
                try makeFolder(folder)
                madeFolder = true
            default:
                throw unexpected(answer, "PUT", path)
            }
        }
    }

    /// The answer to a `HEAD`: the length it announces is the file's, not a body's, so
    /// no body limit applies.
    private func head(_ url: URL, path: String) throws -> HTTPAnswer {
        try send("HEAD", url, path: path, maxBody: Int.max).answer
    }

    /// Checks that the file the server now holds at `path` has `size` bytes (a `HEAD`): a
    /// server behind a gateway that loses part of a large body may still answer 201.
    private func checkSize(_ path: String, _ size: Int) throws {
        let answer = try head(fileURL(path), path: path)
        guard answer.status == 200, let length = answer.header("Content-Length").flatMap({ Int($0) }) else { return }
        guard length == size else {
            throw CloudError.failed(path: path, reason: "the server kept \(length) of the \(size) bytes sent")
        }
    }

    /// Renames `source` onto `destination`, replacing it unless `overwrite` is false.
    private func move(_ source: String, to destination: String, overwrite: Bool) throws {
        let target = fileURL(destination)
        let (answer, attempts) = try send(
            "MOVE", fileURL(source), path: destination,
            headers: ["Destination": target.absoluteString, "Overwrite": overwrite ? "T" : "F"])
        switch answer.status {
        case 200, 201, 204:
            return
        case 412 where !overwrite:
            // A retried MOVE whose first attempt went through and lost only its answer
            // finds its own file there: the temporary one is gone then.
            if attempts > 1, try head(fileURL(source), path: source).status == 404 { return }
            throw CloudError.exists(path: destination)
        case 404 where attempts > 1:
            // The first attempt may have moved the file and lost only its answer.
            let check = try head(target, path: destination)
            if check.status == 200 { return }
            throw unexpected(answer, "MOVE", destination)
        default:
            throw unexpected(answer, "MOVE", destination)
        }
    }

    /// Makes `folder` ("" is the MiDiccio folder itself), making missing parents first.
    private func makeFolder(_ folder: String, depth: Int = 0) throws {
        if depth > 0, isKnown(folder) { return }
        var madeParent = false
        while true {
            let answer = try send("MKCOL", folderURL(folder), path: folder.isEmpty ? "/" : folder).answer
            switch answer.status {
            case 200, 201, 204, 405:
                // 405: MKCOL on a folder that exists (another device made it first).
                markExisting(folder)
                return
            case 404 where !madeParent, 409 where !madeParent:
                guard !folder.isEmpty else {
                    let parent = address.url.deletingLastPathComponent().absoluteString
                    throw CloudError.notThere(
                        "the server answered, but the folder \(address) does not exist there and cannot be made, because "
                            + "\(parent) does not exist either; check the URL (remote set webdav)")
                }
                guard depth < 32 else { throw unexpected(answer, "MKCOL", folder) }
                try makeFolder(split(folder).folder, depth: depth + 1)
                madeParent = true
            default:
                throw unexpected(answer, "MKCOL", folder.isEmpty ? "/" : folder)
            }
        }
    }

    // MARK: - Sending, retrying and errors

    /// Sends one request, retrying while the server or the network fails for a moment.
    /// Returns the answer (any status but 401/403) and the number of attempts made; a 500
    /// comes back at once when `retrying500` is false.
    private func send(
        _ method: String, _ url: URL, path: String, body: Data? = nil, bodyFile: OpenedFile? = nil,
        headers: [String: String] = [:], maxBody: Int = 1 << 20, spillFrom: Int? = nil, retrying500: Bool = true
    ) throws -> (answer: HTTPAnswer, attempts: Int) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        request.setValue("MiDiccio", forHTTPHeaderField: "User-Agent")
        var attempt = 1
        while true {
            state.withLock { $0.counts[method, default: 0] += 1 }
            switch client.send(request, timeout: options.timeout, maxBodyBytes: maxBody, spillFrom: spillFrom, bodyFile: bodyFile) {
            case .success(let answer):
                if answer.status == 403, ["PUT", "MOVE", "DELETE", "MKCOL"].contains(method) {
                    // Reads went through with the same password: a folder this user may
                    // only read, not a wrong password (found by the exploratory helper, round 7).
                    let reason =
                        "the server does not let this user change it (403 Forbidden); check that the user may write to the folder there"
                    throw CloudError.failed(path: path, reason: reason)
                }
                // A server that takes only Digest authentication: MiDiccio sends Basic, so a
                // right password was called refused, and people typed it again for ever
                // (found by the exploratory helper with Apache and WsgiDAV, round 20B #1).
                if answer.status == 401, !noPassword, let offered = answer.header("WWW-Authenticate"),
                    !offered.lowercased().contains("basic")
                {
                    let scheme = offered.split(separator: " ").first.map(String.init) ?? offered
                    throw CloudError.unauthorized(
                        "the server asks for \(scheme) authentication, which MiDiccio does not use; it sends the user name "
                            + "and password as Basic authentication (over https): allow Basic on the server (Apache: "
                            + "AuthType Basic; WsgiDAV: accept_basic) and the password stored here is used as it is")
                }
                if answer.status == 401 || answer.status == 403 {
                    // No password was sent: "refused" sent people looking for a typing
                    // mistake (found by the exploratory helper, round 9: a library copied to
                    // a new computer without the file that holds its password).
                    throw CloudError.unauthorized(
                        noPassword
                            ? "the server asks for a password, and none is stored for this library nor set in "
                                + "MIDICCIO_WEBDAV_PASSWORD (give it with: midiccio remote set webdav URL --user NAME "
                                + "--password-stdin; a library copied to another computer leaves its password behind, in the "
                                + "'.credentials' file beside the library)"
                            : passwordFromVariable
                                // Setting the password again changed nothing: the variable
                                // wins over it (found by the exploratory helper, round 13C).
                                ? "the server refused the user name or the password in MIDICCIO_WEBDAV_PASSWORD, which is "
                                    + "used instead of the stored one (correct it, or unset it to use the stored password)"
                                : "the server refused the user name or password")
                }
                guard HTTPRetryPolicy.isRetryable(status: answer.status), retrying500 || answer.status != 500 else {
                    return (answer, attempt)
                }
                let retryAfter = HTTPRetryPolicy.retryAfterSeconds(answer.header("Retry-After"))
                guard let delay = options.retry.delay(afterAttempt: attempt, retryAfter: retryAfter) else {
                    if let retryAfter, retryAfter > options.retry.maxDelay {
                        throw CloudError.unavailable("the server at \(address.hostAndPort) is busy and asks to wait \(Int(retryAfter)) s")
                    }
                    throw CloudError.unavailable(
                        "the server at \(address.hostAndPort) answered \(Self.statusText(answer.status)) \(attempt) time\(attempt == 1 ? "" : "s")"
                    )
                }
                options.sleep(delay)
            case .failure(.dropped):
                guard let delay = options.retry.delay(afterAttempt: attempt, retryAfter: nil) else {
                    throw CloudError.unavailable(
                        "the connection to \(address.hostAndPort) dropped \(attempt) time\(attempt == 1 ? "" : "s")")
                }
                options.sleep(delay)
            case .failure(let failure):
                throw cloudError(failure, path: path)
            }
            attempt += 1
        }
    }

    private func cloudError(_ failure: HTTPFailure, path: String) -> CloudError {
        let server = address.hostAndPort
        switch failure {
        case .timedOut:
            return .unavailable("the server at \(server) did not answer within \(Self.seconds(options.timeout))")
        case .refused:
            return .unavailable("nothing answers at \(server) (is the server running?)")
        case .dropped:
            return .unavailable("the connection to \(server) dropped")
        case .hostNotFound:
            return .unavailable("the server name \(address.url.host ?? server) is unknown (check the URL and the network)")
        case .offline:
            return .unavailable("this computer is offline")
        case .insecure:
            return .unavailable("the secure connection to \(server) failed (check the server's certificate)")
        case .tooLarge(let limit):
            return .failed(path: path, reason: "the server's answer is larger than \(limit / 1_048_576) MB")
        case .notKept(let reason):
            return .unavailable("the file could not be kept in a temporary file while it downloaded: \(reason)")
        case .unreadableBody(let reason):
            return .failed(path: path, reason: "the file to upload could not be read: \(reason)")
        case .other(let code):
            return .unavailable("network error \(code) talking to \(server)")
        }
    }

    private func unexpected(_ answer: HTTPAnswer, _ method: String, _ path: String) -> CloudError {
        switch answer.status {
        case 300..<400:
            // Where it points, without any user, password or query it may carry: the host
            // alone told nothing of a move to https or to another path (round 20B #8).
            let target = answer.header("Location").flatMap(Self.shownTarget).map { " (to \($0))" } ?? ""
            return .failed(path: path, reason: "the server redirects\(target); set the remote to the folder's final URL")
        case 507:
            return .failed(path: path, reason: "the server has no space left (507 Insufficient Storage)")
        case 413:
            // nginx refuses bodies over 1 MB unless told otherwise, as PHP and many proxies
            // do: a library of about 18,000 words has snapshots larger (round 20B #3).
            return .failed(
                path: path,
                reason: "the server refuses uploads this large (413 Payload Too Large); raise its upload limit "
                    + "(nginx: client_max_body_size; PHP, as Nextcloud runs: upload_max_filesize and post_max_size; "
                    + "and that of any proxy in front of it)")
        case 423:
            return .failed(
                path: path,
                reason: "the file is locked by another program (423 Locked); the next sync tries again once the lock ends "
                    + "(the server's web interface may show and end it)")
        case 405 where method == "PROPFIND", 501 where method == "PROPFIND":
            // nginx's own WebDAV module lists nothing: "answered PROPFIND with 405", and "the
            // next sync will try again", said nothing of what to change (round 20B #10).
            return .notThere(
                "the server at \(address.hostAndPort) answers, but does not list folders (PROPFIND: "
                    + "\(Self.statusText(answer.status))): this address does not speak WebDAV, or listing is not switched on "
                    + "there (nginx: the dav-ext module, with dav_ext_methods PROPFIND OPTIONS); check the URL (remote set webdav)")
        default:
            return .failed(path: path, reason: "the server answered \(method) with \(Self.statusText(answer.status))")
        }
    }

    /// A redirect's target as shown: scheme, host, port and path, nothing else.
    private static func shownTarget(_ location: String) -> String? {
        guard let parts = URLComponents(string: location), let host = parts.host else { return nil }
        let port = parts.port.map { ":\($0)" } ?? ""
        return "\(parts.scheme.map { "\($0)://" } ?? "")\(host)\(port)\(parts.percentEncodedPath)"
    }

    private static func statusText(_ status: Int) -> String {
        "\(status) " + HTTPURLResponse.localizedString(forStatusCode: status).capitalized
    }

    private static func seconds(_ value: TimeInterval) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    // MARK: - Paths

    /// The URL of a file, each path component percent-encoded.
    private func fileURL(_ path: String) -> URL {
        URL(string: address.url.absoluteString + "/" + Self.encoded(path))!
    }

    /// The URL of a folder, with the trailing slash servers expect of collections.
    private func folderURL(_ folder: String) -> URL {
        URL(string: address.url.absoluteString + "/" + (folder.isEmpty ? "" : Self.encoded(folder) + "/"))!
    }

    /// The decoded path a listing's hrefs are compared with.
    private func decodedPath(_ folder: String) -> String {
        address.decodedPath + (folder.isEmpty ? "" : "/" + folder)
    }

    private static let componentCharacters: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/;?#%")
        return allowed
    }()

    private static func encoded(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true)
            .map { String($0).addingPercentEncoding(withAllowedCharacters: componentCharacters) ?? String($0) }
            .joined(separator: "/")
    }

    private func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    // MARK: - Folders known to exist

    private func isKnown(_ folder: String) -> Bool { state.withLock { $0.folders.contains(folder) } }

    private func markExisting(_ folder: String) {
        state.withLock { state in
            // A folder that exists has every parent too.
            var current = folder
            while state.folders.insert(current).inserted, !current.isEmpty {
                current = split(current).folder
            }
        }
    }

    private func forget(_ folder: String) { _ = state.withLock { $0.folders.remove(folder) } }
}
