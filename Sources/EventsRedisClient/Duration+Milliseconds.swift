extension Duration {
    /// The whole milliseconds in this duration, rounded down: how Redis takes its timeouts
    /// (`BLOCK`, `WAIT`, idle times).
    package var wholeMilliseconds: Int {
        let parts = components
        return Int(parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000)
    }
}
