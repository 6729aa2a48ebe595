/// An option a command accepts: `--name VALUE` (or `--name=VALUE`) when it takes a value, else a
/// flag.
struct OptionSpec: Hashable {
    let name: String
    let takesValue: Bool

    static func value(_ name: String) -> OptionSpec { OptionSpec(name: name, takesValue: true) }
    static func flag(_ name: String) -> OptionSpec { OptionSpec(name: name, takesValue: false) }
}

/// The words of a command line sorted into positional arguments, option values and flags.
///
/// Options may come anywhere, before or after the command's words; `--` ends them, so that a
/// type or id that starts with `-` can still be given. A repeated option keeps its last value.
struct ParsedArguments {
    var positionals: [String] = []
    var values: [String: String] = [:]
    var flags: Set<String> = []

    func value(_ name: String) -> String? { values[name] }
    func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// The value of `--name` as a whole number of at least `minimum`, nil when it is not given.
    func integer(_ name: String, atLeast minimum: Int) throws(CommandFailure) -> Int? {
        guard let text = values[name] else { return nil }
        guard let number = Int(text), number >= minimum else {
            throw .usage("--\(name) needs a whole number of at least \(minimum), not '\(text)'")
        }
        return number
    }

    /// Sorts `words` by `options`; `-h` is `--help`. Throws a usage failure for an option that
    /// is not in `options` or lacks its value.
    static func parse(_ words: [String], options: [OptionSpec]) throws(CommandFailure) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || !word.hasPrefix("-") || word == "-" {
                parsed.positionals.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            if word == "-h" {
                parsed.flags.insert("help")
                continue
            }
            guard word.hasPrefix("--") else { throw .usage("unknown option '\(word)'") }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let spec = options.first(where: { $0.name == name }) else {
                throw .usage("unknown option '--\(name)'")
            }
            if spec.takesValue {
                if let inlineValue {
                    parsed.values[name] = inlineValue
                } else {
                    guard index < words.count else { throw .usage("--\(name) needs a value") }
                    parsed.values[name] = words[index]
                    index += 1
                }
            } else {
                guard inlineValue == nil else { throw .usage("--\(name) takes no value") }
                parsed.flags.insert(name)
            }
        }
        return parsed
    }
}
