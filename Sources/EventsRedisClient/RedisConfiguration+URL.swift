extension RedisConfiguration {
    /// A configuration read from a URL of the form `redis://[[user]:password@]host[:port][/db]`,
    /// or `rediss://...` for TLS.
    ///
    /// ```swift
    /// let local = try RedisConfiguration(url: "redis://localhost")                // port 6379, db 0
    /// let acl = try RedisConfiguration(url: "redis://worker:s3cr%40t@10.0.0.5:6380/3")
    /// let ipv6 = try RedisConfiguration(url: "redis://[::1]:6379")
    /// var managed = try RedisConfiguration(url: "rediss://default:token@cache.example.com:6380")
    /// managed.transport = .tls                                                  // import EventsRedisTLS
    /// ```
    ///
    /// Rules: the user name and password may be percent-encoded (`%40` for `@`); an empty user
    /// name means the default user. `rediss://` sets ``tls`` to its defaults (the system's
    /// trusted certificates, the host's name); connecting then needs a TLS transport, and the
    /// plain one refuses rather than connect without TLS. Settings the URL does not carry keep
    /// their defaults. Anything else (another scheme, a query string, a bad port or database
    /// number, an empty host) throws ``RedisError/invalidConfiguration(_:)``.
    public init(url: String) throws(RedisError) {
        try self.init(parsing: url)
    }

    /// The URL of this configuration, credentials included, in the form ``init(url:)`` reads:
    /// to hand a configuration to another process. `rediss://` when ``tls`` is set. Timeouts,
    /// limits, the client name, the transport and the TLS settings other than TLS itself (trust,
    /// server name, client certificate) are not part of it.
    public var url: String {
        var text = tls == nil ? "redis://" : "rediss://"
        if username != nil || password != nil {
            text += Self.percentEncoded(username ?? "") + ":" + Self.percentEncoded(password ?? "") + "@"
        }
        text += host.contains(":") ? "[\(host)]" : host
        text += ":\(port)"
        if database != 0 { text += "/\(database)" }
        return text
    }

    private static func percentEncoded(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return output
    }

    private init(parsing url: String) throws(RedisError) {
        func invalid(_ reason: String) -> RedisError {
            .invalidConfiguration(
                "\(reason) in Redis URL; expected redis://[[user]:password@]host[:port][/db] (rediss:// for TLS)")
        }
        let schemeEnd = url.firstRange(of: "://")
        let scheme = schemeEnd.map { url[..<$0.lowerBound].lowercased() }
        guard let schemeEnd, scheme == "redis" || scheme == "rediss" else {
            throw invalid("missing or unsupported scheme (redis:// and rediss:// are supported)")
        }
        var rest = url[schemeEnd.upperBound...]
        guard !rest.contains("?"), !rest.contains("#") else {
            throw invalid("unsupported query or fragment")
        }

        self.init()
        if scheme == "rediss" { tls = TLS() }
        // The user information ends at the last "@", so an unencoded "@" in a password still works.
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard let colon = userInfo.firstIndex(of: ":") else {
                throw invalid("user information without ':' before the password")
            }
            guard let user = Self.percentDecoded(userInfo[..<colon]),
                let password = Self.percentDecoded(userInfo[userInfo.index(after: colon)...])
            else {
                throw invalid("bad percent-encoding in the user information")
            }
            self.username = user.isEmpty ? nil : user
            self.password = password
        }

        var hostAndPort = rest
        if let slash = rest.firstIndex(of: "/") {
            hostAndPort = rest[..<slash]
            let databaseText = rest[rest.index(after: slash)...]
            if !databaseText.isEmpty {
                guard databaseText.allSatisfy(\.isASCIIDigit), let database = Int(databaseText) else {
                    throw invalid("bad database number '\(databaseText)'")
                }
                self.database = database
            }
        }

        var portText: Substring?
        if hostAndPort.hasPrefix("[") {
            guard let close = hostAndPort.firstIndex(of: "]") else { throw invalid("unclosed '[' in the host") }
            host = String(hostAndPort[hostAndPort.index(after: hostAndPort.startIndex)..<close])
            let after = hostAndPort[hostAndPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("unexpected text after the host") }
                portText = after.dropFirst()
            }
        } else if let colon = hostAndPort.firstIndex(of: ":") {
            host = String(hostAndPort[..<colon])
            portText = hostAndPort[hostAndPort.index(after: colon)...]
        } else {
            host = String(hostAndPort)
        }
        guard !host.isEmpty else { throw invalid("empty host") }
        if let portText {
            guard portText.allSatisfy(\.isASCIIDigit), let port = Int(portText), (1...65535).contains(port) else {
                throw invalid("bad port '\(portText)'")
            }
            self.port = port
        }
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next()?.hexDigitValue, let low = iterator.next()?.hexDigitValue else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
