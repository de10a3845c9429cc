/// Sorts command-line words into options and positionals the way every midiccio command
/// reads them; values stay text here (their declarations convert them).
///
/// - `--name value`, `--name=value` and `-x value`; the word after an option is its value
///   whatever it looks like, so `--meaning -ish` works.
/// - `--` ends the options: every word after it is positional, `-h` included.
/// - `-` and negative numbers (`-5`) are positional.
/// - An option given twice is refused unless it is repeatable (its values collect) or its
///   last value wins; a flag may be given twice.
package struct ArgumentReader {
    /// The options, flags and help it knows, in the order `values` follows.
    package let options: [ArgumentDefinition]
    /// The texts given for each of `options` (one empty text per time a flag is given).
    private(set) var values: [[String]]
    /// The positional words, in order.
    private(set) var positionals: [String] = []
    /// True when `-h` or `--help` was given.
    private(set) var helpRequested = false

    /// True when the command takes positional arguments: an unknown option then says how
    /// to give an argument that starts with `-`.
    private let takesArguments: Bool

    package init(options: [ArgumentDefinition], takesArguments: Bool = false) {
        self.options = options
        self.takesArguments = takesArguments
        values = Array(repeating: [], count: options.count)
    }

    /// Reads `words`. With `untilPositional` it stops before the first positional word or
    /// `--` (the tool reads its own options up to the command's name this way).
    /// Returns how many words it read.
    @discardableResult
    package mutating func read(_ words: [String], untilPositional: Bool = false) throws(UsageError) -> Int {
        var index = 0
        var onlyPositionals = false
        while index < words.count {
            let word = words[index]
            if onlyPositionals || Self.isPositional(word) || untilPositional && word == "--" {
                if untilPositional { return index }
                positionals.append(word)
                index += 1
                continue
            }
            index += 1
            if word == "--" {
                onlyPositionals = true
                continue
            }
            let (position, inlineValue) = try find(word)
            let option = options[position]
            switch option.kind {
            case .flag, .help:
                if inlineValue != nil { throw UsageError("--\(option.name) takes no value") }
                if option.kind == .help { helpRequested = true } else { values[position].append("") }
            case .option:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < words.count else {
                        throw UsageError("--\(option.name) needs a value (\(option.valueName ?? option.name))")
                    }
                    value = words[index]
                    index += 1
                }
                if !option.repeating && !option.lastWins && !values[position].isEmpty {
                    throw UsageError("--\(option.name) was given more than once")
                }
                values[position].append(value)
            case .positional:
                preconditionFailure("a positional argument among the options")
            }
        }
        return index
    }

    /// A word that cannot be an option is an argument: one not starting with `-`, a
    /// number, or one dash then text with a colon or a space (`-tag:done`, a search that
    /// leaves a tag out; it was refused as an unknown option, round 18B), as no option's
    /// name holds either.
    private static func isPositional(_ word: String) -> Bool {
        if word == "-" || !word.hasPrefix("-") { return true }
        if word.hasPrefix("--") { return false }
        return Int(word) != nil || word.count > 2 && word.contains { $0 == ":" || $0.isWhitespace }
    }

    /// The option `word` names, and the value written into it after `=`.
    private func find(_ word: String) throws(UsageError) -> (position: Int, inlineValue: String?) {
        if word.hasPrefix("--") {
            let body = word.dropFirst(2)
            let name = body.prefix { $0 != "=" }
            let inlineValue = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
            guard let position = options.firstIndex(where: { $0.name == name }) else {
                throw UsageError("unknown option '--\(name)'")
            }
            return (position, inlineValue)
        }
        guard word.count == 2, let position = options.firstIndex(where: { $0.short == word.last }) else {
            // A search for words without one (`-perro`) is an argument, after `--`.
            let hint = takesArguments ? " (an argument that starts with '-' goes after '--', as in: -- \(word))" : ""
            throw UsageError("unknown option '\(word)'\(hint)")
        }
        return (position, nil)
    }
}
