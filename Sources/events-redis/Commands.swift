import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the command line, runs the command it names, and returns the exit status.
enum Commands {
    /// A command: the words that name it, the options it takes beyond the global ones, its help.
    struct Spec {
        let path: [String]
        let options: [OptionSpec]
        let help: String
        let usage: String
    }

    static let specs: [Spec] = [
        Spec(path: ["status"], options: [], help: Help.status, usage: "events-redis status [TYPE...]"),
        Spec(
            path: ["dead-letters", "list"], options: [.value("limit")], help: Help.deadLetters,
            usage: "events-redis dead-letters list TYPE [--limit N]"),
        Spec(
            path: ["dead-letters", "show"], options: [], help: Help.deadLetters,
            usage: "events-redis dead-letters show TYPE ID"),
        Spec(
            path: ["dead-letters", "replay"], options: [.flag("all"), .flag("dry-run")], help: Help.deadLetters,
            usage: "events-redis dead-letters replay TYPE (ID... | --all) [--dry-run]"),
        Spec(
            path: ["dead-letters", "purge"], options: [.flag("all"), .flag("dry-run")], help: Help.deadLetters,
            usage: "events-redis dead-letters purge TYPE (ID... | --all) [--dry-run]"),
        Spec(
            path: ["dead-letters"], options: [], help: Help.deadLetters,
            usage: "events-redis dead-letters (list | show | replay | purge) TYPE ..."),
        Spec(
            path: ["tail"], options: [.value("count"), .value("mode")], help: Help.tail,
            usage: "events-redis tail TYPE [--count N] [--mode stream|pubsub]"),
        Spec(
            path: ["check"], options: [.value("partitions"), .value("group")], help: Help.check,
            usage: "events-redis check [TYPE...] [--partitions N] [--group NAME]"),
        Spec(path: ["help"], options: [], help: Help.help, usage: "events-redis help [COMMAND]"),
    ]

    static func run(_ words: [String], environment: [String: String]) async -> ExitStatus {
        var spec: Spec?
        do {
            spec = try self.spec(for: words)
            return try await run(words, spec: spec, environment: environment)
        } catch {
            Output.error("events-redis: \(error.message)")
            if error.status == .usage {
                let usage = spec?.usage ?? "events-redis COMMAND [ARGUMENTS]"
                let help = spec.map { "events-redis \($0.path.joined(separator: " ")) --help" } ?? "events-redis --help"
                Output.error("usage: \(usage) [OPTIONS]; see '\(help)'")
            }
            return error.status
        }
    }

    /// The command the words name, found before their options are known: the first words
    /// that are not options or an option's value.
    private static func spec(for words: [String]) throws(CommandFailure) -> Spec? {
        let valued = Set((GlobalOptions.specs + specs.flatMap(\.options)).filter(\.takesValue).map { "--" + $0.name })
        var names: [String] = []
        var index = 0
        while index < words.count, names.count < 2 {
            let word = words[index]
            index += 1
            if word == "--" { break }
            if word.hasPrefix("-") && word != "-" {
                if valued.contains(word) { index += 1 }
                continue
            }
            names.append(word)
            if names.count == 1, names[0] != "dead-letters" { break }
        }
        guard let first = names.first else { return nil }
        if let found = specs.first(where: { $0.path == names }) { return found }
        if first == "dead-letters" {
            guard names.count == 2 else { return specs.first { $0.path == ["dead-letters"] } }
            throw .usage("unknown dead-letters command '\(names[1])'; give list, show, replay or purge")
        }
        throw .usage("unknown command '\(first)'")
    }

    private static func run(_ words: [String], spec: Spec?, environment: [String: String]) async throws(CommandFailure)
        -> ExitStatus
    {
        let parsed = try ParsedArguments.parse(words, options: GlobalOptions.specs + (spec?.options ?? []))
        guard let spec else {
            guard parsed.has("help") else { throw .usage("no command given") }
            Output.line(Help.top)
            return .success
        }
        var arguments = Array(parsed.positionals.dropFirst(spec.path.count))
        if parsed.has("help") {
            Output.line(spec.help)
            return .success
        }
        switch spec.path {
        case ["help"]:
            let named = specs.first { $0.path == arguments } ?? specs.first { $0.path == Array(arguments.prefix(1)) }
            guard arguments.isEmpty || named != nil else {
                throw .usage("no command '\(arguments.joined(separator: " "))'")
            }
            Output.line(named?.help ?? Help.top)
            return .success
        case ["dead-letters"]:
            throw .usage("dead-letters needs list, show, replay or purge")
        default: break
        }

        // Everything the arguments say is checked before the first command goes to Redis.
        let options = try GlobalOptions(parsed, environment: environment)
        let access = RedisAccess(options)
        defer { access.close() }
        switch spec.path {
        case ["status"]:
            return try await StatusCommand(access: access, types: arguments).run()
        case ["dead-letters", "list"]:
            let type = try single(arguments, "TYPE")
            let limit = try parsed.integer("limit", atLeast: 1) ?? 100
            return try await DeadLettersCommand(access: access, type: type).list(limit: limit)
        case ["dead-letters", "show"]:
            guard arguments.count == 2 else { throw .usage("dead-letters show needs TYPE and ID") }
            let reference = try DeadLettersCommand.Reference(arguments[1])
            return try await DeadLettersCommand(access: access, type: arguments[0]).show(reference)
        case ["dead-letters", "replay"], ["dead-letters", "purge"]:
            guard !arguments.isEmpty else { throw .usage("dead-letters \(spec.path[1]) needs TYPE") }
            let type = arguments.removeFirst()
            let all = parsed.has("all")
            if all, !arguments.isEmpty { throw .usage("give dead-letter IDs or --all, not both") }
            if !all, arguments.isEmpty { throw .usage("give the IDs of the dead letters to \(spec.path[1]), or --all") }
            var references: [DeadLettersCommand.Reference] = []
            for argument in arguments { references.append(try DeadLettersCommand.Reference(argument)) }
            let command = DeadLettersCommand(access: access, type: type)
            let dryRun = parsed.has("dry-run")
            return spec.path[1] == "replay"
                ? try await command.replay(all ? nil : references, dryRun: dryRun)
                : try await command.purge(all ? nil : references, dryRun: dryRun)
        case ["tail"]:
            let type = try single(arguments, "TYPE")
            let count = try parsed.integer("count", atLeast: 1)
            var mode: TailCommand.Mode?
            if let text = parsed.value("mode") {
                guard let chosen = TailCommand.Mode(rawValue: text) else {
                    throw .usage("--mode is stream or pubsub, not '\(text)'")
                }
                mode = chosen
            }
            let run = TailRun(limit: count)
            let signals = stopOnSignals(run)
            defer { signals.forEach { $0.cancel() } }
            return try await TailCommand(access: access, type: type, mode: mode, run: run).execute()
        case ["check"]:
            let partitions = try parsed.integer("partitions", atLeast: 1)
            if let partitions, partitions > 1024 { throw .usage("--partitions is at most 1024, as the bridge's") }
            return try await CheckCommand(
                access: access, types: arguments, partitions: partitions, group: parsed.value("group")
            ).run()
        default:
            throw .usage("unknown command '\(spec.path.joined(separator: " "))'")
        }
    }

    private static func single(_ arguments: [String], _ name: String) throws(CommandFailure) -> String {
        guard arguments.count == 1 else {
            throw .usage(arguments.isEmpty ? "\(name) is missing" : "one \(name) only, not \(arguments.count)")
        }
        return arguments[0]
    }

    /// Ends `run` on SIGINT and SIGTERM, in place of the default, which would kill the process
    /// before it closes its connections.
    private static func stopOnSignals(_ run: TailRun) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { run.stop() }
            source.resume()
            return source
        }
    }
}
