/// Where the parser puts a declared property's value. A reference, so that every copy of
/// the declaring struct (the one the parser filled, the one that runs) sees the value.
package final class Slot<Value> {
    /// The default until the parser stores what was given.
    package var value: Value

    package init(_ value: Value) { self.value = value }
}

/// Gathers the declarations of a `ParsableArguments` struct while it is made: each
/// property wrapper adds its definition as its initialiser runs, which Swift does in the
/// order the properties are written. (Reading them back with `Mirror` instead cost a
/// millisecond at every start: each property's type looked up in every protocol
/// conformance of the static Foundation.)
///
/// Unchecked `Sendable`, because a task-local value must be: the collector is only ever
/// reached from the code inside `declarations(of:)`, which makes one struct on one thread
/// and starts no task.
package final class DeclarationCollector: @unchecked Sendable {
    /// The collector of the struct being made on this thread or task, if any.
    @TaskLocal static var current: DeclarationCollector?

    private var gathered: [ArgumentDefinition] = []

    /// Adds the definition of a property just made.
    static func add(_ definition: ArgumentDefinition) {
        current?.gathered.append(definition)
    }

    /// Makes a struct with `make` and returns it with the definitions its declarations
    /// (and those of its option groups) added, in the order they are written.
    static func declarations<Arguments>(of make: () -> Arguments) -> (Arguments, [ArgumentDefinition]) {
        let collector = DeclarationCollector()
        let arguments = $current.withValue(collector) { make() }
        return (arguments, collector.gathered)
    }
}

// MARK: - Options

/// `--name <value>`: an option with a value.
///
/// An optional (`String?`) is nil when not given and a default (`= 8080`) stands when not
/// given; both may be given once. An array collects every value given, in order.
@propertyWrapper
package struct Option<Value> {
    private let slot: Slot<Value>

    /// The value given, or the default.
    package var wrappedValue: Value { slot.value }

    /// An option whose default stands when it is not given.
    package init(wrappedValue: Value, name: String, short: Character? = nil, valueName: String? = nil, help: String)
    where Value: ExpressibleByArgument {
        self.init(
            initial: wrappedValue, name: name, short: short, valueName: valueName, help: help,
            reader: ValueReader<Value>.standard
        ) { $0.value = $1.last! }
    }

    /// A whole-number option whose default stands when it is not given; a number outside
    /// `range` is refused.
    package init(
        wrappedValue: Int, name: String, short: Character? = nil, valueName: String? = nil, help: String,
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
        name: String, short: Character? = nil, valueName: String? = nil, help: String,
        lastWins: Bool = false
    ) where Value == Wrapped? {
        self.init(
            initial: nil, name: name, short: short, valueName: valueName, help: help,
            reader: ValueReader<Wrapped>.standard, lastWins: lastWins
        ) { $0.value = $1.last }
    }

    /// A whole-number option that is nil when not given; a number outside `range` is refused.
    package init(
        name: String, short: Character? = nil, valueName: String? = nil, help: String,
        range: ClosedRange<Int>
    ) where Value == Int? {
        self.init(
            initial: nil, name: name, short: short, valueName: valueName, help: help,
            reader: ValueReader<Int>.integer(in: range)
        ) { $0.value = $1.last }
    }

    /// A repeatable option: every value given, in order; empty when not given.
    package init<Element: ExpressibleByArgument>(name: String, short: Character? = nil, valueName: String? = nil, help: String)
    where Value == [Element] {
        self.init(
            initial: [], name: name, short: short, valueName: valueName, help: help,
            reader: ValueReader<Element>.standard, repeating: true
        ) { $0.value = $1 }
    }

    /// `assign` gets the values read from the texts given, only when at least one was given.
    private init<Element>(
        initial: Value, name: String, short: Character?, valueName: String?, help: String,
        reader: ValueReader<Element>, repeating: Bool = false, lastWins: Bool = false,
        assign: @escaping (Slot<Value>, [Element]) -> Void
    ) {
        let slot = Slot(initial)
        self.slot = slot
        DeclarationCollector.add(
            ArgumentDefinition(
                kind: .option, name: name, short: short, valueName: valueName ?? reader.valueName, help: help,
                repeating: repeating, lastWins: lastWins
            ) { texts, shownName throws(UsageError) in
                guard !texts.isEmpty else { return }
                var values: [Element] = []
                for text in texts { values.append(try reader.read(text, shownName)) }
                assign(slot, values)
            })
    }
}

/// `--name`: a flag, false unless given.
@propertyWrapper
package struct Flag {
    private let slot: Slot<Bool>

    /// True when the flag was given.
    package var wrappedValue: Bool { slot.value }

    /// A flag; `wrappedValue` must be false, since giving it can only turn it on.
    package init(wrappedValue: Bool, name: String, short: Character? = nil, help: String) {
        precondition(!wrappedValue, "a flag is off until it is given")
        let slot = Slot(false)
        self.slot = slot
        DeclarationCollector.add(
            ArgumentDefinition(kind: .flag, name: name, short: short, help: help) { texts, _ in
                if !texts.isEmpty { slot.value = true }
            })
    }
}

// MARK: - Arguments

/// `<name>`: a positional argument, required. An array takes one or more (`<id> ...`) and
/// must be the last argument declared; an optional (`String?`) may be left out, and only
/// optional arguments may follow it.
@propertyWrapper
package struct Argument<Value> {
    private let slot: Slot<Value?>

    /// The value given. Only a parsed command is run, so it is always there.
    package var wrappedValue: Value {
        guard let value = slot.value else { preconditionFailure("an argument was read before parsing") }
        return value
    }

    /// One required argument.
    package init(name: String, help: String) where Value: ExpressibleByArgument {
        self.init(name: name, help: help, reader: ValueReader<Value>.standard, repeating: false) { $0.value = $1.first }
    }

    /// One or more arguments, all that remain.
    package init<Element: ExpressibleByArgument>(name: String, help: String) where Value == [Element] {
        self.init(name: name, help: help, reader: ValueReader<Element>.standard, repeating: true) { $0.value = $1 }
    }

    /// One argument that may be left out: nil then.
    package init<Wrapped: ExpressibleByArgument>(name: String, help: String) where Value == Wrapped? {
        self.init(name: name, help: help, reader: ValueReader<Wrapped>.standard, repeating: false, initial: .some(nil)) {
            $0.value = .some($1.first)
        }
    }

    /// `initial` is the value until the parser stores one: nil (a required argument that
    /// was read before parsing) or, for an optional argument, "not given".
    private init<Element>(
        name: String, help: String, reader: ValueReader<Element>, repeating: Bool, initial: Value? = nil,
        assign: @escaping (Slot<Value?>, [Element]) -> Void
    ) {
        let slot = Slot<Value?>(initial)
        self.slot = slot
        var definition = ArgumentDefinition(kind: .positional, name: name, help: help, repeating: repeating) {
            texts, shownName throws(UsageError) in
            var values: [Element] = []
            for text in texts { values.append(try reader.read(text, shownName)) }
            assign(slot, values)
        }
        definition.optional = initial != nil
        DeclarationCollector.add(definition)
    }
}

// MARK: - Groups

/// Options declared once in their own `ParsableArguments` struct and shared by several
/// commands (`OutputOptions`); they take their place among the command's own, since the
/// group is made, and its declarations gathered, while the command is.
@propertyWrapper
package struct OptionGroup<Group: ParsableArguments> {
    /// The group, filled when the command is.
    package let wrappedValue: Group

    /// The group with its declared defaults.
    package init() { wrappedValue = Group() }

    /// A group made for this command, e.g. `OutputOptions(help: "Print the counts as JSON.")`.
    package init(wrappedValue: Group) { self.wrappedValue = wrappedValue }
}
