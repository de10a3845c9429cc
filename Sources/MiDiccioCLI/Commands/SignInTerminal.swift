import Foundation
import MiDiccioCLICore
import MiDiccioKit
import MiDiccioWeb

/// What the sign-ins to Google Drive and to iCloud do alike in the terminal: open the
/// browser, wait for its answer on the loopback receiver, or read the address the user
/// pastes back.
enum SignInTerminal {
    /// Opens `address` (when a browser is at hand) and waits up to `timeout` for the
    /// receiver's answer; any failure says that nothing was changed.
    static func openAndWait<SignIn>(
        _ address: String, receiver: SignInRedirectReceiver<SignIn>, timeout: TimeInterval, _ context: ToolContext
    ) throws -> String {
        openBrowser(address, environment: context.environment)
        context.note("Waiting for the sign-in (up to \(Int(timeout / 60)) minutes; Ctrl-C stops without changing anything)...")
        do {
            return try receiver.waitForCode(timeout: timeout)
        } catch {
            throw ToolFailure(
                "\(error); nothing was changed. Run the command again"
                    + (error == .timedOut(seconds: timeout) ? " (or add --no-browser to paste the address instead)" : ""))
        }
    }

    /// Reads pasted lines until `answer` finds one that answers the sign-in: its code, or
    /// the refusal it carries (an error). A line from another sign-in, or no address at
    /// all, is explained (`hint` says what the right address looks like) and another is read.
    /// Input that ends first says what was pasted, if anything: an address of another sign-in
    /// was said to be none (found by the exploratory helper, round 19A).
    static func pastedCode(_ context: ToolContext, hint: String, answer: (String) -> SignInAnswer) throws -> String {
        var last: SignInAnswer?
        while let line = context.io.readLine() {
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let answered = answer(line)
            last = answered
            switch answered {
            case .code(let code):
                return code
            case .refused(let reason):
                throw ToolFailure("\(reason); nothing was changed")
            case .foreign:
                context.note(
                    "That address belongs to another sign-in (its state does not match; an earlier attempt?). "
                        + "Paste the address the browser ends on after signing in at the address above:")
            case .unreadable:
                context.note("That is not the address the browser ends on (\(hint)). Paste it again:")
            }
        }
        switch last {
        case .foreign?:
            throw ToolFailure(
                "the input ended after an address of another sign-in (an earlier attempt?), before this one's was pasted; "
                    + "nothing was changed")
        case .unreadable?:
            throw ToolFailure("the input ended before the address the browser ends on was pasted; nothing was changed")
        default:
            throw ToolFailure("no sign-in address was pasted; nothing was changed")
        }
    }

    /// Opens `address` in the user's browser: `BROWSER` when set, else `xdg-open` (or
    /// `open` on macOS). Any failure is ignored: the address is printed anyway.
    static func openBrowser(_ address: String, environment: [String: String]) {
        #if os(macOS)
        let standard = "open"
        #else
        let standard = "xdg-open"
        #endif
        let named = environment["BROWSER"].flatMap { $0.split(separator: ":").first.map(String.init) } ?? standard
        let program: String?
        if named.contains("/") {
            program = named
        } else {
            let folders = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
            program = folders.map { "\($0)/\(named)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        guard let program else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = [address]
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}
