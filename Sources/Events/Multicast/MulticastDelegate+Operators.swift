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

extension MainActorMulticastDelegate {
    /// Adds `delegate`; the same as ``add(_:)``.
    ///
    /// ```swift
    /// listeners += viewController
    /// ```
    ///
    /// The left-hand side is a reference, so this works on a `let` constant or property.
    public static func += (delegates: MainActorMulticastDelegate, delegate: Delegate) {
        delegates.add(delegate)
    }

    /// Removes `delegate`; the same as ``remove(_:)``.
    ///
    /// ```swift
    /// listeners -= viewController
    /// ```
    public static func -= (delegates: MainActorMulticastDelegate, delegate: Delegate) {
        delegates.remove(delegate)
    }
}
