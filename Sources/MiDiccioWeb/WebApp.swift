import Foundation
import MiDiccioFiles
import MiDiccioKit
import Synchronization

/// The MiDiccio web app: the page, its script and style, and the JSON API under `/api/`.
///
/// Every request first passes `SecurityPolicy`'s access rules (Host, access token);
/// the route table then finds its answer, and a write passes the policy's write rules
/// (Origin, CSRF token) before it borrows its own library connection for the time of the
/// answer. Failures become JSON errors with a 4xx or
/// 5xx status, never a crash.
public final class WebApp: HTTPHandler {
    /// The security rules (and the page's CSRF token).
    public let policy: SecurityPolicy
    /// The version written into this device's sync record.
    public let appVersion: String
    let pool: LibraryPool
    /// The page with this session's CSRF token, made once: the token lives as long as the app.
    private let page: Data
    /// One sync at a time: two tabs pressing "Sync now" would otherwise both upload. A bulk
    /// action takes it too, so one asked for while the page's sync runs (a first sync of a
    /// large library takes half a minute) waits for it, instead of failing after SQLite's
    /// 10 s wait for the write lock.
    let syncLock = NSLock()
    /// The idempotency keys of the imports and restores already submitted.
    private let submitted = SubmittedUploads()
    /// How far the long actions under way have come (`WebApp+LongActions.swift`).
    let jobs = JobBoard()
    /// The environment: where cloud passwords, Google's addresses and an OAuth client
    /// may be named.
    let environment: [String: String]
    /// Google sign-ins started from the page and waiting for their answer, and what
    /// became of every sign-in (Google's and Apple's), for the page.
    let googleSignIns: GoogleSignInBook
    /// The iCloud sign-in started from the page and waiting for Apple's answer.
    let iCloudSignIns: ICloudSignInDesk

    /// The address a phone opens to pair (with the token), shown as a QR code in
    /// Settings; nil when the server is for this computer only.
    private let pairing = Mutex<String?>(nil)

    /// Words the Trash's clean-up deleted as `midiccio serve` opened the library, not told
    /// to a page yet: the first page's sync says so (`notePurgedAtStart`).
    private let purgedAtStart = Mutex(0)

    /// Notes that the Trash's clean-up deleted `count` words permanently as the library was
    /// opened to serve it (a library that does not sync, `autoPurgeUnlessSyncing`): the
    /// next `api/sync` with no remote says so with what it deletes itself. It was said on
    /// the terminal only, which a person starting the app from a launcher never sees
    /// (found by the exploratory helper, round 18A F7).
    public func notePurgedAtStart(_ count: Int) { purgedAtStart.withLock { $0 += count } }

    /// Sets the pairing address, once the server knows its port.
    public func setPairingAddress(_ address: String?) { pairing.withLock { $0 = address } }

    /// The pairing address, if any.
    public var pairingAddress: String? { pairing.withLock { $0 } }

    /// The largest backup (or import file) the page may upload.
    public static let uploadLimit = 100 * 1_048_576
    /// The largest body of any other request: a setting, a list of ids.
    public static let requestLimit = 64 * 1024
    /// The largest body of a word's add or edit: a word at `WordLimits` in JSON, each
    /// character counted at 6 bytes (the longest a browser's JSON writes one, `\u001f`),
    /// with `requestLimit` to spare for the keys and punctuation.
    public static let wordRequestLimit = WordLimits.wordCharacters * 6 + requestLimit
    /// The largest body of a word's edit: the page sends the word as its editor opened it
    /// too (`base`), so twice a word at `WordLimits`. A word at every limit written in emoji
    /// added, and its edit was refused as too large (found by the exploratory helper, round 19B).
    public static let wordEditRequestLimit = 2 * WordLimits.wordCharacters * 6 + requestLimit

    /// Serves the library at `libraryPath`.
    public convenience init(
        libraryPath: String, policy: SecurityPolicy, appVersion: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.init(
            libraryPath: libraryPath, policy: policy, appVersion: appVersion, environment: environment,
            now: { Int64(Date().timeIntervalSince1970 * 1000) })
    }

    /// Serves the library at `libraryPath`, with `now` (milliseconds since 1970) as the
    /// clock that expires Google sign-ins (tests move it). Every `housekeepingInterval`
    /// seconds (one by default), the app scrubs purged text and moves the log into the
    /// library file (`LibraryPool`).
    package init(
        libraryPath: String, policy: SecurityPolicy, appVersion: String, environment: [String: String],
        now: @escaping @Sendable () -> Int64, housekeepingInterval: Double? = nil
    ) {
        self.policy = policy
        self.appVersion = appVersion
        self.environment = environment
        self.pool = LibraryPool(
            path: libraryPath, environment: environment, interval: housekeepingInterval ?? LibraryPool.housekeepingInterval)
        self.libraryKey = Self.libraryKey(of: libraryPath)
        self.page = AppAssets.page(csrfToken: policy.csrfToken, libraryKey: libraryKey)
        self.googleSignIns = GoogleSignInBook(now: now)
        self.iCloudSignIns = ICloudSignInDesk(now: now)
    }

    public func bodyLimit(method: String, path: String) -> Int {
        Self.routes(for: path).routes.first { $0.method == method }?.bodyLimit ?? Self.requestLimit
    }

    public func payloadTooLarge(limit: Int, path: String) -> HTTPResponse {
        let size = limit >= 1_048_576 ? "\(limit / 1_048_576) MB" : "\(limit / 1024) KB"
        // A backup the web app itself made can pass the limit (its download has none): the
        // command line restores a file of any size, read in pieces. An import it refuses
        // too, over 100 MB: it was offered as taking any size (round 27B #5).
        let advice: String? =
            switch path {
            case "/api/backup/restore": "The command line restores a backup of any size: midiccio backup restore FILE"
            case "/api/import":
                "MiDiccio imports lists of up to \(ImportLimits.fileBytes / 1_048_576) MB: split it into smaller files, and import each"
            default: nil
            }
        let message =
            advice.map { "this file is larger than the web app takes (\(size)); nothing was changed. \($0)" }
            ?? "the request is too large (the limit is \(size))"
        var response = HTTPResponse.error(413, message, field: advice == nil ? nil : "file")
        response.setHeader("Connection", "close")
        policy.harden(&response)
        return response
    }

    /// The access rules, and a known route's write rules, asked when the headers are in:
    /// a request without its token or CSRF token is refused before its body is read.
    public func refusal(before request: HTTPRequest) -> HTTPResponse? {
        var refusal = policy.accessRefusal(of: request)
        if refusal == nil, Self.routes(for: request.path).routes.contains(where: { $0.method == request.method }) {
            refusal = policy.writeRefusal(of: request) ?? libraryRefusal(of: request)
        }
        guard var refusal else { return nil }
        policy.harden(&refusal)
        return refusal
    }

    /// What the page names its library by (the `library-key` meta tag, sent back in
    /// `X-MiDiccio-Library` with every change): a hash of the library file's full path.
    let libraryKey: String

    /// The key of the library at `path`: 16 hexadecimal digits of the FNV-1a hash of its
    /// full path, symbolic links resolved, so the same file gives the same key at every start.
    static func libraryKey(of path: String) -> String {
        let full = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        return FNV1a.hash(full.utf8).sixteenHexDigits
    }

    /// Refuses a change sent by a page made for another library: `serve` was started again
    /// on the same port with another library, and the page, taking the new server's token
    /// and sending its request again, emptied that library's Trash or undid its import
    /// (found by the exploratory helper, round 8). A request without the header (a script)
    /// is let through.
    private func libraryRefusal(of request: HTTPRequest) -> HTTPResponse? {
        guard request.method != "GET", request.method != "HEAD", let sent = request.header("x-midiccio-library"), sent != libraryKey
        else { return nil }
        return .error(
            409,
            "this page was opened for another library than the one MiDiccio serves now (it was started again on another library); "
                + "nothing was changed. Copy anything you typed, then reload the page.",
            field: "library")
    }

    public func serverError(_ status: Int, _ reason: String) -> HTTPResponse {
        var response = HTTPResponse.error(status, reason)
        response.setHeader("Connection", "close")
        policy.harden(&response)
        return response
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var response = policy.accessRefusal(of: request) ?? route(request)
        policy.harden(&response)
        return response
    }

    // MARK: - Routes

    /// One entry of the route table.
    private struct Route: Sendable {
        /// The answer to a request; `id` is the word id in the path ("" when the pattern has none).
        typealias Answer = @Sendable (_ app: WebApp, _ request: HTTPRequest, _ id: String) throws -> HTTPResponse

        /// GET, POST, PUT or DELETE; a GET route answers HEAD too.
        let method: String
        /// The path without its first "/", the word id written as ":id": "api/words/:id".
        let pattern: String
        /// The largest body accepted, in bytes.
        let bodyLimit: Int
        let answer: Answer

        init(_ method: String, _ pattern: String, bodyLimit: Int = WebApp.requestLimit, _ answer: @escaping Answer) {
            self.method = method
            self.pattern = pattern
            self.bodyLimit = bodyLimit
            self.answer = answer
        }
    }

    /// Every route, once. The table picks the answer, tells a wrong method (405, with the
    /// methods that would do in Allow) from an unknown path (404), and sets body limits.
    private static let routes: [Route] = [
        Route("GET", "") { app, request, _ in app.indexPage(request) },
        Route("GET", "app.js") { _, request, _ in asset(AppAssets.script, request) },
        Route("GET", "app.css") { _, request, _ in asset(AppAssets.style, request) },
        Route("GET", "api/words") { app, request, _ in try app.listWords(request) },
        Route("POST", "api/words", bodyLimit: wordRequestLimit) { app, request, _ in try app.addWord(request) },
        Route("GET", "api/words/:id") { app, _, id in try app.withWord(id) { library, id in try app.showWord(library, id) } },
        Route("PUT", "api/words/:id", bodyLimit: wordEditRequestLimit) { app, request, id in
            try app.withWord(id) { library, id in try app.editWord(library, id, request) }
        },
        Route("DELETE", "api/words/:id") { app, _, id in
            try app.withWord(id) { library, id in .json(app.wordEnvelope(try library.delete([id])[0])) }
        },
        Route("POST", "api/words/:id/restore") { app, _, id in
            try app.withWord(id) { library, id in .json(app.wordEnvelope(try library.restore([id])[0])) }
        },
        Route("GET", "api/search") { app, request, _ in try app.search(request) },
        Route("GET", "api/search/count") { app, request, _ in try app.searchCount(request) },
        Route("GET", "api/duplicates") { app, request, _ in try app.duplicates(request) },
        Route("GET", "api/tags") { app, _, _ in try app.tags() },
        Route("GET", "api/trash") { app, request, _ in try app.trash(request) },
        Route("POST", "api/trash/restore") { app, request, _ in try app.trashBulk(request, purge: false) },
        Route("POST", "api/trash/purge") { app, request, _ in try app.trashBulk(request, purge: true) },
        Route("POST", "api/trash/:id/purge") { app, _, id in
            try app.withWord(id) { library, id in .json(app.wordEnvelope(try library.purge([id])[0])) }
        },
        Route("POST", "api/bulk/tag", bodyLimit: bulkRequestLimit) { app, request, _ in try app.bulkTag(request) },
        Route("POST", "api/bulk/selection") { app, request, _ in try app.bulkSelection(request) },
        Route("POST", "api/bulk/trash", bodyLimit: bulkRequestLimit) { app, request, _ in try app.bulkTrash(request, restore: false) },
        Route("POST", "api/bulk/restore", bodyLimit: bulkRequestLimit) { app, request, _ in try app.bulkTrash(request, restore: true) },
        Route("POST", "api/bulk/purge", bodyLimit: bulkRequestLimit) { app, request, _ in try app.bulkPurge(request) },
        Route("POST", "api/bulk/undo") { app, request, _ in try app.bulkUndo(request) },
        Route("POST", "api/trash/empty") { app, request, _ in try app.emptyTrash(request) },
        Route("GET", "api/status") { app, _, _ in try app.status() },
        Route("PUT", "api/remote") { app, request, _ in try app.setRemote(request) },
        Route("POST", "api/remote/gdrive") { app, request, _ in try app.startGoogleSignIn(request) },
        Route("GET", "oauth/callback") { app, request, _ in app.finishGoogleSignIn(request) },
        Route("GET", "api/signin") { app, request, _ in app.googleSignInOutcome(request) },
        Route("POST", "api/remote/icloud") { app, request, _ in try app.startICloudSignIn(request) },
        Route("GET", "icloud-callback") { _, _, _ in unknownICloudSignIn() },
        Route("POST", "api/sync") { app, request, _ in
            try app.answerMaybeInBackground(request, key: request.query["job"]) {
                try app.sync(
                    job: request.query["job"], allowMassDelete: request.query["allowMassDelete"] == "1",
                    findUnnamedFiles: request.query["findUnnamedFiles"] == "1")
            }
        },
        Route("GET", "api/jobs/:id") { app, _, key in app.jobProgress(key) },
        Route("GET", "api/backup") { app, _, _ in try app.exportBackup() },
        Route("POST", "api/backup/restore", bodyLimit: uploadLimit) { app, request, _ in
            try app.answerMaybeInBackground(request, key: request.query["key"]) { try app.restoreBackup(request) }
        },
        Route("POST", "api/backup/undo") { app, request, _ in try app.undoRestore(request) },
        Route("GET", "api/conflicts") { app, _, _ in try app.conflictCopies() },
        Route("GET", "api/export") { app, request, _ in try app.exportSheet(request) },
        Route("POST", "api/import", bodyLimit: uploadLimit) { app, request, _ in
            try app.answerMaybeInBackground(request, key: request.query["key"]) { try app.importSheet(request) }
        },
        Route("POST", "api/import/undo") { app, request, _ in try app.undoImport(request) },
        Route("GET", "api/study") { app, request, _ in try app.studyNext(request) },
        Route("POST", "api/study/answer") { app, request, _ in try app.studyAnswer(request) },
        Route("POST", "api/study/undo") { app, request, _ in try app.studyUndo(request) },
        Route("POST", "api/study/limits") { app, request, _ in try app.studyLimits(request) },
        Route("GET", "api/stats") { app, _, _ in try app.studyStatsAnswer() },
        Route("GET", "study/reviews.svg") { app, _, _ in try app.studyChart(forecast: false) },
        Route("GET", "study/forecast.svg") { app, _, _ in try app.studyChart(forecast: true) },
        Route("GET", "sw.js") { _, request, _ in asset(AppAssets.serviceWorker, request) },
        Route("GET", "manifest.webmanifest") { _, request, _ in asset(AppAssets.manifest, request) },
        Route("GET", "icon.svg") { _, request, _ in asset(AppAssets.icon, request) },
        Route("GET", "offline.html") { _, _, _ in offlinePage() },
        Route("GET", "api/pairing") { app, request, _ in app.pairingStatus(request) },
        Route("GET", "pairing.svg") { app, request, _ in app.pairingCode(request) },
        Route("POST", "api/pairing/signout") { app, request, _ in try app.signOutBrowser(request) },
    ]

    private static let routesByPattern = Dictionary(grouping: routes, by: \.pattern)

    /// The routes whose pattern matches `path` (none: no such page), and its variable part
    /// (a word id or a job key; empty for a fixed path).
    private static func routes(for path: String) -> (routes: [Route], id: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        // A fixed path first ("api/trash/empty"); otherwise the third part may be the
        // variable one (a word id, a job key), written ":id" in the table.
        if let routes = routesByPattern[parts.joined(separator: "/")] { return (routes, "") }
        guard parts.count >= 3 else { return ([], "") }
        var pattern = parts
        pattern[2] = ":id"
        return (routesByPattern[pattern.joined(separator: "/")] ?? [], parts[2])
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        // Apple's callback, when it is this server's address: its path is the API token's.
        if let answer = iCloudCallbackHere(request) { return answer }
        let (routes, id) = Self.routes(for: request.path)
        guard !routes.isEmpty else { return .error(404, "no such page: \(request.path)") }
        let method = request.method == "HEAD" ? "GET" : request.method
        guard let route = routes.first(where: { $0.method == method }) else {
            var response = HTTPResponse.error(405, "\(request.method) is not allowed here")
            response.setHeader("Allow", routes.flatMap { $0.method == "GET" ? ["GET", "HEAD"] : [$0.method] }.joined(separator: ", "))
            return response
        }
        // Only a route that exists can change anything, so the write rules come after the
        // table: a wrong address or method gets its 404 or 405 either way.
        if let refusal = policy.writeRefusal(of: request) ?? libraryRefusal(of: request) { return refusal }
        do {
            return try route.answer(self, request, id)
        } catch {
            return Self.failure(error)
        }
    }

    private func withWord(_ text: String, _ body: (WordLibrary, WordID) throws -> HTTPResponse) throws -> HTTPResponse {
        guard let id = WordID(text) else { return .error(404, "no word with id \(text)") }
        return try pool.withLibrary { try body($0, id) }
    }

    // MARK: - Page

    private func indexPage(_ request: HTTPRequest) -> HTTPResponse {
        if let token = policy.accessToken, let sent = request.query["token"],
            SecurityPolicy.constantTimeEqual(sent, token) || policy.browsers.isLiveCode(sent, consume: true)
        {
            // Trade the token (or a one-time code) in the address for a cookie, and drop
            // it from the address bar (and from history) with a redirect.
            var response = HTTPResponse(status: 303, contentType: nil, body: Data())
            response.setHeader("Location", "/")
            // Over HTTPS the cookie is Secure: a browser never sends it over plain HTTP.
            let secure = request.isSecure ? "; Secure" : ""
            // Each browser gets a secret of its own, so Settings can sign one out.
            let secret = policy.browsers.pair(userAgent: request.header("user-agent") ?? "")
            // A year: a paired phone stays paired until signed out or the token renewed.
            response.setHeader(
                "Set-Cookie",
                "\(SecurityPolicy.tokenCookie)=\(secret); Path=/; Max-Age=31536000; HttpOnly; SameSite=Strict\(secure)")
            return response
        }
        // No ETag, and the policy's no-store: the page carries this session's CSRF token,
        // which has no business in the browser's disk cache, and a copy kept from an
        // earlier run of `serve` would hold a token whose every write is refused. It is
        // 9 KB made once per run, so sending it again costs next to nothing.
        return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", body: page)
    }

    /// A compiled-in file. The browser may keep it but asks each time (no-cache) whether
    /// it changed; until a new build it hears a bodiless 304.
    private static func asset(_ asset: WebAsset, _ request: HTTPRequest) -> HTTPResponse {
        var response =
            asset.isCurrent(for: request.header("if-none-match"))
            ? HTTPResponse(status: 304, contentType: nil, body: Data())
            : HTTPResponse(status: 200, contentType: asset.contentType, body: asset.body)
        response.setHeader("ETag", asset.etag)
        response.setHeader("Cache-Control", "no-cache")
        return response
    }

    // MARK: - Words

    /// `GET api/words?sort=&tag=&limit=&offset=&after=`: a page of the list. `after` (the
    /// page before's `next`, the place its last word had; or a word id, that word's place
    /// now) pages by key; `total` counts the list (with a tag, the words carrying it), and
    /// `mark` names the state of the library's words it was counted in (its digest), which
    /// a page sends back when a person chooses every word (`bulkSelection`).
    private func listWords(_ request: HTTPRequest) throws -> HTTPResponse {
        let limit = try Self.integer(request, "limit", default: 50, in: 1...500)
        let offset = try Self.integer(request, "offset", default: 0, in: 0...Int(Int32.max))
        let sort = try Self.sort(request, default: .updated) ?? .updated
        let tag = request.query["tag"].flatMap { $0.isEmpty ? nil : $0 }
        let (after, place) = try Self.after(request)
        return try pool.withLibrary { library in
            // One extra row says whether another page exists without counting them all.
            let first = offset == 0 && after == nil && place == nil
            let (words, hasMore, next, counted) = try library.database.read {
                var words = try library.list(
                    ListQuery(tag: tag, sort: sort, limit: limit + 1, offset: offset, after: after, afterPlace: place))
                let hasMore = words.count > limit
                if hasMore { words.removeLast() }
                // The count and the words' mark as the page is read (`mark`).
                let counted =
                    first ? (try tag.map { try library.tagCount($0) } ?? library.counts().words, try library.libraryDigest()) : nil
                // Where this page ends as it is shown: the next starts there.
                return (words, hasMore, try words.last.flatMap { try library.listPlace(of: $0.id, sort: sort) }, counted)
            }
            var pairs = [("words", WordJSON.compactArray(words)), ("hasMore", String(hasMore)), ("next", JSONText.optional(next))]
            if let (total, mark) = counted {
                pairs += [("total", String(total)), ("mark", JSONText.quote(mark))]
            }
            return .json(JSONText.object(pairs))
        }
    }

    /// The `after` parameter: a word id, or a place (`next` of the page before, which holds
    /// a `.`); neither when absent.
    private static func after(_ request: HTTPRequest) throws(BadRequest) -> (id: WordID?, place: String?) {
        guard let text = request.query["after"], !text.isEmpty else { return (nil, nil) }
        if text.utf8.contains(UInt8(ascii: ".")) { return (nil, text) }
        guard let id = WordID(text) else { throw BadRequest(message: "after must be a word id or a page's next", field: "after") }
        return (id, nil)
    }

    /// The `sort` parameter: nil when absent or "relevance" (and `fallback` is nil).
    private static func sort(_ request: HTTPRequest, default fallback: ListSort?) throws(BadRequest) -> ListSort? {
        guard let name = request.query["sort"], !name.isEmpty, name != "relevance" else { return fallback }
        guard let sort = ListSort(rawValue: name) else {
            let names = ["relevance"] + ListSort.allCases.map(\.rawValue)
            throw BadRequest(message: "sort must be one of: \(names.joined(separator: ", "))", field: "sort")
        }
        return sort
    }

    private func wordEnvelope(_ word: Word, duplicates: [Word] = [], adding more: [(String, String)] = []) -> String {
        JSONText.object([("word", WordJSON.object(word, pretty: false)), ("duplicates", WordJSON.compactArray(duplicates))] + more)
    }

    private func showWord(_ library: WordLibrary, _ id: WordID) throws -> HTTPResponse {
        guard let word = try library.word(id) else { return .error(404, "no word with id \(id)") }
        return .json(wordEnvelope(word))
    }

    private func addWord(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        let content = WordContent(
            term: try body.string("term") ?? "", meaning: try body.string("meaning") ?? "",
            reading: try body.string("reading") ?? "", examples: try body.strings("examples") ?? [],
            notes: try body.string("notes") ?? "", tags: try Self.tags(body) ?? [])
        let result = try pool.withLibrary { try $0.add(content) }
        return .json(wordEnvelope(result.word, duplicates: result.duplicates), status: 201)
    }

    /// `PUT api/words/:id` with the fields to set. With `base`, the fields as the editor
    /// showed them when it opened, only the fields the person changed are set (and only the
    /// tags added or removed): what a sync or another program changed meanwhile in the
    /// others is kept, and the answer's `keptFromElsewhere` names those fields. A field
    /// changed both here and elsewhere takes the save; `replacedFromElsewhere` gives each
    /// such field with the value it replaced (`field`, `was`), so the page can say so.
    private func editWord(_ library: WordLibrary, _ id: WordID, _ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        var edit = WordEdit(
            term: try body.string("term"), meaning: try body.string("meaning"), reading: try body.string("reading"),
            examples: try body.strings("examples"), notes: try body.string("notes"), tags: try Self.tags(body))
        var keptFromElsewhere: [String] = []
        var replaced: [(field: String, was: String)] = []
        if let base = try body.object("base") {
            guard let current = try library.word(id) else { throw LibraryError.wordNotFound(id.rawValue) }
            (keptFromElsewhere, replaced) = try Self.leaveUntouched(&edit, base: base, current: current)
        }
        let word = try library.edit(id, edit)
        let duplicates = try library.duplicates(of: word.term).filter { $0.id != word.id }
        var adding = keptFromElsewhere.isEmpty ? [] : [("keptFromElsewhere", JSONText.array(keptFromElsewhere))]
        if !replaced.isEmpty {
            let entries = replaced.map { JSONText.object([("field", JSONText.quote($0.field)), ("was", JSONText.quote($0.was))]) }
            adding.append(("replacedFromElsewhere", "[" + entries.joined(separator: ",") + "]"))
        }
        return .json(wordEnvelope(word, duplicates: duplicates, adding: adding))
    }

    /// Takes out of `edit` every field that is as `base` (what the editor showed) had it,
    /// so the word keeps its value now; tags changed become the tags added and removed.
    /// Returns the fields left to the word's value now that differs from `base` (changed
    /// elsewhere while the editor was open, and kept), and the fields changed both here
    /// and elsewhere, with the value elsewhere that the save replaces.
    private static func leaveUntouched(
        _ edit: inout WordEdit, base: JSONBody, current: Word
    ) throws -> (
        kept: [String], replaced: [(field: String, was: String)]
    ) {
        var kept: [String] = []
        var replaced: [(field: String, was: String)] = []
        func settle<T: Equatable>(_ name: String, _ field: inout T?, _ shown: T?, _ now: T, _ text: (T) -> String) {
            guard let value = field, let shown else { return }
            guard value == shown else {
                if now != shown && now != value { replaced.append((name, text(now))) }
                return
            }
            field = nil
            if now != shown { kept.append(name) }
        }
        settle("term", &edit.term, try base.string("term"), current.term) { $0 }
        settle("meaning", &edit.meaning, try base.string("meaning"), current.meaning) { $0 }
        settle("reading", &edit.reading, try base.string("reading"), current.reading) { $0 }
        settle("notes", &edit.notes, try base.string("notes"), current.notes) { $0 }
        // The editor shows examples one per line and sends its box's lines, blank ones too.
        var examples = edit.examples.map(Self.filled)
        settle("examples", &examples, try base.strings("examples").map(Self.filled), current.examples) {
            $0.joined(separator: " / ")
        }
        if examples == nil { edit.examples = nil }
        if let tags = edit.tags, let shownTags = try Self.tags(base) {
            let keys = Set(tags.map(TagSet.key))
            let shownKeys = Set(shownTags.map(TagSet.key))
            let currentKeys = Set(current.tags.map(TagSet.key))
            if keys == shownKeys && tags == shownTags {
                edit.tags = nil
                if currentKeys != shownKeys { kept.append("tags") }
            } else if keys != shownKeys {
                // Only what the person added or removed: tags put on elsewhere stay.
                edit.tags = nil
                edit.addTags = tags.filter { !shownKeys.contains(TagSet.key($0)) }
                edit.removeTags = shownTags.filter { !keys.contains(TagSet.key($0)) }
                if !currentKeys.subtracting(shownKeys).isEmpty { kept.append("tags") }
            } else {
                // A change of order or case alone, made to the tags the word has now: a tag
                // taken off elsewhere meanwhile stays off, one put on elsewhere stays, last.
                edit.tags =
                    tags.filter { currentKeys.contains(TagSet.key($0)) }
                    + current.tags.filter { !shownKeys.contains(TagSet.key($0)) }
                if currentKeys != shownKeys { kept.append("tags") }
            }
        }
        return (kept, replaced)
    }

    /// Examples without blank lines, as a word keeps them.
    private static func filled(_ examples: [String]) -> [String] {
        examples.filter { !$0.allSatisfy(\.isWhitespace) }
    }

    /// Tags as a list, or as one text separated by spaces or commas (as typed). A tag of
    /// a list keeps a comma it holds (an import or the command line may give one): the page
    /// sends the word's own tags back, and split, they read as changed elsewhere and such a
    /// tag could never be taken off (found by the exploratory helper, round 8).
    private static func tags(_ body: JSONBody) throws(BadRequest) -> [String]? {
        guard let tags = try body.strings("tags") else { return nil }
        let typed = body.isText("tags")
        return tags.flatMap { $0.split(whereSeparator: { ($0 == "," && typed) || $0.isWhitespace }).map(String.init) }
    }

    /// `GET api/search?q=&tag=&sort=&limit=&offset=&count=`: a page of every match (see
    /// `SearchQuery` for the prefixes), with the number of matches in all; `count=0`
    /// leaves the total out (null), for the page to come first as someone types, and
    /// `api/search/count` gives it after.
    private func search(_ request: HTTPRequest) throws -> HTTPResponse {
        let limit = try Self.integer(request, "limit", default: 50, in: 1...500)
        let offset = try Self.integer(request, "offset", default: 0, in: 0...Int(Int32.max))
        let counted = try Self.integer(request, "count", default: 1, in: 0...1) == 1
        let (query, tag) = try Self.searchTerms(request)
        let sort = try Self.sort(request, default: nil)
        let page = try pool.withLibrary {
            try $0.find(SearchRequest(query: query, tag: tag, sort: sort, limit: limit, offset: offset, counted: counted))
        }
        return .json(
            JSONText.object([
                ("words", WordJSON.compactArray(page.words)), ("total", page.total.map(String.init) ?? "null"),
                ("hasMore", String(page.hasMore)),
            ]))
    }

    /// `GET api/search/count?q=&tag=`: how many words match, as `api/search` counts them,
    /// and the words' mark as they were counted (`mark`).
    private func searchCount(_ request: HTTPRequest) throws -> HTTPResponse {
        let (query, tag) = try Self.searchTerms(request)
        let (total, mark) = try pool.withLibrary { library in
            try library.database.read { (try library.countMatches(query: query, tag: tag), try library.libraryDigest()) }
        }
        return .json(JSONText.object([("total", String(total)), ("mark", JSONText.quote(mark))]))
    }

    /// The query (at most `searchLength` characters) and the tag of a search request.
    private static func searchTerms(_ request: HTTPRequest) throws -> (String, String?) {
        (try checkedSearch(request.query["q"] ?? ""), request.query["tag"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The longest search the server takes, in characters.
    static let searchLength = 500

    /// `query`, refused when longer than `searchLength`.
    static func checkedSearch(_ query: String) throws(BadRequest) -> String {
        guard query.count <= searchLength else { throw BadRequest(message: "the search is too long", field: "q") }
        return query
    }

    private func duplicates(_ request: HTTPRequest) throws -> HTTPResponse {
        let term = request.query["term"] ?? ""
        let except = request.query["except"].flatMap(WordID.init)
        guard !term.trimmingCharacters(in: .whitespaces).isEmpty, term.count <= WordLimits.termLength else {
            return .json(JSONText.object([("words", "[]")]))
        }
        let words = try pool.withLibrary { try $0.duplicates(of: term) }.filter { $0.id != except }
        return .json(JSONText.object([("words", WordJSON.compactArray(words))]))
    }

    private func tags() throws -> HTTPResponse {
        let tags = try pool.withLibrary { try $0.tags() }
        let list = tags.map { JSONText.object([("tag", JSONText.quote($0.tag)), ("count", String($0.count))]) }
        return .json(JSONText.object([("tags", "[" + list.joined(separator: ",") + "]")]))
    }

    /// `GET api/trash?q=&limit=&offset=&after=`: a page of the Trash (terms starting with
    /// `q`), with how many entries match, how many older ones are hidden, and how many
    /// words the Trash holds in all (`whole`, what Empty Trash purges), and the words' mark
    /// (as `api/words` gives it). `after` (the last entry of the page before) pages by key.
    private func trash(_ request: HTTPRequest) throws -> HTTPResponse {
        let limit = try Self.integer(request, "limit", default: 50, in: 1...500)
        let offset = try Self.integer(request, "offset", default: 0, in: 0...Int(Int32.max))
        let term = request.query["q"] ?? ""
        guard term.count <= WordLimits.termLength else { throw BadRequest(message: "the search is too long", field: "q") }
        let (after, place) = try Self.after(request)
        // `hidden=1`: the entries trash.hideAfterDays hides too (round 28A #2).
        let includeHidden = request.query["hidden"] == "1"
        let (page, whole, next, mark) = try pool.withLibrary { library in
            try library.database.read {
                let page = try library.trashPage(
                    term: term, limit: limit, offset: offset, after: after, afterPlace: place, includeHidden: includeHidden)
                return (
                    page, try library.trashKey(), try page.words.last.flatMap { try library.trashPlace(of: $0.id) },
                    try library.libraryDigest()
                )
            }
        }
        let paged = after != nil || place != nil
        return .json(
            JSONText.object([
                ("words", WordJSON.compactArray(page.words)), ("total", String(page.total)), ("next", JSONText.optional(next)),
                ("hasMore", String(page.words.count == limit && (paged || offset + page.words.count < page.total))),
                ("hidden", String(page.hidden)), ("whole", String(whole.count)), ("wholeKey", JSONText.quote(whole.key)),
                ("mark", JSONText.quote(mark)),
                // Each entry as shown, for a purge of those chosen (`api/bulk/purge`'s `versions`).
                ("versions", JSONText.array(page.words.map(WordLibrary.trashVersion(of:)))),
            ]))
    }

    /// `POST api/trash/restore` or `api/trash/purge` with `{"ids": [...]}`: many Trash
    /// entries at once, in one transaction (all or none).
    private func trashBulk(_ request: HTTPRequest, purge: Bool) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        let texts = try body.strings("ids") ?? []
        guard !texts.isEmpty else { throw BadRequest(message: "choose words in the Trash first", field: "ids") }
        var ids: [WordID] = []
        for text in texts {
            guard let id = WordID(text) else { throw BadRequest(message: "no word with id \(text)", field: "ids") }
            ids.append(id)
        }
        let words = try pool.withLibrary { purge ? try $0.purge(ids) : try $0.restore(ids) }
        return .json(JSONText.object([(purge ? "purged" : "restored", String(words.count))]))
    }

    // MARK: - Sync

    private func status() throws -> HTTPResponse {
        try pool.withLibrary { library in
            let counts = try library.counts()
            var pairs = [
                ("words", String(counts.words)), ("trash", String(counts.trash)),
                ("canUndoRestore", String(try library.canUndoRestore())),
                // No sync has met the last restore: its undo does not sync first (`restoreUnsent`).
                ("restoreUnsent", String(try library.restoreUnsent())),
                ("canUndoImport", String(try library.canUndoImport())),
                ("restoreUndoSource", JSONText.optional(try library.restoreUndoSource()?.described)),
                ("importUndoSource", JSONText.optional(try library.importUndoSource()?.described)),
                // What an undo sends as `expect`: the action itself, not its file and minute.
                ("restoreUndoKey", JSONText.optional(try library.restoreUndoSource()?.identity)),
                ("importUndoKey", JSONText.optional(try library.importUndoSource()?.identity)),
                ("device", JSONText.quote(try library.deviceName())),
            ]
            let remote = try library.remote()
            pairs += googleSignInFields(library, remote: remote)
            pairs += iCloudSignInFields(library, remote: remote)
            guard let remote else {
                pairs.append(("remote", "null"))
                // What the Trash's clean-up keeps past its days, and why (as `trash` says).
                let held = try library.autoPurgeHeldNote(emptyTrash: "Empty Trash (on the Trash page)")
                pairs.append(("trashHeld", JSONText.optional(held.map { $0 + "." })))
                return .json(JSONText.object(pairs))
            }
            switch remote {
            case .folder(let path): pairs.append(("remoteFolder", JSONText.quote(path)))
            case .webdav(let url, let user):
                pairs.append(("remoteWebDAV", JSONText.quote(url)))
                pairs.append(("remoteUser", JSONText.optional(user)))
            case .googleDrive:
                break  // googleSignInFields said it all
            case .iCloud:
                break  // iCloudSignInFields said it all
            }
            pairs.append(("remote", JSONText.quote(remote.displayName)))
            let storage = remote.makeStorage(libraryPath: library.path, environment: environment)
            let status = try SyncEngine(library: library, storage: storage, appVersion: appVersion)
                .status()
            let devices = zip(status.devices, status.deviceLabels).map { device, label in
                JSONText.object([
                    ("name", JSONText.quote(device.name)), ("label", JSONText.quote(label)), ("app", JSONText.quote(device.app)),
                    ("lastSync", JSONText.time(device.lastSync)), ("agrees", String(device.agrees)),
                    ("isThisDevice", String(device.isThisDevice)), ("inactive", String(device.inactive)),
                    ("clockAhead", JSONText.optional(device.clockAhead?.message)),
                    ("copyNote", JSONText.optional(status.copyNote(device))),
                ])
            }
            pairs += [
                ("lastSync", JSONText.time(status.lastSync)), ("pending", String(status.pending)),
                ("pendingAnswers", String(status.pendingAnswers)), ("pendingSettings", String(status.pendingSettings)),
                ("pendingPurges", String(status.pendingPurges)),
                ("devices", "[" + devices.joined(separator: ",") + "]"),
                ("cloudProblem", JSONText.optional(status.cloudProblem)),
                (
                    "lastFailure",
                    status.lastFailure.map { JSONText.object([("at", JSONText.time($0.at)), ("message", JSONText.quote($0.message))]) }
                        ?? "null"
                ),
            ]
            return .json(JSONText.object(pairs))
        }
    }

    /// `{"folder": PATH}` or `{"webdav": URL, "user": NAME, "password": SECRET}`; an empty
    /// folder (or neither) removes the remote. The password goes to the 0600 credentials
    /// file beside the library and is never sent back.
    private func setRemote(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try JSONBody(request.body)
        let folder = try body.string("folder")?.trimmingCharacters(in: .whitespaces)
        let webdav = try body.string("webdav")?.trimmingCharacters(in: .whitespaces)
        var remote: RemoteConfig?
        var credentials: (address: WebDAVAddress, user: String?, password: String)?
        if let webdav, !webdav.isEmpty {
            let parsed: (address: WebDAVAddress, user: String?, password: String?)
            do {
                parsed = try WebDAVAddress.parse(webdav)
            } catch {
                throw BadRequest(message: error.message, field: "webdav")
            }
            let typedUser = try body.string("user")?.trimmingCharacters(in: .whitespaces)
            let user = typedUser.flatMap { $0.isEmpty ? nil : $0 } ?? parsed.user
            if let user, user.contains(":") {
                throw BadRequest(message: "the user name must not contain ':'", field: "user")
            }
            let typedPassword = try body.string("password")
            if let password = typedPassword.flatMap({ $0.isEmpty ? nil : $0 }) ?? parsed.password {
                guard user != nil else { throw BadRequest(message: "a password needs a user name", field: "user") }
                credentials = (parsed.address, user, password)
            }
            remote = .webdav(url: parsed.address.description, user: user)
        } else if let folder, !folder.isEmpty {
            guard folder.hasPrefix("/") else {
                throw BadRequest(message: "give the folder's full path, starting with /", field: "folder")
            }
            let path = URL(fileURLWithPath: folder).standardizedFileURL.path
            do {
                try FolderStorage.prepare(path)
            } catch {
                throw BadRequest(message: error.description, field: "folder")
            }
            remote = .folder(path: path)
        }
        // After this app's own sync, if one runs: it would save where it had got to in the
        // old cloud as the new one's (`WordLibrary.setRemote` waits for another program's).
        try syncLock.withLock {
            try pool.withLibrary { library in
                if let name = try body.string("deviceName"), !name.isEmpty { try library.setDeviceName(name) }
                // Leaving Google Drive ends its sign-in; Google is asked to revoke it (best effort).
                _ = try library.setRemote(
                    remote, endingGoogleSignInWith: GoogleDriveEndpoints.from(environment: environment),
                    password: credentials.map { WebDAVPassword($0.password, for: $0.address, user: $0.user) })
            }
        }
        return try status()
    }

    /// `POST api/sync`: one sync now; with `allowMassDelete=1`, past the guard that stops a
    /// sync taking most of the library away (the page asks first); with
    /// `findUnnamedFiles=1`, the sync before a decisive action, which also reads files
    /// other devices uploaded and their records do not name yet (`SyncEngine.findUnnamedFiles`).
    private func sync(job: String?, allowMassDelete: Bool, findUnnamedFiles: Bool = false) throws -> HTTPResponse {
        let waiting = "Waiting for another sync or bulk action"
        return try jobs.run(job, phase: waiting, unit: "words") { (report: (@Sendable (String, Int, Int) -> Void)?) in
            try syncLock.withLock {
                try pool.withLibrary { library in
                    guard let remote = try library.remote() else { return try cleanUpWithoutSync(library) }
                    let engine = SyncEngine(
                        library: library, storage: remote.makeStorage(libraryPath: library.path, environment: environment),
                        appVersion: appVersion)
                    engine.expectedRemote = remote
                    engine.findUnnamedFiles = findUnnamedFiles
                    if let report {
                        engine.onActivity = { activity in
                            let (phase, done, total) = Self.jobUpdate(activity)
                            report(phase, done, total)
                        }
                    }
                    let report = try engine.sync(allowMassDelete: allowMassDelete)
                    var notes = report.cloudNotes(cloud: remote.displayName)
                    if let overridden = report.overriddenNote { notes.append(overridden + ".") }
                    // The clean-up's purge is said as on the command line (the page said
                    // nothing of it, round 18A).
                    if report.autoPurged > 0 {
                        notes.append(WordLibrary.autoPurgedNote(report.autoPurged, byCloudsClock: report.aheadOfCloud != nil))
                    }
                    let said = [
                        report.aheadOfCloudNote, report.putBackNote.map { $0 + "." }, report.autoPurgeWaitsNote.map { $0 + "." },
                        report.autoPurgeWaitsElsewhereNote.map { $0 + "." }, report.autoPurgeDaysRestartedNote.map { $0 + "." },
                        report.unreadNote(cloud: remote.displayName).map { $0 + "." },
                    ]
                    for note in said.compactMap({ $0 }) {
                        notes.append(note.prefix(1).uppercased() + note.dropFirst())
                    }
                    if report.startedCloud {
                        // Drive's app data folder and iCloud have no folder to check: the
                        // account is what can differ (round 22B #7).
                        let check: String
                        switch remote {
                        case .folder, .webdav, .googleDrive(.folder): check = "check the sync folder in Settings"
                        case .googleDrive(.appData), .iCloud: check = "check which account this library is signed in to in Settings"
                        }
                        notes.insert(
                            "There was no MiDiccio data in \(remote.displayName), so this sync started it there. If your other devices "
                                + "sync elsewhere, \(check).",
                            at: 0)
                    }
                    return .json(
                        JSONText.object([
                            ("synced", "true"), ("pulled", String(report.pulled)),
                            ("pushed", String(report.pushed)), ("merged", String(report.merged)),
                            ("answersAndSettings", JSONText.optional(report.answersAndSettings)),
                            ("skippedFiles", String(report.skippedFiles.count)),
                            ("clockAhead", JSONText.optional(report.clockAhead?.message)),
                            ("newIdentity", JSONText.optional(report.newIdentity?.message)),
                            ("notes", "[" + notes.map(JSONText.quote).joined(separator: ", ") + "]"),
                            ("purgeNote", JSONText.optional(report.purgeNote.map { $0 + "." })),
                            ("purgedEditedHere", String(report.purgedEditedHere)),
                            ("purgedStudiedHere", String(report.purgedStudiedHere)),
                            ("purged", String(report.purgedElsewhere + report.autoPurged)),
                            ("unreadFrom", JSONText.array(report.unreadFrom)),
                            // Words in the Trash with a change not seen here (an edit or study
                            // answers another device made before the move reached it): a purge
                            // the page asked about before it refuses them (round 28A #1).
                            ("trashChanged", JSONText.array(report.trashChangedIDs.sorted())),
                            ("trashChangedTerms", JSONText.array(report.trashChangedTerms)),
                        ]))
                }
            }
        }
    }

    /// `api/sync`'s answer for a library with no remote, after its Trash's clean-up
    /// (`trash.autoPurgeDays`), which the page asks for when it opens and every few
    /// minutes, as a command runs it when it opens the library: left running, the app never
    /// cleaned the Trash, and nothing said why (found by the exploratory helper, round 17A
    /// G11). `purged` counts the words it deleted permanently, with those it deleted as
    /// `serve` opened the library (`notePurgedAtStart`), and `notes` says so.
    private func cleanUpWithoutSync(_ library: WordLibrary) throws -> HTTPResponse {
        let atStart = purgedAtStart.withLock { count in
            defer { count = 0 }
            return count
        }
        let purged = try library.autoPurgeUnlessSyncing() + atStart
        let notes = purged > 0 ? [WordLibrary.autoPurgedNote(purged)] : []
        return .json(
            JSONText.object([
                ("synced", "false"), ("reason", JSONText.quote("no remote is set")), ("purged", String(purged)),
                ("notes", JSONText.array(notes)),
            ]))
    }

    // MARK: - Backup, import and export

    private func exportBackup() throws -> HTTPResponse {
        try TemporaryFile.with(name: "backup.json") { path in
            _ = try pool.withLibrary { try $0.exportBackup(to: path) }
            return try .download(file: path, contentType: "application/json", fileName: "midiccio-backup-\(Self.today()).json")
        }
    }

    /// The refusal of an upload with no bytes: a file chosen but empty (its `name` is
    /// sent) is named as empty; without a name, no file was chosen.
    private static func emptyUpload(_ request: HTTPRequest, or noFile: String, nothing done: String) -> BadRequest {
        guard let name = request.query["name"], !name.isEmpty else { return BadRequest(message: noFile, field: "file") }
        return BadRequest(message: "\(name.prefix(200)) is empty (0 bytes); nothing was \(done)", field: "file")
    }

    private func restoreBackup(_ request: HTTPRequest) throws -> HTTPResponse {
        let replace = request.query["replace"] == "1"
        let dryRun = request.query["dryRun"] == "1"
        // The preview's `sweptKey`: a replace refuses to trash other words than it listed.
        let swept = request.query["expectSwept"].flatMap { $0.isEmpty ? nil : $0 }
        if let copy = request.query["copy"], !copy.isEmpty { return try takeInConflictCopy(copy, request: request, dryRun: dryRun) }
        guard !request.body.isEmpty else { throw Self.emptyUpload(request, or: "choose a backup file first", nothing: "restored") }
        return try submitted.once(dryRun ? nil : request.query["key"]) {
            try TemporaryFile.with(name: Self.uploadName(request, default: "backup.json"), contents: request.body) { path in
                let report = try jobs.run(dryRun ? nil : request.query["key"], phase: "Restoring", unit: "words") { progress in
                    try pool.withLibrary {
                        try $0.restoreBackup(from: path, replace: replace, dryRun: dryRun, expectingSwept: swept, progress: progress)
                    }
                }
                return .json(Self.encode(report, dryRun: dryRun))
            }
        }
    }

    /// `GET api/conflicts`: `{"copies": [NAME]}`, the file names of the conflict copies
    /// beside the library whose words are not in it yet (`conflictCopiesNotTakenIn`), for
    /// the page to name them: the words in them are in no library MiDiccio opens.
    private func conflictCopies() throws -> HTTPResponse {
        let names = try pool.withLibrary { library in
            library.conflictCopiesNotTakenIn().map(WordLibrary.fileName)
        }
        return .json(JSONText.object([("copies", JSONText.array(names))]))
    }

    /// `POST api/backup/restore?copy=NAME`: the conflict copy NAME beside the library,
    /// restored as a backup of it (merged: the newer of each field wins), or previewed
    /// with `dryRun`. Only a copy `ConflictCopies` finds there is read: the name is looked
    /// up among them, never taken as a path.
    private func takeInConflictCopy(_ name: String, request: HTTPRequest, dryRun: Bool) throws -> HTTPResponse {
        guard request.query["replace"] != "1" else {
            throw BadRequest(message: "a conflict copy is taken in by merging its words, not by replacing the library", field: "replace")
        }
        return try submitted.once(dryRun ? nil : request.query["key"]) {
            let report = try jobs.run(dryRun ? nil : request.query["key"], phase: "Taking in", unit: "words") { progress in
                try pool.withLibrary { library in
                    guard let path = library.conflictCopy(named: name) else {
                        throw BadRequest(
                            message: "\(name.prefix(200)) is no longer beside the library (moved away or renamed); nothing was changed",
                            field: "copy")
                    }
                    return try library.restoreLibraryFile(from: path, dryRun: dryRun, progress: progress)
                }
            }
            return .json(Self.encode(report, dryRun: dryRun))
        }
    }

    /// `POST api/backup/undo`, with `{"expect": SOURCE}` (`restoreUndoSource` of
    /// `api/status`) when the page showed which restore it undoes.
    private func undoRestore(_ request: HTTPRequest) throws -> HTTPResponse {
        let expected = request.body.isEmpty ? nil : try JSONBody(request.body).string("expect")
        let report = try pool.withLibrary { try $0.undoRestore(expecting: expected) }
        return .json(Self.encode(report, dryRun: false))
    }

    private static func encode(_ report: RestoreReport, dryRun: Bool) -> String {
        JSONText.object(
            report.jsonMembers(dryRun: dryRun) + restoreTermLists(report) + [
                ("strayTimesNote", JSONText.optional(report.strayTimesNote)),
                ("purgedSinceRestoreNote", JSONText.optional(report.purgedSinceRestoreNote)),
                ("differingAtSameTimeNote", JSONText.optional(report.differingAtSameTimeNote)),
                ("undoneBeforeSyncNote", JSONText.optional(report.undoneBeforeSync ? RestoreReport.undoneBeforeSyncNote : nil)),
                ("settingsNote", JSONText.optional(report.settingsNote(dryRun: dryRun))),
                ("settingsLeftByUndoNote", JSONText.optional(report.settingsLeftByUndoNote)),
            ])
    }

    private func exportSheet(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let format = SheetFormat(rawValue: request.query["format"] ?? "csv") else {
            throw BadRequest(message: "format must be csv or tsv", field: "format")
        }
        return try TemporaryFile.with(name: "words.\(format.rawValue)") { path in
            // `study=1` adds the columns due and state.
            let study = request.query["study"] == "1"
            _ = try pool.withLibrary { try $0.exportSheet(to: path, format: format, studyColumns: study) }
            let type = format == .csv ? "text/csv; charset=utf-8" : "text/tab-separated-values; charset=utf-8"
            return try .download(file: path, contentType: type, fileName: "midiccio-words-\(Self.today()).\(format.rawValue)")
        }
    }

    /// `POST api/import?name=&format=&columns=&separator=&skipDuplicates=1&dryRun=1`: the
    /// file is the body. With `dryRun` nothing changes and the answer holds the first rows
    /// as they would be read (for a list without a header, with each row's own fields, so
    /// the page can offer to map the columns otherwise).
    private func importSheet(_ request: HTTPRequest) throws -> HTTPResponse {
        var options = ImportOptions()
        if let name = request.query["format"], !name.isEmpty {
            guard let format = ImportFormat(rawValue: name) else {
                throw BadRequest(message: "format must be one of \(ImportFormat.known)", field: "format")
            }
            options.format = format
        }
        do {
            if let columns = request.query["columns"], !columns.isEmpty {
                options.layout.columns = try ListColumn.list(columns)
            }
            if let separator = request.query["separator"], !separator.isEmpty {
                options.layout.separator = try ListLayout.separator(named: separator)
            }
        } catch {
            throw BadRequest(message: error.message, field: "columns")
        }
        guard !request.body.isEmpty else { throw Self.emptyUpload(request, or: "choose a file to import first", nothing: "imported") }
        options.skipDuplicates = request.query["skipDuplicates"] == "1"
        options.dryRun = request.query["dryRun"] == "1"
        return try submitted.once(options.dryRun ? nil : request.query["key"]) {
            try importAnswer(request, options)
        }
    }

    private func importAnswer(_ request: HTTPRequest, _ options: ImportOptions) throws -> HTTPResponse {
        try TemporaryFile.with(name: Self.uploadName(request, default: "words.txt"), contents: request.body) { path in
            let key = options.dryRun ? nil : request.query["key"]
            let report = try jobs.run(key, phase: "Importing", unit: "rows") { progress in
                try pool.withLibrary { try $0.importWords(from: path, options: options, progress: progress) }
            }
            let sample = report.sample.enumerated().map { index, row in
                JSONText.object([
                    ("line", String(row.line)),
                    ("fields", JSONText.array(index < report.sampleFields.count ? report.sampleFields[index] : [])),
                    ("term", JSONText.quote(row.term)), ("meaning", JSONText.quote(row.meaning)),
                    ("reading", JSONText.quote(row.reading)), ("examples", JSONText.array(row.examples)),
                    ("notes", JSONText.quote(row.notes)), ("tags", JSONText.array(row.tags)),
                ])
            }
            return .json(
                JSONText.object([
                    ("added", String(report.added)), ("skippedDuplicates", String(report.skippedDuplicates)),
                    ("skippedDuplicateTerms", JSONText.array(report.skippedDuplicateTerms)),
                    ("duplicatesAdded", String(report.duplicatesAdded)), ("alreadyImported", String(report.alreadyImported)),
                    ("alreadyImportedInTrash", String(report.alreadyImportedInTrash)),
                    ("sentencesTooLong", String(report.sentencesTooLong)),
                    ("rows", String(report.rowCount)), ("splitWords", String(report.splitWords)),
                    ("format", JSONText.optional(report.format?.rawValue)),
                    ("formatTitle", JSONText.optional(report.format?.title)),
                    ("separator", JSONText.optional(report.separator)), ("header", String(report.firstRowNamesColumns)),
                    ("separatorLine", String(report.separatorLine)),
                    ("columns", JSONText.array(report.columns.map(\.rawValue))),
                    ("droppedMediaReferences", String(report.droppedMediaReferences)),
                    ("notesWithoutTerm", String(report.notesWithoutTerm)),
                    ("notesOverLimit", String(report.notesOverLimit)),
                    ("firstNoteOverLimit", JSONText.optional(report.firstNoteOverLimit)),
                    ("sample", "[" + sample.joined(separator: ",") + "]"), ("dryRun", String(options.dryRun)),
                ]))
        }
    }

    /// The uploaded file's own name (for messages), reduced to a safe single component.
    private static func uploadName(_ request: HTTPRequest, default fallback: String) -> String {
        let name = (request.query["name"] ?? "").split(separator: "/").last.map(String.init) ?? ""
        let safe = name.filter { $0.isLetter || $0.isNumber || "._- ".contains($0) }
        return safe.isEmpty || safe.hasPrefix(".") || safe.count > 100 ? fallback : safe
    }

    private static func today() -> String {
        String(Timestamp(milliseconds: Int64(Date().timeIntervalSince1970 * 1000)).iso8601.prefix(10))
    }

    // MARK: - Errors

    private static func integer(
        _ request: HTTPRequest, _ name: String, default fallback: Int, in range: ClosedRange<Int>
    ) throws(BadRequest) -> Int {
        guard let text = request.query[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw BadRequest(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)", field: name)
        }
        return value
    }

    /// The HTTP answer for a failure: the page shows `error`, next to `field` when given.
    static func failure(_ error: any Error) -> HTTPResponse {
        switch error {
        case let bad as BadRequest:
            return .error(400, bad.message, field: bad.field)
        case let unkept as UploadNotKept:
            return .error(507, unkept.message, field: "file")
        case let renamed as RenamedFileError:
            let answer = failure(renamed.error)
            // A restore refused for a library changed since its preview names the preview.
            let field = if case .restoreChangedSincePreview = renamed.error { "preview" } else { "file" }
            return .error(answer.status, renamed.message, field: answer.status < 500 ? field : nil)
        case let error as LibraryError:
            switch error {
            case .invalidWord(let problem):
                // "examples[3]" names the third line of the examples box.
                let field = problem.field.split(separator: "[").first.map(String.init) ?? problem.field
                let message =
                    field == problem.field
                    ? problem.message : "line \(problem.field.dropFirst(field.count + 1).dropLast()): \(problem.message)"
                return .error(422, message, field: field)
            // The page names words by their terms, never by ids: these come from a change
            // made elsewhere (another window, the command line, a sync) since it showed them.
            case .wordNotFound:
                return .error(
                    404, "this word is no longer in the library: it was deleted permanently, here or on another device; nothing was changed"
                )
            // `trash`: the page offers to restore the word and save the typing in one step.
            case .wrongTrashState(_, let term, let inTrash):
                return inTrash
                    ? .error(
                        409, "\u{201C}\(term)\u{201D} is in the Trash now (moved there elsewhere meanwhile); restore it first",
                        field: "trash")
                    : .error(
                        409, "\u{201C}\(term)\u{201D} is not in the Trash any more (restored elsewhere meanwhile); nothing was changed")
            case .notInTrashForPurge(_, let term):
                return .error(
                    409, "\u{201C}\(term)\u{201D} is not in the Trash any more (restored elsewhere meanwhile); nothing was deleted")
            case .alreadyInTrash(_, let term):
                return .error(409, "\u{201C}\(term)\u{201D} is already in the Trash")
            case .prefixTooShort, .ambiguousID, .wordPurged:
                return .error(404, error.description)
            case .duplicateTerm, .nothingToUndo, .nothingImportedToUndo, .nothingBulkToUndo, .selectionChanged, .listChangedSinceShown,
                .undoSourceChanged, .trashChangedSinceShown:
                return .error(409, error.description)
            case .restoreChangedSincePreview:
                return .error(409, error.description, field: "preview")
            case .answeredMeanwhile:
                return .error(409, error.description, field: "answered")
            case .invalidBackup, .invalidImport:
                return .error(422, error.description, field: "file")
            case .invalidPlace:
                return .error(400, error.description, field: "after")
            case .storage(let underlying) where underlying.isBusy:
                return .error(503, "the library is busy (another program is writing to it); try again")
            case .libraryGone, .fileReplaced, .replacedFileStillOpen:
                // Not the app's fault, and over once the file is back (or let go of).
                return .error(503, error.description)
            default:
                return .error(500, error.description)
            }
        case let error as SyncError:
            if let stop = error.massDeletionMessage(keep: "a backup (Download a backup, below)", goOn: "choose Sync anyway") {
                return .error(409, stop, field: "massDeletion")
            }
            // Not the cloud's fault: another sync of this library, or its remote changed
            // meanwhile (a busy library answered 502, as if a server were down; round 22B).
            switch error {
            case .busy, .remoteChanged: return .error(409, error.description)
            default: return .error(502, error.description)
            }
        default:
            return .error(500, "\(error)")
        }
    }
}

/// The idempotency keys (`key=` of an import or a restore) already submitted: a second
/// submit of the same upload (a double click, a resent request) is refused with 409
/// instead of importing the file twice. A submit that fails gives its key back, so trying
/// again works. Only the newest `capacity` keys are remembered.
final class SubmittedUploads: @unchecked Sendable {
    private let lock = NSLock()
    private var keys: Set<String> = []
    private var order: [String] = []
    private let capacity = 1_000

    /// Runs `body` unless `key` was submitted before (nil or empty: always runs).
    func once(_ key: String?, _ body: () throws -> HTTPResponse) throws -> HTTPResponse {
        guard let key, !key.isEmpty else { return try body() }
        let fresh = lock.withLock {
            guard keys.insert(key).inserted else { return false }
            order.append(key)
            if order.count > capacity { keys.remove(order.removeFirst()) }
            return true
        }
        guard fresh else { return .error(409, "this upload was already submitted; choose the file again to send it again") }
        do {
            let answer = try body()
            if answer.status >= 400 { forget(key) }
            return answer
        } catch {
            forget(key)
            throw error
        }
    }

    private func forget(_ key: String) {
        lock.withLock {
            keys.remove(key)
            order.removeAll { $0 == key }
        }
    }
}

/// A file in a private temporary folder, removed with the folder when `body` returns.
enum TemporaryFile {
    static func with<T>(name: String, contents: Data? = nil, _ body: (String) throws -> T) throws -> T {
        let temporary = FileManager.default.temporaryDirectory
        // Named with this process's id: the folders of a serve that was killed with an
        // upload in them are removed by the next upload (round 14C).
        FileSystem.removeLeftoversOfEndedProcesses(in: temporary.path, prefix: "midiccio-web-")
        let folder = temporary.appendingPathComponent("midiccio-web-\(getpid())-\(UUID().uuidString)")
        let path = folder.appendingPathComponent(name).path
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: false,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw unkept(error, in: temporary.path)
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        if let contents {
            do { try contents.write(to: URL(fileURLWithPath: path)) } catch { throw unkept(error, in: temporary.path) }
        }
        do {
            return try body(path)
        } catch let error as LibraryError {
            // Messages name the file; the page's user knows it by its own name, not ours.
            throw RenamedFileError(error: error, message: error.description.replacingOccurrences(of: path, with: name))
        }
    }
}

extension TemporaryFile {
    /// The upload could not be kept in the temporary folder `folder`: said in words, with
    /// the folder named, where a full one answered 500 with Foundation's error dump as the
    /// whole message (found by the exploratory helper, round 14C).
    static func unkept(_ error: any Error, in folder: String) -> UploadNotKept {
        UploadNotKept(
            message: "the file could not be kept in the temporary folder \(folder) (\(FileSystem.describe(error))); "
                + "free some space there, or start midiccio serve with TMPDIR set to a folder with room; nothing was changed")
    }
}

/// An upload the server could not keep in its temporary folder: 507, nothing changed.
struct UploadNotKept: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A library error whose message had a temporary path replaced by the file's own name.
struct RenamedFileError: Error, CustomStringConvertible {
    var error: LibraryError
    var message: String
    var description: String { message }
}
