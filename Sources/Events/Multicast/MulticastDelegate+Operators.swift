extension MulticastDelegate {
    /// Adds `delegate`; the same as ``add(_:)``.
    ///
    /// ```swift
    /// delegates += logger
    /// ```
    ///
    /// The left-hand side is a reference, so this works on a `let` constant or property.
    public static func += (delegates: MulticastDelegate, delegate: Delegate) {
        delegates.add(delegate)
    }

    /// Removes `delegate`; the same as ``remove(_:)``.
    ///
    /// ```swift
    /// delegates -= logger
    /// ```
    public static func -= (delegates: MulticastDelegate, delegate: Delegate) {
        delegates.remove(delegate)
    }
}
