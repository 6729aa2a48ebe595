package import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The executable `name` of this package, which `swift build --build-tests` puts beside the
/// test executable: the tests that run one as a process of its own find it there.
package func executableBesideTests(_ name: String) -> URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent(name)
}

/// Sends `signal` (SIGKILL, SIGINT, SIGTERM) to the process `pid`.
package func sendSignal(_ signal: Int32, to pid: Int32) {
    #if canImport(Glibc)
        _ = Glibc.kill(pid, signal)
    #else
        _ = Darwin.kill(pid, signal)
    #endif
}
