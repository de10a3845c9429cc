import CYajl
import Foundation
import MiDiccioModel

/// Reads a backup's JSON as it streams, through yajl's event parser: the top-level values
/// other than the `words` and `reviews` lists are built whole (they are small), and each
/// entry of those two lists is built on its own and handed to `onEntry`, then dropped. A
/// backup of any size is read in the memory of one entry.
///
/// Values are built as `JSONText.parse` builds them, so `BackupFile` checks them the
/// same way: `String`, `Int` (or `Double` for a fraction), `Bool`, `JSONNull`, `[Any]` and
/// `[String: Any]`.
final class BackupReader {
    /// The two lists whose entries stream.
    enum List {
        case words, reviews
    }

    /// A JSON syntax error: where (1-based line and column) and yajl's words for it.
    struct SyntaxError: Error {
        var line: Int
        var column: Int
        var reason: String
    }

    /// What was read at the top level, besides the entries handed on.
    struct Outline {
        /// False when the text is not a JSON object.
        var isObject = false
        /// The top-level values, the streamed lists left out.
        var values: [String: Any] = [:]
        /// How many times each list appeared as a list, and its entries.
        var lists: [List: Int] = [:]
        var entries: [List: Int] = [:]
    }

    /// A container being built: the frames are classes, so adding to one never copies it.
    private final class Frame {
        enum Kind {
            case root
            case entries(List)
            case object
            case array
        }
        let kind: Kind
        var object: [String: Any] = [:]
        var array: [Any] = []
        var key: String?

        init(_ kind: Kind) { self.kind = kind }
    }

    private(set) var outline = Outline()
    private var frames: [Frame] = []
    private let onEntry: (List, Any, Int) throws -> Void
    /// What `onEntry` threw; the parse is cancelled and this is rethrown.
    private var failure: Error?

    /// A reader that hands each entry of `words` and `reviews` to `onEntry` with its index.
    init(onEntry: @escaping (List, Any, Int) throws -> Void) {
        self.onEntry = onEntry
    }

    /// Reads the text that `next` hands over in pieces (nil at its end). A byte order mark
    /// at its start is left out, as Windows Notepad and PowerShell save UTF-8: a backup
    /// edited there was refused as "not a MiDiccio backup" (found by the exploratory
    /// helper, round 11).
    func read(pieces next: () throws -> [UInt8]?) throws {
        var atStart = true
        try readText(pieces: {
            let piece = try next()
            guard atStart, let bytes = piece else { return piece }
            atStart = false
            return bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        })
    }

    private func readText(pieces next: () throws -> [UInt8]?) throws {
        // yajl keeps the pointer to its callbacks for as long as the handle lives.
        let callbacks = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
        callbacks.initialize(to: Self.callbacks)
        defer { callbacks.deallocate() }
        guard let handle = yajl_alloc(callbacks, nil, Unmanaged.passUnretained(self).toOpaque()) else {
            throw SyntaxError(line: 1, column: 1, reason: "the JSON reader could not start")
        }
        defer { yajl_free(handle) }
        var line = 1, column = 1
        while let piece = try next() {
            let status = piece.withUnsafeBufferPointer { yajl_parse(handle, $0.baseAddress, $0.count) }
            if status == yajl_status_client_canceled, let failure { throw failure }
            if status != yajl_status_ok {
                let offset = min(Int(yajl_get_bytes_consumed(handle)), piece.count)
                Self.advance(&line, &column, over: piece[..<offset])
                throw SyntaxError(line: line, column: column, reason: Self.error(handle))
            }
            Self.advance(&line, &column, over: piece[...])
        }
        let status = yajl_complete_parse(handle)
        if status == yajl_status_client_canceled, let failure { throw failure }
        if status != yajl_status_ok { throw SyntaxError(line: line, column: column, reason: Self.error(handle)) }
    }

    private static func advance(_ line: inout Int, _ column: inout Int, over bytes: ArraySlice<UInt8>) {
        for byte in bytes {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
    }

    /// yajl's message for the error it stopped at.
    private static func error(_ handle: yajl_handle) -> String {
        guard let text = yajl_get_error(handle, 0, nil, 0) else { return "a syntax error" }
        defer { yajl_free_error(handle, text) }
        return String(cString: text).trimmed
    }

    // MARK: - Building values

    /// Puts a finished value where it belongs; false cancels the parse.
    fileprivate func put(_ value: Any) -> Bool {
        guard let frame = frames.last else { return true }
        switch frame.kind {
        case .root:
            if let key = frame.key { outline.values[key] = value }
        case .entries(let list):
            let index = outline.entries[list, default: 0]
            outline.entries[list] = index + 1
            do {
                try onEntry(list, value, index)
            } catch {
                failure = error
                return false
            }
        case .object:
            if let key = frame.key { frame.object[key] = value }
            frame.key = nil
        case .array:
            frame.array.append(value)
        }
        return true
    }

    fileprivate func startObject() -> Bool {
        if frames.isEmpty {
            outline.isObject = true
            frames.append(Frame(.root))
        } else {
            frames.append(Frame(.object))
        }
        return true
    }

    fileprivate func key(_ key: String) -> Bool {
        frames.last?.key = key
        return true
    }

    fileprivate func endObject() -> Bool {
        guard let frame = frames.popLast() else { return true }
        if case .root = frame.kind { return true }
        return put(frame.object)
    }

    fileprivate func startArray() -> Bool {
        if let frame = frames.last, case .root = frame.kind, let key = frame.key,
            let list = key == "words" ? List.words : key == "reviews" ? .reviews : nil
        {
            outline.lists[list, default: 0] += 1
            outline.values[key] = nil
            frames.append(Frame(.entries(list)))
        } else {
            frames.append(Frame(.array))
        }
        return true
    }

    fileprivate func endArray() -> Bool {
        guard let frame = frames.popLast() else { return true }
        if case .entries = frame.kind {
            frames.last?.key = nil
            return true
        }
        return put(frame.array)
    }

    private static var callbacks: yajl_callbacks {
        yajl_callbacks(
            yajl_null: { readerOf($0).put(JSONNull()) ? 1 : 0 },
            yajl_boolean: { readerOf($0).put($1 != 0) ? 1 : 0 },
            yajl_integer: { readerOf($0).put(Int($1)) ? 1 : 0 },
            // A whole number written with a fraction (2.0) reads as an Int, as it does
            // in `JSONText.parse`.
            yajl_double: { context, value in
                let whole = value.rounded() == value && abs(value) < 9e15
                return readerOf(context).put(whole ? Int(value) : value) ? 1 : 0
            },
            yajl_number: nil,
            yajl_string: { readerOf($0).put(jsonText($1, $2)) ? 1 : 0 },
            yajl_start_map: { readerOf($0).startObject() ? 1 : 0 },
            yajl_map_key: { readerOf($0).key(jsonText($1, $2)) ? 1 : 0 },
            yajl_end_map: { readerOf($0).endObject() ? 1 : 0 },
            yajl_start_array: { readerOf($0).startArray() ? 1 : 0 },
            yajl_end_array: { readerOf($0).endArray() ? 1 : 0 })
    }
}

/// The reader behind yajl's context pointer.
private func readerOf(_ context: UnsafeMutableRawPointer?) -> BackupReader {
    Unmanaged<BackupReader>.fromOpaque(context!).takeUnretainedValue()
}

/// A JSON string or key as yajl hands it over (UTF-8 it has checked).
private func jsonText(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> String {
    guard let bytes else { return "" }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}
