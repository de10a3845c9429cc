/// Where the parser puts a declared property's value. A reference, so that every copy of
/// the declaring struct (the one the parser filled, the one that runs) sees the value.
package final class Slot<Value> {
    /// The default until the parser stores what was given.
    package var value: Value

    package init(_ value: Value) { self.value = value }
}

/// A property wrapper the framework finds with `Mirror`.
package protocol Declaration {
    /// What it declares. `label` is the property's name, which names an option or
    /// argument declared without a name (`noDuplicates` becomes `--no-duplicates`).
    func definitions(label: String) -> [ArgumentDefinition]
}

// MARK: - Options

/// `--name <value>`: an option with a value.
///
/// An optional (`String?`) is nil when not given and a default (`= 8080`) stands when not
/// given; both may be given once. An array collects every value given, in order.
@propertyWrapper
package struct Option<Value>: Declaration {
    private let slot: Slot<Value>
    private let definition: ArgumentDefinition

    /// The value given, or the default.
    package var wrappedValue: Value { slot.value }

    package func definitions(label: String) -> [ArgumentDefinition] { [definition.named(label)] }

    /// An option whose default stands when it is not given.
    package init(wrappedValue: Value, name: String? = nil, short: Character? = nil, valueName: String? = nil, help: String)
    where Value: ExpressibleByArgument {
        self.init(
            initial: wrappedValue, name: name, short: short, valueName: valueName, help: help,
            reader: ValueReader<Value>.standard
        ) { $0.value = $1.last! }
    }

    /// A whole-number option whose default stands when it is not given; a number outside
    /// `range` is refused.
    package init(
        wrappedValue: Int, name: String? = nil, short: Character? = nil, valueName: String? = nil, help: String,
        range: ClosedRange<Int>
    ) where Value == Int {
        self.init(
            initial: wrappedValue, name: name, short: short, valueName: valueName, help: help,
            reader: ValueReader<Int>.integer(in: range)
        ) { $0.value = $1.last! }
    }

    /// An option that is nil when not given. With `lastWins`, giving it again replaces the
    /// earlier value instead of being refused.
    package init<Wrapped: ExpressibleByArgument>(
        name: String? = nil, short: Character? = nil, valueName: String? = nil, help: String,
        lastWins: Bool = false
    ) where Value == Wrapped? {
        self.init(
            initial: nil, name: name, short: short, valueName: valueName, help: help,
            reader: ValueReader<Wrapped>.standard, lastWins: lastWins
        ) { $0.value = $1.last }
    }

    /// A whole-number option that is nil when not given; a number outside `range` is refused.
    package init(
        name: String? = nil, short: Character? = nil, valueName: String? = nil, help: String,
        range: ClosedRange<Int>
    ) where Value == Int? {
        self.init(
            initial: nil, name: name, short: short, valueName: valueName, help: help,
            reader: ValueReader<Int>.integer(in: range)
        ) { $0.value = $1.last }
    }

    /// A repeatable option: every value given, in order; empty when not given.
    package init<Element: ExpressibleByArgument>(name: String? = nil, short: Character? = nil, valueName: String? = nil, help: String)
    where Value == [Element] {
        self.init(
            initial: [], name: name, short: short, valueName: valueName, help: help,
            reader: ValueReader<Element>.standard, repeating: true
        ) { $0.value = $1 }
    }

    /// `assign` gets the values read from the texts given, only when at least one was given.
    private init<Element>(
        initial: Value, name: String?, short: Character?, valueName: String?, help: String,
        reader: ValueReader<Element>, repeating: Bool = false, lastWins: Bool = false,
        assign: @escaping (Slot<Value>, [Element]) -> Void
    ) {
        let slot = Slot(initial)
        self.slot = slot
        definition = ArgumentDefinition(
            kind: .option, name: name ?? "", short: short, valueName: valueName ?? reader.valueName, help: help,
            repeating: repeating, lastWins: lastWins
        ) { texts, shownName throws(UsageError) in
            guard !texts.isEmpty else { return }
            var values: [Element] = []
            for text in texts { values.append(try reader.read(text, shownName)) }
            assign(slot, values)
        }
    }
}

/// `--name`: a flag, false unless given.
@propertyWrapper
package struct Flag: Declaration {
    private let slot: Slot<Bool>
    private let definition: ArgumentDefinition

    /// True when the flag was given.
    package var wrappedValue: Bool { slot.value }

    package func definitions(label: String) -> [ArgumentDefinition] { [definition.named(label)] }

    /// A flag; `wrappedValue` must be false, since giving it can only turn it on.
    package init(wrappedValue: Bool, name: String? = nil, short: Character? = nil, help: String) {
        precondition(!wrappedValue, "a flag is off until it is given")
        let slot = Slot(false)
        self.slot = slot
        definition = ArgumentDefinition(kind: .flag, name: name ?? "", short: short, help: help) { texts, _ in
            if !texts.isEmpty { slot.value = true }
        }
    }
}

// MARK: - Arguments

/// `<name>`: a positional argument, required. An array takes one or more (`<id> ...`) and
/// must be the last argument declared; an optional (`String?`) may be left out, and only
/// optional arguments may follow it.
@propertyWrapper
package struct Argument<Value>: Declaration {
    private let slot: Slot<Value?>
    private let definition: ArgumentDefinition

    /// The value given. Only a parsed command is run, so it is always there.
    package var wrappedValue: Value {
        guard let value = slot.value else { preconditionFailure("an argument was read before parsing") }
        return value
    }

    package func definitions(label: String) -> [ArgumentDefinition] { [definition.named(label)] }

    /// One required argument.
    package init(name: String? = nil, help: String) where Value: ExpressibleByArgument {
        self.init(name: name, help: help, reader: ValueReader<Value>.standard, repeating: false) { $0.value = $1.first }
    }

    /// One or more arguments, all that remain.
    package init<Element: ExpressibleByArgument>(name: String? = nil, help: String) where Value == [Element] {
        self.init(name: name, help: help, reader: ValueReader<Element>.standard, repeating: true) { $0.value = $1 }
    }

    /// One argument that may be left out: nil then.
    package init<Wrapped: ExpressibleByArgument>(name: String? = nil, help: String) where Value == Wrapped? {
        self.init(name: name, help: help, reader: ValueReader<Wrapped>.standard, repeating: false, initial: .some(nil)) {
            $0.value = .some($1.first)
        }
    }

    /// `initial` is the value until the parser stores one: nil (a required argument that
    /// was read before parsing) or, for an optional argument, "not given".
    private init<Element>(
        name: String?, help: String, reader: ValueReader<Element>, repeating: Bool, initial: Value? = nil,
        assign: @escaping (Slot<Value?>, [Element]) -> Void
    ) {
        let slot = Slot<Value?>(initial)
        self.slot = slot
        var definition = ArgumentDefinition(kind: .positional, name: name ?? "", help: help, repeating: repeating) {
            texts, shownName throws(UsageError) in
            var values: [Element] = []
            for text in texts { values.append(try reader.read(text, shownName)) }
            assign(slot, values)
        }
        definition.optional = initial != nil
        self.definition = definition
    }
}

// MARK: - Groups

/// Options declared once in their own `ParsableArguments` struct and shared by several
/// commands (`OutputOptions`); they take their place among the command's own.
@propertyWrapper
package struct OptionGroup<Group: ParsableArguments>: Declaration {
    /// The group, filled when the command is.
    package let wrappedValue: Group

    /// The group with its declared defaults.
    package init() { wrappedValue = Group() }

    /// A group made for this command, e.g. `OutputOptions(help: "Print the counts as JSON.")`.
    package init(wrappedValue: Group) { self.wrappedValue = wrappedValue }

    package func definitions(label: String) -> [ArgumentDefinition] { ArgumentDefinition.declared(by: wrappedValue) }
}
