import Foundation
import MiDiccioKit

extension HTTPResponse {
    /// A JSON response; `json` is already-encoded JSON text.
    static func json(_ json: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: Data(json.utf8))
    }

    /// `{"error": message, "field": field}`: the shape the page shows next to a field
    /// (or in a notice when there is no field).
    static func error(_ status: Int, _ message: String, field: String? = nil) -> HTTPResponse {
        var pairs = [("error", JSONText.quote(message))]
        if let field { pairs.append(("field", JSONText.quote(field))) }
        return .json(JSONText.object(pairs), status: status)
    }

    /// A file the browser saves instead of showing.
    static func download(_ data: Data, contentType: String, fileName: String) -> HTTPResponse {
        var response = HTTPResponse(status: 200, contentType: contentType, body: data)
        response.setHeader("Content-Disposition", "attachment; filename=\"\(fileName)\"")
        return response
    }

    /// A download sent from the file at `path` as it goes out (the file may be removed
    /// once this returns).
    static func download(file path: String, contentType: String, fileName: String) throws -> HTTPResponse {
        var response = download(Data(), contentType: contentType, fileName: fileName)
        response.file = try FileBody(path: path)
        return response
    }
}

/// A malformed request body: answered with 400 and the field at fault.
struct BadRequest: Error {
    var message: String
    var field: String?
}

/// A JSON object sent by the page, read strictly: a field of the wrong type is a 400
/// naming the field, never a silent default.
struct JSONBody {
    private let object: [String: Any]

    init(_ data: Data) throws(BadRequest) {
        guard !data.isEmpty else { throw BadRequest(message: "the request needs a JSON body") }
        guard let value = try? JSONSerialization.jsonObject(with: data), let object = value as? [String: Any] else {
            if Self.holdsAHalfCharacter(data) {
                throw BadRequest(
                    message:
                        "the text holds half of a character (a lone UTF-16 surrogate, as half an emoji cut off where it was "
                        + "copied from), which cannot be saved: remove it, and type or paste the whole character again")
            }
            throw BadRequest(message: "the request body is not a JSON object")
        }
        self.object = object
    }

    /// True when `data` holds a `\u` escape of half a UTF-16 surrogate pair: the page's
    /// `JSON.stringify` writes a lone one so, and the reader refuses the whole body. It
    /// was refused as "not a JSON object", naming nothing a person could change (round 18B).
    private static func holdsAHalfCharacter(_ data: Data) -> Bool {
        let bytes = Array(data)
        guard bytes.count >= 6 else { return false }
        for index in 0...(bytes.count - 6) where bytes[index] == UInt8(ascii: "\\") && bytes[index + 1] == UInt8(ascii: "u") {
            // D800-DFFF: the first two hex digits d8 to df, in either case.
            if String(decoding: bytes[(index + 2)...(index + 3)], as: UTF8.self).lowercased().wholeMatch(of: /d[89a-f]/) != nil {
                return true
            }
        }
        return false
    }

    /// A string field; nil when absent or null.
    func string(_ name: String) throws(BadRequest) -> String? {
        guard let value = object[name], !(value is NSNull) else { return nil }
        guard let text = value as? String else { throw BadRequest(message: "\(name) must be text", field: name) }
        return text
    }

    /// A whole number field; nil when absent or null.
    func integer(_ name: String) throws(BadRequest) -> Int? {
        guard let value = object[name], !(value is NSNull) else { return nil }
        guard let number = value as? NSNumber, let whole = Int(exactly: number.doubleValue) else {
            throw BadRequest(message: "\(name) must be a whole number", field: name)
        }
        return whole
    }

    /// A true or false field; nil when absent or null.
    func bool(_ name: String) throws(BadRequest) -> Bool? {
        guard let value = object[name], !(value is NSNull) else { return nil }
        guard let flag = value as? Bool else { throw BadRequest(message: "\(name) must be true or false", field: name) }
        return flag
    }

    /// An object field, read as strictly; nil when absent or null.
    func object(_ name: String) throws(BadRequest) -> JSONBody? {
        guard let value = object[name], !(value is NSNull) else { return nil }
        guard let inner = value as? [String: Any] else { throw BadRequest(message: "\(name) must be an object", field: name) }
        return JSONBody(inner)
    }

    private init(_ object: [String: Any]) {
        self.object = object
    }

    /// True when member `name` is a single text (not a list).
    func isText(_ name: String) -> Bool { object[name] is String }

    /// A list of strings; a single string is split into lines (examples typed one per line).
    func strings(_ name: String) throws(BadRequest) -> [String]? {
        guard let value = object[name], !(value is NSNull) else { return nil }
        if let text = value as? String { return text.split(whereSeparator: \.isNewline).map(String.init) }
        guard let list = value as? [Any], let texts = list as? [String] else {
            throw BadRequest(message: "\(name) must be a list of texts", field: name)
        }
        return texts
    }
}
