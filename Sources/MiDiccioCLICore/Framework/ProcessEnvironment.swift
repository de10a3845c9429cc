import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The process's environment variables, read once at start.
public enum ProcessEnvironment {
    /// Every variable as `NAME=value` gives it; the first of a repeated name wins.
    ///
    /// On Linux it reads `environ` directly: `ProcessInfo.processInfo` sets up far more
    /// than the environment, which cost a few percent of every command's start.
    public static func current() -> [String: String] {
        #if canImport(Glibc)
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "="), variables[String(text[..<equals])] == nil {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return variables
        #else
        return ProcessInfo.processInfo.environment
        #endif
    }
}
