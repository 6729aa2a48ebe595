import CEventsRedisOpenSSL

/// The errors OpenSSL queued on this thread, oldest first, removed from the queue.
struct OpenSSLErrors {
    /// The reason codes (`ERR_GET_REASON`), for telling causes apart.
    private(set) var reasons: [Int32] = []
    /// The reasons as OpenSSL words them, such as "certificate verify failed".
    private(set) var texts: [String] = []

    /// Takes every error queued on this thread.
    static func take() -> OpenSSLErrors {
        var errors = OpenSSLErrors()
        while true {
            let code = ERR_get_error()
            guard code != 0 else { break }
            errors.reasons.append(ERR_GET_REASON(code))
            if let reason = ERR_reason_error_string(code) {
                errors.texts.append(String(cString: reason))
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                ERR_error_string_n(code, &buffer, buffer.count)
                errors.texts.append(
                    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return errors
    }

    var isEmpty: Bool { reasons.isEmpty }

    /// The texts joined, or `fallback` when there are none.
    func description(or fallback: String) -> String {
        texts.isEmpty ? fallback : texts.joined(separator: "; ")
    }
}
