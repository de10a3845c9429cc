import Dispatch
import Foundation
import MiDiccioCloud
import MiDiccioFiles
import MiDiccioModel
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP answer: its status, its headers (names in lower case) and its body.
struct HTTPAnswer: Sendable {
    /// The status code (200, 404 ...).
    var status: Int
    /// The headers, names in lower case.
    var headers: [String: String]
    /// The body, never longer than the limit the request was sent with; empty when it
    /// was kept in a file (`spooled`).
    var body: Data
    /// The body kept in a temporary file, when it grew past the size the request allowed
    /// in memory.
    var spooled: OpenedFile? = nil

    /// The value of header `name` (any case).
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

extension HTTPAnswer {
    /// The body as `CloudStorage.readBytes` hands it over: the temporary file it was kept
    /// in, else the bytes.
    var bytes: CloudBytes { spooled.map(CloudBytes.file) ?? .memory(body) }
}

/// Why an HTTP exchange produced no answer. Carries no URL and no server text, so
/// nothing in it can leak a credential into a message.
enum HTTPFailure: Error, Sendable, Equatable {
    /// No answer within the time allowed.
    case timedOut
    /// Nothing accepted the connection (the server is down or the port is wrong).
    case refused
    /// The connection closed before a whole answer arrived.
    case dropped
    /// The host name does not resolve.
    case hostNotFound
    /// This computer has no network.
    case offline
    /// The secure connection could not be set up (certificate or TLS problem).
    case insecure
    /// The body was longer than the limit, in bytes.
    case tooLarge(limit: Int)
    /// A large body could not be written to its temporary file (the disk is full).
    case notKept(reason: String)
    /// The body to send could not be read from its file.
    case unreadableBody(reason: String)
    /// Any other URL loading error, by its code.
    case other(code: Int)
}

extension HTTPFailure {
    /// The failure in words for people, naming the service ("Google Drive", "iCloud");
    /// never the URL.
    func describe(service: String) -> String {
        switch self {
        case .timedOut: "\(service) did not answer in time"
        case .refused: "nothing answers at \(service)'s address"
        case .dropped: "the connection to \(service) dropped"
        case .hostNotFound: "\(service)'s server name is unknown (check the network)"
        case .offline: "this computer is offline"
        case .insecure: "the secure connection to \(service) failed"
        case .tooLarge(let limit): "\(service)'s answer is larger than \(limit / 1_048_576) MB"
        case .notKept(let reason): "\(service)'s answer could not be kept in a temporary file: \(reason)"
        case .unreadableBody(let reason): "what was to be sent to \(service) could not be read: \(reason)"
        case .other(let code): "network error \(code) talking to \(service)"
        }
    }
}

/// Sends one HTTP request at a time and waits for its answer: the sync engine calls
/// storage synchronously, while URLSession only offers callbacks.
///
/// Built on a delegate rather than a completion handler so that it can stop reading a
/// body past its limit (a hostile server cannot fill memory), refuse redirects (which
/// would otherwise carry the Authorization header to wherever the server points), and
/// answer authentication challenges itself: FoundationNetworking waits forever on a
/// 401 when nobody does.
///
/// Connections stay open between requests that follow each other (one TLS handshake
/// per sync rather than one per file), but not across a pause: servers close a
/// kept-alive connection after 1 to 5 s without a request, and a request sent on one
/// just as the server closes it loses its body (see the delegate's
/// `needNewBodyStream`). A request after a longer pause, or after a failed one, goes
/// out on a new connection.
final class BlockingHTTPClient: Sendable {
    /// Seconds a connection may sit unused and still carry the next request: half the
    /// shortest keep-alive servers are configured with (1 s), so the server has not
    /// started closing it. A sync's requests follow each other within milliseconds; a
    /// new connection after a longer pause costs one handshake.
    static let standardIdleLimit: TimeInterval = 0.5

    private struct Connections {
        /// The session whose connections the next request may reuse.
        var current: HTTPSession
        /// Requests in flight through this client: a connection in use is not idle.
        var inFlight = 0
        /// When the last request ended (uptime nanoseconds); nil before the first.
        var lastUsed: UInt64?
    }

    private let idleLimit: UInt64
    private let connections: Mutex<Connections>
    /// The time the latest answer's `Date` header gave, and when it arrived (uptime
    /// nanoseconds).
    private let serverClock = Mutex<(time: Timestamp, received: UInt64)?>(nil)
    /// Where a body file's named copy is made; nil: the temporary folder.
    private let copyFolder: String?

    /// Makes a client that reuses a connection idle for at most `idleLimit` seconds and
    /// makes the named copies of body files in `copyFolder` (nil: the temporary folder).
    init(idleLimit: TimeInterval = standardIdleLimit, copyFolder: String? = nil) {
        self.idleLimit = UInt64(max(0, min(idleLimit, 1e9)) * 1e9)
        self.copyFolder = copyFolder
        connections = Mutex(Connections(current: HTTPSession()))
    }

    deinit {
        connections.withLock { $0.current }.close(cancellingTasks: true)
    }

    /// Sends `request` and waits for the whole answer, reading at most `maxBodyBytes` of
    /// body. Fails with `.timedOut` when no byte moves either way for `timeout` seconds,
    /// or when the whole exchange takes longer than `timeout` times `overallFactor`;
    /// with `.dropped` when the connection closed before the whole answer arrived.
    ///
    /// With `spillFrom`, a body that grows past that many bytes goes on in a temporary file
    /// (`HTTPAnswer.spooled`) instead of memory: a snapshot of a million words. With
    /// `bodyFile`, the request's body is that file, sent with its length (`Content-Length`)
    /// and read from a named copy as it goes out, never whole in memory (a server may
    /// refuse a body of unknown length, or keep none of it).
    ///
    /// `onHeaders` is given the answer's headers (names in lower case) as soon as they
    /// arrive, before the body: what they carry for later requests (CloudKit's renewed
    /// token) is kept even when the body never arrives whole.
    func send(
        _ request: URLRequest, timeout: TimeInterval, maxBodyBytes: Int, overallFactor: Double = 20, spillFrom: Int? = nil,
        bodyFile: OpenedFile? = nil, onHeaders: (@Sendable ([String: String]) -> Void)? = nil
    ) -> Result<HTTPAnswer, HTTPFailure> {
        let session = checkOut()
        let result = session.send(
            request, timeout: timeout, maxBodyBytes: maxBodyBytes, overallFactor: overallFactor, spillFrom: spillFrom,
            bodyFile: bodyFile, copyFolder: copyFolder ?? FileSystem.temporaryFolder, onHeaders: onHeaders)
        var failed = false
        switch result {
        case .failure: failed = true
        case .success(let answer):
            if let date = answer.header("date").flatMap(Timestamp.earliest(httpDates:)) {
                serverClock.withLock { $0 = (date, DispatchTime.now().uptimeNanoseconds) }
            }
        }
        checkIn(session, failed: failed)
        return result
    }

    /// The time now by the clock of the server that answered last, from its `Date` header
    /// (whole seconds) and the time since it arrived; nil before any answer carried one.
    var serverNow: Timestamp? {
        serverClock.withLock { clock in
            clock.map {
                Timestamp(milliseconds: $0.time.milliseconds + Int64((DispatchTime.now().uptimeNanoseconds - $0.received) / 1_000_000))
            }
        }
    }

    /// The session for the next request: a new one when the current one's connections
    /// have been idle longer than the limit.
    private func checkOut() -> HTTPSession {
        let now = DispatchTime.now().uptimeNanoseconds
        let (session, retired) = connections.withLock { state -> (HTTPSession, HTTPSession?) in
            var retired: HTTPSession?
            if state.inFlight == 0, let lastUsed = state.lastUsed, now &- lastUsed > idleLimit {
                retired = state.current
                state.current = HTTPSession()
            }
            state.inFlight += 1
            return (state.current, retired)
        }
        retired?.close(cancellingTasks: false)
        return session
    }

    /// Notes that a request on `session` ended. After a failure nothing is known of the
    /// state of its connections, so the next request (a retry, most often) starts on a
    /// new one; requests still in flight on the old session finish there.
    private func checkIn(_ session: HTTPSession, failed: Bool) {
        let now = DispatchTime.now().uptimeNanoseconds
        let retired = connections.withLock { state -> HTTPSession? in
            state.inFlight -= 1
            state.lastUsed = now
            guard failed, state.current === session else { return nil }
            state.current = HTTPSession()
            return session
        }
        retired?.close(cancellingTasks: false)
    }
}

/// One URLSession: a pool of kept-alive connections, and the delegate that answers for
/// its tasks.
private final class HTTPSession: Sendable {
    private let session: URLSession
    private let delegate = HTTPClientDelegate()

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        // Credentials, cookies and cached answers must never outlive this client or be
        // replayed from a cache: every answer comes from the server.
        configuration.urlCredentialStorage = nil
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// Closes the connections once the tasks in flight end, or at once, cancelling
    /// them. The session holds its delegate strongly until then.
    func close(cancellingTasks: Bool) {
        if cancellingTasks {
            session.invalidateAndCancel()
        } else {
            session.finishTasksAndInvalidate()
        }
    }

    /// See `BlockingHTTPClient.send`.
    func send(
        _ request: URLRequest, timeout: TimeInterval, maxBodyBytes: Int, overallFactor: Double, spillFrom: Int?,
        bodyFile: OpenedFile?, copyFolder: String, onHeaders: (@Sendable ([String: String]) -> Void)?
    ) -> Result<HTTPAnswer, HTTPFailure> {
        var request = request
        // URLSession sends a file by name with its length; a body stream would go in
        // chunks, with no length. The copy lives until the exchange ends (`withExtendedLifetime`
        // below); when none can be made (no room for it), the body is sent from memory.
        var copy: NamedTemporaryFile?
        if let bodyFile {
            request.httpBody = nil
            do {
                copy = try bodyFile.namedCopy(in: copyFolder)
            } catch {
                guard let whole = try? bodyFile.bytes(at: 0, count: bodyFile.size), whole.count == bodyFile.size else {
                    return .failure(.unreadableBody(reason: "\(error)"))
                }
                request.httpBody = whole
            }
        }
        // FoundationNetworking truncates this to whole seconds (0.5 would mean "at
        // once") and only watches for silence; the deadline below is the one that
        // counts, this one a backstop just after it.
        request.timeoutInterval = (timeout + 1).rounded(.up)
        let exchange = HTTPExchange(limit: maxBodyBytes, spillFrom: spillFrom, onHeaders: onHeaders)
        let task =
            copy.map { session.uploadTask(with: request, fromFile: URL(fileURLWithPath: $0.path)) } ?? session.dataTask(with: request)
        defer { withExtendedLifetime(copy) {} }
        delegate.register(exchange, for: task.taskIdentifier)
        defer { delegate.unregister(task.taskIdentifier) }
        task.resume()
        // A large snapshot on a slow line keeps moving bytes and may take a while; a
        // server that goes silent, or trickles bytes forever, must not hold a sync.
        let idle = UInt64(max(0.001, timeout) * 1e9)
        let overall = DispatchTime.now().uptimeNanoseconds &+ UInt64(max(0.001, timeout) * overallFactor * 1e9)
        while true {
            let deadline = min(exchange.lastProgress &+ idle, overall)
            if exchange.done.wait(timeout: DispatchTime(uptimeNanoseconds: deadline)) == .success { break }
            let now = DispatchTime.now().uptimeNanoseconds
            if now >= overall || now >= exchange.lastProgress &+ idle {
                exchange.fail(.timedOut)
                task.cancel()
                return .failure(.timedOut)
            }
        }
        let result = exchange.result ?? .failure(.dropped)
        if case .failure = result {
            // An exchange abandoned while libcurl resent its request ends before
            // URLSession is done with the task (cancelling a finished task does nothing).
            task.cancel()
        }
        return result
    }
}

/// The state of one request in flight, shared between the waiting thread and the
/// session's delegate queue.
private final class HTTPExchange: Sendable {
    private struct State {
        var response: HTTPURLResponse?
        var body = Data()
        /// The temporary file the body went on in once past `spillFrom`, and its length.
        var spool: Int32 = -1
        var spooled = 0
        var failure: HTTPFailure?
        var challenged = false
        var finished = false
        var lastProgress = DispatchTime.now().uptimeNanoseconds
    }

    /// Signalled once when the exchange ends.
    let done = DispatchSemaphore(value: 0)
    /// The body limit in bytes.
    let limit: Int
    /// From this many bytes on the body goes on in a temporary file; nil: never.
    let spillFrom: Int?
    /// Given the headers as soon as they arrive (`BlockingHTTPClient.send`).
    private let onHeaders: (@Sendable ([String: String]) -> Void)?
    private let state = Mutex(State())

    init(limit: Int, spillFrom: Int?, onHeaders: (@Sendable ([String: String]) -> Void)? = nil) {
        self.limit = limit
        self.spillFrom = spillFrom
        self.onHeaders = onHeaders
    }

    deinit {
        let spool = state.withLock { $0.spool }
        if spool >= 0 { close(spool) }
    }

    /// When a byte last moved either way (uptime nanoseconds).
    var lastProgress: UInt64 { state.withLock { $0.lastProgress } }

    /// Notes that bytes moved.
    func progress() { state.withLock { $0.lastProgress = DispatchTime.now().uptimeNanoseconds } }

    /// Records the response head, and hands its headers to `onHeaders`; false when the
    /// body announced is over the limit.
    func receive(_ response: URLResponse) -> Bool {
        if let onHeaders, let response = response as? HTTPURLResponse { onHeaders(Self.headers(of: response)) }
        return state.withLock { state in
            state.lastProgress = DispatchTime.now().uptimeNanoseconds
            state.response = response as? HTTPURLResponse
            if response.expectedContentLength > Int64(limit) {
                state.failure = .tooLarge(limit: limit)
                return false
            }
            return true
        }
    }

    /// Appends body bytes; false once the body is over the limit.
    func append(_ data: Data) -> Bool {
        state.withLock { state in
            guard state.failure == nil else { return false }
            state.lastProgress = DispatchTime.now().uptimeNanoseconds
            if state.spooled + state.body.count + data.count > limit {
                state.failure = .tooLarge(limit: limit)
                state.body = Data()
                return false
            }
            if state.spool < 0, let spillFrom, state.body.count + data.count > spillFrom {
                do {
                    state.spool = try FileSystem.anonymousFile()
                } catch {
                    state.failure = .notKept(reason: (error as? FileError)?.reason ?? "\(error)")
                    return false
                }
                guard keep(state.body, in: &state) else { return false }
                state.body = Data()
            }
            if state.spool >= 0 { return keep(data, in: &state) }
            state.body.append(data)
            return true
        }
    }

    /// Writes `data` to the end of the temporary file; false (and the failure noted) when
    /// it cannot.
    private func keep(_ data: Data, in state: inout State) -> Bool {
        if let reason = FileSystem.writeAll(data, to: state.spool) {
            state.failure = .notKept(reason: reason)
            return false
        }
        state.spooled += data.count
        return true
    }

    /// Notes that the server asked for credentials it did not accept.
    func challenge() { state.withLock { $0.challenged = true } }

    /// Records a failure unless one is already known.
    func fail(_ failure: HTTPFailure) {
        state.withLock { state in
            if state.failure == nil { state.failure = failure }
        }
    }

    /// Ends the exchange with `failure` before URLSession ends the task: the waiting
    /// thread returns at once, and URLSession's final word is ignored.
    func abandon(_ failure: HTTPFailure) {
        let first = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.finished = true
            if state.failure == nil { state.failure = failure }
            return true
        }
        if first { done.signal() }
    }

    /// Ends the exchange (once) with URLSession's final word.
    func complete(error: Error?, response: URLResponse?) {
        let first = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.finished = true
            if state.response == nil { state.response = response as? HTTPURLResponse }
            if let error, state.failure == nil, !(state.challenged && state.response != nil) {
                state.failure = Self.failure(for: error, answered: state.response != nil)
            }
            return true
        }
        if first { done.signal() }
    }

    /// The answer or the failure, once complete.
    var result: Result<HTTPAnswer, HTTPFailure>? {
        state.withLock { state in
            guard state.finished || state.failure != nil else { return nil }
            if let failure = state.failure { return .failure(failure) }
            guard let response = state.response else { return .failure(.dropped) }
            let headers = Self.headers(of: response)
            // A refused challenge ends in a cancelled task that still carries the 401.
            if state.challenged { return .success(HTTPAnswer(status: response.statusCode, headers: headers, body: Data())) }
            var answer = HTTPAnswer(status: response.statusCode, headers: headers, body: state.body)
            if state.spool >= 0 {
                // Its own descriptor: the exchange closes the one it wrote through.
                let descriptor = dup(state.spool)
                guard descriptor >= 0 else { return .failure(.notKept(reason: FileSystem.errorText(errno))) }
                answer.spooled = OpenedFile(descriptor: descriptor, path: "download", size: state.spooled)
            }
            return .success(answer)
        }
    }

    /// `response`'s headers, names in lower case.
    private static func headers(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return headers
    }

    /// Sorts URL loading errors into what the caller can act on. The error itself is
    /// dropped: its description names the URL. `answered`: the status and headers had
    /// come; a connection that then closes before the whole body is one that dropped, which
    /// FoundationNetworking reports as an unknown error (curl's partial file) and was not
    /// retried ("network error -1", found by the exploratory helper, round 13C).
    private static func failure(for error: Error, answered: Bool) -> HTTPFailure {
        guard let error = error as? URLError else { return .other(code: (error as NSError).code) }
        switch error.code {
        case .unknown where answered: return .dropped
        case .timedOut: return .timedOut
        case .cannotConnectToHost: return .refused
        case .networkConnectionLost, .badServerResponse, .cannotParseResponse, .zeroByteResource: return .dropped
        case .cannotFindHost, .dnsLookupFailed: return .hostNotFound
        case .notConnectedToInternet, .internationalRoamingOff, .dataNotAllowed: return .offline
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            return .insecure
        default: return .other(code: error.code.rawValue)
        }
    }
}

/// URLSession's delegate: routes each callback to its exchange.
private final class HTTPClientDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Mutex<[Int: HTTPExchange]>([:])

    func register(_ exchange: HTTPExchange, for task: Int) { exchanges.withLock { $0[task] = exchange } }
    func unregister(_ task: Int) { _ = exchanges.withLock { $0.removeValue(forKey: task) } }
    private func exchange(_ task: URLSessionTask) -> HTTPExchange? { exchanges.withLock { $0[task.taskIdentifier] } }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let keep = exchange(dataTask)?.receive(response) ?? false
        completionHandler(keep ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if exchange(dataTask)?.append(data) == false { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        exchange(task)?.progress()
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask,
        needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        // libcurl asks for the body again when a kept-alive connection it reused turns
        // out to be closed by the server after the body went out on it: it sends the
        // request again on a new connection. FoundationNetworking cannot rewind a body
        // given as Data (answering with a stream is a fatal error for one), yet tells
        // libcurl the rewind worked, so the new connection gets the headers with their
        // Content-Length and no body, and the server waits for the body until the
        // timeout: the 313-byte PUT that hung for 15 s ("Never lose a word", finding 7).
        // The exchange ends here instead, as a dropped connection, which the caller
        // retries whole on a new connection.
        exchange(task)?.abandon(.dropped)
        // Not task.cancel(): this runs on the task's own queue, which cancel() waits for.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        exchange(task)?.complete(error: error, response: task.response)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Following would send the Authorization header to wherever the server points;
        // the 3xx answer is reported instead.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let passwordMethods = [
            NSURLAuthenticationMethodHTTPBasic, NSURLAuthenticationMethodHTTPDigest,
            NSURLAuthenticationMethodDefault, NSURLAuthenticationMethodNTLM, NSURLAuthenticationMethodNegotiate,
        ]
        guard passwordMethods.contains(challenge.protectionSpace.authenticationMethod) else {
            // Server trust (Apple platforms) and client certificates: the system decides.
            completionHandler(.performDefaultHandling, nil)
            return
        }
        // Basic credentials go with every request already; a challenge means the server
        // refused them. Cancelling ends the task with the 401 in `task.response`.
        exchange(task)?.challenge()
        completionHandler(.cancelAuthenticationChallenge, nil)
    }
}
