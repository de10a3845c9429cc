import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP request with a JSON body, sent with `URLSession` and waited for: the fakes'
/// control APIs and the benchmark's own requests to a fake, from synchronous code.
package enum BlockingJSONRequest {
    /// Sends `method` to `url`, with `body` (JSON) when given, and waits for the answer
    /// (at most `timeout` seconds): its status (0 when none came) and its body as a JSON
    /// object (nil when it has none, or another kind of body).
    package static func send(
        _ method: String, _ url: URL, body: Data? = nil, timeout: TimeInterval = 10
    ) -> (status: Int, object: [String: Any]?) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let result = Mutex<(Data?, Int)?>(nil)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            result.withLock { $0 = (data, (response as? HTTPURLResponse)?.statusCode ?? 0) }
            done.signal()
        }.resume()
        done.wait()
        guard let (data, status) = result.withLock({ $0 }) else { return (0, nil) }
        guard let data, !data.isEmpty else { return (status, nil) }
        return (status, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any])
    }
}
