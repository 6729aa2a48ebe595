import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Appends lines to a file with one `write` each, straight to the descriptor: what a process
/// the tests kill with SIGKILL writes its records with, so that the kill loses no line written
/// before it.
package struct LineFile: Sendable {
    let descriptor: Int32

    package init?(path: String) {
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        guard descriptor >= 0 else { return nil }
    }

    package func write(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
    }
}

#if canImport(Glibc)
    private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        Glibc.write(descriptor, bytes, count)
    }
#else
    private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
        Darwin.write(descriptor, bytes, count)
    }
#endif

/// Returns once standard input says "stop" or closes (the test that started this process went
/// away); it reads on a thread of its own, so that no thread of the concurrency pool blocks.
package func waitForStopOnStandardInput() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread.detachNewThread {
            while let line = readLine(), line != "stop" {}
            continuation.resume()
        }
    }
}
