import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// A reader that goes away must end `tail` through a failed write, not kill it with SIGPIPE.
signal(SIGPIPE, SIG_IGN)
let status = await Commands.run(
    Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
exit(status.rawValue)
