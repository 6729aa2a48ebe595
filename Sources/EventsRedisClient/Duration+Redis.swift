extension Duration {
    /// The duration in seconds, as a floating-point number. Package-wide for the test support,
    /// which sleeps threads for durations.
    package var seconds: Double {
        let (wholeSeconds, attoseconds) = components
        return Double(wholeSeconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, rounded up, clamped to what `poll()` accepts.
    var pollMilliseconds: Int32 {
        let milliseconds = (seconds * 1000).rounded(.up)
        if milliseconds <= 0 { return 0 }
        if milliseconds >= Double(Int32.max) { return Int32.max }
        return Int32(milliseconds)
    }
}
