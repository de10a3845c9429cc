import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pseudo-terminal for a child process to write to as if to a person's terminal
/// (`isatty` is true for it), while the test reads everything it wrote.
///
/// A thread reads the controlling end from the start, so a child that writes much never
/// waits for the test. Hand `terminal` to the child, then call `closeTerminal()`: once
/// the child has ended too, `collected(timeout:)` has all it wrote.
final class PseudoTerminal: @unchecked Sendable {
    /// The end the child writes to.
    let terminal: Int32
    private let controller: Int32
    private let text = Mutex(Data())
    private let ended = DispatchSemaphore(value: 0)

    /// Opens a new pseudo-terminal and starts reading it.
    init() throws {
        let functions = try TerminalFunctions()
        controller = functions.open(O_RDWR | O_NOCTTY)
        guard controller >= 0, functions.grant(controller) == 0, functions.unlock(controller) == 0,
            let name = functions.name(controller)
        else {
            throw ChildProcessError(message: "cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        terminal = open(name, O_RDWR | O_NOCTTY)
        guard terminal >= 0 else { throw ChildProcessError(message: "cannot open \(String(cString: name))") }
        let thread = Thread { [self] in readUntilClosed() }
        thread.start()
    }

    deinit {
        close(controller)
    }

    /// Closes this process's copy of the child's end (after starting the child), so the
    /// reading ends when the child's copies close.
    func closeTerminal() { close(terminal) }

    /// Everything written, once every writer has closed its end (or after `timeout`).
    func collected(timeout: TimeInterval = 30) -> String {
        _ = ended.wait(timeout: .now() + timeout)
        return String(decoding: text.withLock { $0 }, as: UTF8.self)
    }

    private func readUntilClosed() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(controller, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            // Linux answers EIO once no process holds the other end open.
            guard count > 0 else { break }
            text.withLock { $0.append(contentsOf: buffer[0..<count]) }
        }
        ended.signal()
    }
}

/// The C library's pseudo-terminal functions: posix_openpt, grantpt, unlockpt, ptsname.
private struct TerminalFunctions {
    let open: (Int32) -> Int32
    let grant: (Int32) -> Int32
    let unlock: (Int32) -> Int32
    let name: (Int32) -> UnsafeMutablePointer<CChar>?

    init() throws {
        #if canImport(Glibc)
        // glibc declares them only for _XOPEN_SOURCE, which Swift's Glibc module does not
        // ask for, so they are looked up by name.
        func symbol(_ name: String) throws -> UnsafeMutableRawPointer {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
                throw ChildProcessError(message: "the C library has no \(name)")
            }
            return symbol
        }
        typealias Call = @convention(c) (Int32) -> Int32
        open = unsafeBitCast(try symbol("posix_openpt"), to: Call.self)
        grant = unsafeBitCast(try symbol("grantpt"), to: Call.self)
        unlock = unsafeBitCast(try symbol("unlockpt"), to: Call.self)
        name = unsafeBitCast(try symbol("ptsname"), to: (@convention(c) (Int32) -> UnsafeMutablePointer<CChar>?).self)
        #else
        open = { posix_openpt($0) }
        grant = { grantpt($0) }
        unlock = { unlockpt($0) }
        name = { ptsname($0) }
        #endif
    }
}
