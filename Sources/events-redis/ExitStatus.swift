/// The exit statuses of `events-redis`, which scripts may rely on: they are listed in
/// `events-redis --help` and in the "Operating the bridge" article, and never change meaning.
enum ExitStatus: Int32 {
    /// The command did what it was asked, and found nothing wrong.
    case success = 0
    /// The command ran, and found something: `check` found a layout that does not match, or
    /// what was asked for is not there (a type, a dead letter's id).
    case findings = 1
    /// The arguments are wrong: nothing was sent to Redis.
    case usage = 2
    /// Redis could not be reached, refused a command or answered with something unexpected.
    case redis = 3
}

/// Why a command stopped early: what to tell the user, and the exit status.
struct CommandFailure: Error {
    let status: ExitStatus
    let message: String

    static func usage(_ message: String) -> CommandFailure { CommandFailure(status: .usage, message: message) }
    static func notFound(_ message: String) -> CommandFailure { CommandFailure(status: .findings, message: message) }
    static func redis(_ message: String) -> CommandFailure { CommandFailure(status: .redis, message: message) }
}
