/// A type whose values can be written on the command line.
///
/// An enum of strings conforms by declaring it: its cases are the values, help shows them
/// as the placeholder (`--sort <updated|created|term>`) and a mistake lists them.
package protocol ExpressibleByArgument {
    /// The value `text` stands for; nil when it stands for none.
    init?(argument text: String)
    /// What a value must be, for error messages: "a whole number", "csv or tsv".
    static var expectation: String { get }
    /// The placeholder help shows for an option of this type that names none; nil: the
    /// option's own name.
    static var valueName: String? { get }
    /// The error for `text`, given as `shownName` (`--sort`, `<key>`), that is no value of
    /// this type.
    static func refusal(of text: String, as shownName: String) -> String
}

extension ExpressibleByArgument {
    package static var valueName: String? { nil }

    package static func refusal(of text: String, as shownName: String) -> String {
        "\(shownName) must be \(expectation), not '\(text)'"
    }
}

extension ExpressibleByArgument where Self: CaseIterable & RawRepresentable, RawValue == String {
    package init?(argument text: String) { self.init(rawValue: text) }
    package static var expectation: String { allCases.map(\.rawValue).listed }
    package static var valueName: String? { allCases.map(\.rawValue).joined(separator: "|") }
}

extension String: ExpressibleByArgument {
    package init?(argument text: String) { self = text }
    package static var expectation: String { "text" }
}

extension Int: ExpressibleByArgument {
    package init?(argument text: String) { self.init(text) }
    package static var expectation: String { "a whole number" }
    package static var valueName: String? { "n" }
}

/// Turns one text into a value, or into the usage error that names the option (or
/// argument) and the text.
package struct ValueReader<Value> {
    /// The placeholder help shows when the declaration names none; nil: the option's name.
    package var valueName: String?
    /// Reads `text`, given as `shownName`.
    package var read: (_ text: String, _ shownName: String) throws(UsageError) -> Value
}

extension ValueReader where Value: ExpressibleByArgument {
    /// Reads the type's own way.
    package static var standard: ValueReader {
        ValueReader(valueName: Value.valueName) { text, shownName throws(UsageError) in
            guard let value = Value(argument: text) else { throw UsageError(Value.refusal(of: text, as: shownName)) }
            return value
        }
    }
}

extension ValueReader where Value == Int {
    /// Reads a whole number within `range`.
    package static func integer(in range: ClosedRange<Int>) -> ValueReader {
        ValueReader(valueName: Int.valueName) { text, shownName throws(UsageError) in
            guard let number = Int(text), range.contains(number) else {
                throw UsageError("\(shownName) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return number
        }
    }
}

private extension [String] {
    /// "a, b or c".
    var listed: String {
        count < 2 ? joined() : dropLast().joined(separator: ", ") + " or " + last!
    }
}
