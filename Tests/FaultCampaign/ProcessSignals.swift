#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sends `signal` to the process `pid`: what the nemesis kills, pauses and resumes the
/// publisher and consumer processes with. (`kill` itself is shadowed there by their own
/// methods of that name.)
#if canImport(Glibc)
    func sendSignal(_ pid: Int32, _ signal: Int32) -> Int32 { Glibc.kill(pid, signal) }
#else
    func sendSignal(_ pid: Int32, _ signal: Int32) -> Int32 { Darwin.kill(pid, signal) }
#endif
