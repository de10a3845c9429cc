import Foundation
import MiDiccioCloud
import MiDiccioFiles

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Writing to Google Drive: new files into the oldest of same-named folders (made when
// missing), updates by id, multipart uploads up to 5 MB and resumable ones above, and
// the look by name for a file whose upload lost only its answer.
extension GoogleDriveStorage {
    func createFile(_ path: String, _ data: CloudBytes) throws {
        var parts = components(path)
        guard let name = parts.popLast() else { throw CloudError.failed(path: path, reason: "not a file path") }
        let parent = try ensureFolder(parts)
        let metadata: [String: Any] = ["name": name, "parents": [parent]]
        let started = Self.timestamp()
        try send(data, metadata: metadata, path: path, fileID: nil) {
            // The first attempt may have made the file and lost only its answer: a file
            // of this name made since then is that one (names sync creates are random).
            try self.findMade(name: name, parent: parent, since: started, size: data.count)
        }
    }

    /// The resource of a file named `name` in `parent` made at or after `since`, as a
    /// 200 answer, or nil.
    private func findMade(name: String, parent: String, since: String, size: Int) throws -> HTTPAnswer? {
        let answer = try api.send(
            GoogleDriveAPI.Call(
                method: "GET", path: "/drive/v3/files",
                query: [
                    ("spaces", space.spacesParameter),
                    ("q", "name = '\(Self.quoted(name))' and '\(Self.quoted(parent))' in parents and trashed = false"),
                    ("fields", "files(\(DriveIndex.Item.fields))"),
                ], about: name, kind: "files.list"))
        guard answer.status == 200, let object = try? GoogleDriveAPI.object(answer, about: name) else { return nil }
        for file in object["files"] as? [[String: Any]] ?? [] {
            guard let item = DriveIndex.Item(resource: file), item.size == size, item.created >= since.prefix(19) else { continue }
            let body = (try? JSONSerialization.data(withJSONObject: file)) ?? Data()
            return HTTPAnswer(status: 200, headers: [:], body: body)
        }
        return nil
    }

    /// Replaces the content of file `id`; false when Drive no longer has it.
    func upload(_ data: CloudBytes, path: String, updating id: String) throws -> Bool {
        do {
            _ = try send(data, metadata: [:], path: path, fileID: id, unknownOutcome: nil)
            return true
        } catch UploadTargetGone.gone {
            mutate { $0.remove(id) }
            return false
        }
    }

    private enum UploadTargetGone: Error { case gone }

    /// Uploads `bytes` as a new file (`fileID` nil) or over file `fileID`, multipart or
    /// resumable by size, and notes the result in the index. Returns the file's id.
    @discardableResult
    private func send(
        _ bytes: CloudBytes, metadata: [String: Any], path: String, fileID: String?,
        unknownOutcome: (() throws -> HTTPAnswer?)?
    ) throws -> String {
        let answer: HTTPAnswer
        if bytes.count <= api.options.multipartLimit {
            let data = try bytes.wholeData()
            let boundary = Self.boundary(for: data)
            var body = Data()
            let json = (try? JSONSerialization.data(withJSONObject: metadata)) ?? Data("{}".utf8)
            body.append(Data("--\(boundary)\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n".utf8))
            body.append(json)
            body.append(Data("\r\n--\(boundary)\r\nContent-Type: application/octet-stream\r\n\r\n".utf8))
            body.append(data)
            body.append(Data("\r\n--\(boundary)--\r\n".utf8))
            let call = GoogleDriveAPI.Call(
                method: fileID == nil ? "POST" : "PATCH", path: "/upload/drive/v3/files" + (fileID.map { "/\($0)" } ?? ""),
                query: [("uploadType", "multipart"), ("fields", DriveIndex.Item.fields)], body: body,
                headers: ["Content-Type": "multipart/related; boundary=\(boundary)"], about: path, kind: "upload.multipart")
            answer = try api.send(call, unknownOutcome: unknownOutcome)
        } else {
            answer = try resumable(bytes, metadata: metadata, path: path, fileID: fileID)
        }
        if answer.status == 404, fileID != nil { throw UploadTargetGone.gone }
        guard (200..<300).contains(answer.status) else {
            throw api.failure(answer, GoogleDriveAPI.Call(method: fileID == nil ? "POST" : "PATCH", path: "", about: path, kind: ""))
        }
        let resource = try GoogleDriveAPI.object(answer, about: path)
        guard let id = resource["id"] as? String ?? fileID, let item = DriveIndex.Item(resource: resource) else {
            throw CloudError.failed(path: path, reason: "Google Drive's answer does not describe the file written")
        }
        mutate { index in
            index.update(id: id, with: item)
            learnRoot(madeIn: (metadata["parents"] as? [String])?.first, item: item, index: &index)
            if path.hasSuffix(".json"), case .memory(let data) = bytes, data.count <= api.options.cachedContentLimit {
                index.contents[id] = DriveIndex.Content(version: item.version, data: data)
            }
        }
        return id
    }

    /// A resumable upload: one request opens a session, then the bytes go up in pieces of
    /// `GoogleDriveStorage.Options.resumablePiece` (a snapshot kept in a temporary file is
    /// never held whole); after a dropped connection, Drive says how much arrived and the
    /// rest follows.
    private func resumable(_ data: CloudBytes, metadata: [String: Any], path: String, fileID: String?) throws -> HTTPAnswer {
        var restarts = 0
        while true {
            let open = GoogleDriveAPI.Call(
                method: fileID == nil ? "POST" : "PATCH", path: "/upload/drive/v3/files" + (fileID.map { "/\($0)" } ?? ""),
                query: [("uploadType", "resumable"), ("fields", DriveIndex.Item.fields)],
                body: (try? JSONSerialization.data(withJSONObject: metadata)) ?? Data("{}".utf8),
                headers: [
                    "Content-Type": "application/json; charset=UTF-8", "X-Upload-Content-Type": "application/octet-stream",
                    "X-Upload-Content-Length": "\(data.count)",
                ], about: path, kind: "upload.resumable.start")
            let opened = try api.send(open)
            if opened.status == 404 { return opened }
            guard opened.status == 200, let session = opened.header("Location") else { throw api.failure(opened, open) }
            var offset = 0
            var drops = 0
            while true {
                let piece: Data
                do {
                    piece = try data.piece(at: offset, count: min(api.options.resumablePiece, data.count - offset))
                } catch let error as FileError {
                    throw CloudError.failed(path: path, reason: "the file to upload cannot be read: \(error.reason)")
                }
                let put = GoogleDriveAPI.Call(
                    method: "PUT", path: session, body: piece,
                    headers: [
                        "Content-Range": piece.isEmpty
                            ? "bytes */\(data.count)" : "bytes \(offset)-\(offset + piece.count - 1)/\(data.count)",
                        "Content-Type": "application/octet-stream",
                    ], maxBody: 1 << 20, about: path, kind: "upload.resumable.put")
                let answer: HTTPAnswer
                do {
                    answer = try api.send(put, retryDrops: false)
                } catch let dropped as GoogleDriveAPI.Dropped {
                    drops += 1
                    guard let delay = api.options.retry.delay(afterAttempt: drops, retryAfter: nil) else {
                        throw CloudError.unavailable(GoogleDriveAPI.describe(dropped.failure))
                    }
                    api.options.sleep(delay)
                    offset = try received(session: session, total: data.count, path: path) ?? data.count
                    if offset == data.count, let done = try finished(session: session, total: data.count, path: path) { return done }
                    continue
                }
                switch answer.status {
                case 200, 201:
                    return answer
                case 308:
                    offset = Self.rangeEnd(answer.header("Range")).map { $0 + 1 } ?? 0
                    continue
                case 404 where restarts < 1, 410 where restarts < 1:
                    // The session expired: start again from the first byte.
                    restarts += 1
                default:
                    throw api.failure(answer, put)
                }
                break
            }
        }
    }

    /// How many bytes of the session's upload Drive holds; nil when it holds them all.
    private func received(session: String, total: Int, path: String) throws -> Int? {
        let answer = try api.send(
            GoogleDriveAPI.Call(
                method: "PUT", path: session, body: Data(), headers: ["Content-Range": "bytes */\(total)"], about: path,
                kind: "upload.resumable.put"))
        switch answer.status {
        case 200, 201: return nil
        case 308: return Self.rangeEnd(answer.header("Range")).map { $0 + 1 } ?? 0
        default:
            throw CloudError.failed(path: path, reason: "Google Drive lost the upload (\(answer.status)); the next sync uploads it again")
        }
    }

    /// The finished upload's answer, asked again.
    private func finished(session: String, total: Int, path: String) throws -> HTTPAnswer? {
        let answer = try api.send(
            GoogleDriveAPI.Call(
                method: "PUT", path: session, body: Data(), headers: ["Content-Range": "bytes */\(total)"], about: path,
                kind: "upload.resumable.put"))
        return answer.status == 200 || answer.status == 201 ? answer : nil
    }

    /// The last byte of a `Range: bytes=0-N` header.
    static func rangeEnd(_ header: String?) -> Int? {
        guard let header, let dash = header.lastIndex(of: "-") else { return nil }
        return Int(header[header.index(after: dash)...].trimmingCharacters(in: .whitespaces))
    }

    /// The folder at `components` to write into: the oldest of same-named folders,
    /// made (with missing parents) when there is none. At the top of the app data folder
    /// new folders are made with Drive's alias `appDataFolder` until Drive has named its
    /// id: a folder that a listing left out would otherwise pass for the top.
    private func ensureFolder(_ components: [String]) throws -> String {
        var parentID: String
        if let folderName {
            parentID = try index.roots(folderName: folderName).first ?? makeFolder(folderName, in: "root", path: "/")
        } else {
            parentID = index.rootID ?? Self.appDataAlias
        }
        var walked: [String] = []
        for component in components {
            walked.append(component)
            if let existing = folderIDs(walked, in: index).first {
                parentID = existing
            } else {
                parentID = try makeFolder(component, in: parentID, path: walked.joined(separator: "/"))
            }
        }
        return parentID
    }

    /// Drive's name for the app data folder, in `parents`.
    static let appDataAlias = "appDataFolder"

    /// Notes the app data folder's id when `item` was made in it by its alias.
    func learnRoot(madeIn parent: String?, item: DriveIndex.Item, index: inout DriveIndex) {
        if folderName == nil, parent == Self.appDataAlias, let real = item.parent { index.rootID = real }
    }

    /// Makes a folder and notes it in the index; returns its id.
    private func makeFolder(_ name: String, in parent: String, path: String) throws -> String {
        let metadata: [String: Any] = ["name": name, "mimeType": Self.folderType, "parents": [parent]]
        let call = GoogleDriveAPI.Call(
            method: "POST", path: "/drive/v3/files", query: [("fields", DriveIndex.Item.fields)],
            body: (try? JSONSerialization.data(withJSONObject: metadata)) ?? Data(),
            headers: ["Content-Type": "application/json; charset=UTF-8"], about: path, kind: "files.create")
        let resource = try api.json(call)
        guard let id = resource["id"] as? String, let item = DriveIndex.Item(resource: resource) else {
            throw CloudError.failed(path: path, reason: "Google Drive's answer does not describe the folder made")
        }
        mutate { index in
            index.update(id: id, with: item)
            learnRoot(madeIn: parent, item: item, index: &index)
        }
        return id
    }

    /// A multipart boundary that does not occur in `data`.
    private static func boundary(for data: Data) -> String {
        while true {
            let boundary =
                "midiccio-" + String(UInt64.random(in: 0...UInt64.max), radix: 16) + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            if data.range(of: Data(boundary.utf8)) == nil { return boundary }
        }
    }

    /// Now in RFC 3339 with milliseconds, as Drive writes `createdTime`.
    private static func timestamp() -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date().addingTimeInterval(-120))
    }
}
