extension CloudEvent {
    /// Where the attributes of a CloudEvent lie in its JSON text, found in one pass.
    ///
    /// Member names are matched against the known attribute names by bytes, and values are
    /// recorded as tokens: only the attributes the event keeps ever become `String`s, and
    /// extension attributes cost no allocation unless the message has them (their names are
    /// remembered to reject a repeated one).
    struct Envelope {
        enum Attribute {
            case absent
            case string(JSONScanner.StringToken)
            /// Any other JSON value, by its bytes.
            case other(Range<Int>, isNull: Bool)

            var isAbsent: Bool {
                if case .absent = self { return true }
                return false
            }

            /// The attribute's text; nil when absent or null (a null attribute counts as absent).
            func string(in scanner: JSONScanner) -> String? {
                guard case .string(let token) = self else { return nil }
                return scanner.string(token)
            }
        }

        var specversion = Attribute.absent
        var id = Attribute.absent
        var source = Attribute.absent
        var type = Attribute.absent
        var subject = Attribute.absent
        var time = Attribute.absent
        var dataContentType = Attribute.absent
        var dataSchema = Attribute.absent
        var dataBase64 = Attribute.absent
        var data = Attribute.absent
        /// The distributed tracing extension's attributes. Not required to be strings: another
        /// SDK's odd value must not cost the event, so anything else reads as absent.
        var traceparent = Attribute.absent
        var tracestate = Attribute.absent
        /// The name of the first attribute, in message order, that must be a string but holds
        /// something else. A token, not a `String`: with no reference in it, an envelope is
        /// copied as plain bytes rather than through value witnesses.
        var firstNonString: JSONScanner.StringToken?
        /// How deep `data` is nested (1 for a scalar or an empty container), when it is not a
        /// string. The scan validated it as strictly as a whole document is validated.
        var dataDepth = 0

        /// Scans the whole message, which must be exactly one JSON object with unique member
        /// names, leaving `scanner` at its end.
        init(scanning scanner: inout JSONScanner) throws(JSONScanner.Failure) {
            scanner.skipWhitespace()
            try scanner.expect(UInt8(ascii: "{"))
            var extensionNames: [JSONScanner.StringToken] = []
            var manyExtensionNames: Set<String>?
            var first = true
            while let name = try scanner.nextMemberName(first: first) {
                first = false
                let known = Self.knownAttribute(name, in: scanner)
                if let known {
                    guard self[known].isAbsent else { throw Self.repeated(name, in: scanner) }
                } else {
                    try Self.recordExtension(name, in: &extensionNames, &manyExtensionNames, scanner: scanner)
                }
                let value = try Self.value(&scanner)
                if known == .data, case .other = value { dataDepth = scanner.deepest }
                guard let known else { continue }
                self[known] = value
                if known.mustBeString, case .other(_, let isNull) = value, !isNull, firstNonString == nil {
                    firstNonString = name
                }
            }
            try scanner.expectEnd()
        }

        /// Reads a message laid out exactly as bridges write it (see ``OutboundEnvelope`` and
        /// `CloudEvent.jsonBytes()`): no whitespace, the attributes in that order. Most messages
        /// a bridge receives come from other bridges, and matching their member names as one run
        /// of literal bytes saves most of the work of reading and looking up each name. A
        /// message that looks canonical up to a late flaw is scanned
        /// twice, never more.
        ///
        /// Values are read and validated as the general scan reads them, so an envelope found
        /// here is the one it would find. Nil for any other layout, and for anything invalid: the
        /// general scan then reads the message from the start, and says what is wrong.
        init?(canonical scanner: inout JSONScanner) {
            func string(_ scanner: inout JSONScanner) -> Attribute? {
                guard scanner.peek() == UInt8(ascii: "\""), let token = try? scanner.readStringToken() else {
                    return nil
                }
                return .string(token)
            }
            guard scanner.consume(#"{"specversion":"#), let specversion = string(&scanner),
                scanner.consume(#","id":"#), let id = string(&scanner),
                scanner.consume(#","source":"#), let source = string(&scanner),
                scanner.consume(#","type":"#), let type = string(&scanner)
            else { return nil }
            (self.specversion, self.id, self.source, self.type) = (specversion, id, source, type)
            if scanner.consume(#","subject":"#) {
                guard let subject = string(&scanner) else { return nil }
                self.subject = subject
            }
            if scanner.consume(#","time":"#) {
                guard let time = string(&scanner) else { return nil }
                self.time = time
            }
            if scanner.consume(#","datacontenttype":"#) {
                guard let dataContentType = string(&scanner) else { return nil }
                self.dataContentType = dataContentType
            }
            if scanner.consume(#","traceparent":"#) {
                guard let traceparent = string(&scanner) else { return nil }
                self.traceparent = traceparent
            }
            if scanner.consume(#","tracestate":"#) {
                guard let tracestate = string(&scanner) else { return nil }
                self.tracestate = tracestate
            }
            if scanner.consume(#","data":"#) {
                guard let data = try? Self.value(&scanner) else { return nil }
                self.data = data
                if case .other = data { dataDepth = scanner.deepest }
            }
            guard scanner.consume("}"), (try? scanner.expectEnd()) != nil else { return nil }
        }

        /// Reads the value at the scanner's position, validating it: a string as its token, any
        /// other value by its bytes, after which `scanner.deepest` is how deep it is nested.
        private static func value(_ scanner: inout JSONScanner) throws(JSONScanner.Failure) -> Attribute {
            if scanner.peek() == UInt8(ascii: "\"") { return .string(try scanner.readStringToken()) }
            let valueStart = scanner.index
            scanner.deepest = 0
            try scanner.skipValue(depth: 1)
            let range = valueStart..<scanner.index
            return .other(range, isNull: scanner.bytes.buffer(range).elementsEqual("null".utf8))
        }

        enum Known {
            case specversion, id, source, type, subject, time, dataContentType, dataSchema, dataBase64, data
            case traceparent, tracestate

            /// Whether a value of another type than string (or null) makes the message invalid.
            var mustBeString: Bool {
                switch self {
                case .data, .traceparent, .tracestate: false
                default: true
                }
            }
        }

        subscript(known: Known) -> Attribute {
            get {
                switch known {
                case .specversion: specversion
                case .id: id
                case .source: source
                case .type: type
                case .subject: subject
                case .time: time
                case .dataContentType: dataContentType
                case .dataSchema: dataSchema
                case .dataBase64: dataBase64
                case .data: data
                case .traceparent: traceparent
                case .tracestate: tracestate
                }
            }
            set {
                switch known {
                case .specversion: specversion = newValue
                case .id: id = newValue
                case .source: source = newValue
                case .type: type = newValue
                case .subject: subject = newValue
                case .time: time = newValue
                case .dataContentType: dataContentType = newValue
                case .dataSchema: dataSchema = newValue
                case .dataBase64: dataBase64 = newValue
                case .data: data = newValue
                case .traceparent: traceparent = newValue
                case .tracestate: tracestate = newValue
                }
            }
        }

        private static func knownAttribute(_ name: JSONScanner.StringToken, in scanner: JSONScanner) -> Known? {
            guard name.isASCII else { return nil }  // every known name is ASCII
            guard !name.hasEscapes else {
                // Rare: an escaped name, such as "\u0069d". Unescape it and compare the text.
                var text = scanner.string(name)
                return text.withUTF8 { bytes in
                    knownAttribute(
                        JSONScanner(bytes),
                        JSONScanner.StringToken(
                            content: 0..<bytes.count, hasEscapes: false, isASCII: true))
                }
            }
            return knownAttribute(scanner, name)
        }

        private static func knownAttribute(_ scanner: JSONScanner, _ name: JSONScanner.StringToken) -> Known? {
            switch name.content.count {
            case 2: return scanner.token(name, equals: "id") ? .id : nil
            case 4:
                if scanner.token(name, equals: "type") { return .type }
                if scanner.token(name, equals: "time") { return .time }
                return scanner.token(name, equals: "data") ? .data : nil
            case 6: return scanner.token(name, equals: "source") ? .source : nil
            case 7: return scanner.token(name, equals: "subject") ? .subject : nil
            case 10:
                if scanner.token(name, equals: "dataschema") { return .dataSchema }
                return scanner.token(name, equals: "tracestate") ? .tracestate : nil
            case 11:
                if scanner.token(name, equals: "specversion") { return .specversion }
                if scanner.token(name, equals: "traceparent") { return .traceparent }
                return scanner.token(name, equals: "data_base64") ? .dataBase64 : nil
            case 15: return scanner.token(name, equals: "datacontenttype") ? .dataContentType : nil
            default: return nil
            }
        }

        /// Remembers an extension attribute's name, failing if it appeared before. The first few
        /// names are compared one by one; past 16 they go to a set (`many`), so that a message
        /// with thousands of extension attributes is not quadratic to scan.
        private static func recordExtension(
            _ name: JSONScanner.StringToken, in names: inout [JSONScanner.StringToken], _ many: inout Set<String>?,
            scanner: JSONScanner
        ) throws(JSONScanner.Failure) {
            if many == nil {
                for earlier in names where sameName(earlier, name, in: scanner) {
                    throw repeated(name, in: scanner)
                }
                if names.count < 16 {
                    names.append(name)
                    return
                }
                many = Set(names.map { scanner.string($0) })
            }
            // Names compare as Swift strings, here as in `sameName`.
            guard many!.insert(scanner.string(name)).inserted else { throw repeated(name, in: scanner) }
        }

        /// The failure for a member name seen before in the same object.
        private static func repeated(_ name: JSONScanner.StringToken, in scanner: JSONScanner) -> JSONScanner.Failure {
            JSONScanner.Failure(
                message: "member \"\(scanner.string(name))\" appears twice", offset: name.content.upperBound + 1)
        }

        /// Names compare as Swift strings do; plain ASCII names are compared by bytes, which
        /// gives the same answer.
        private static func sameName(
            _ a: JSONScanner.StringToken, _ b: JSONScanner.StringToken, in scanner: JSONScanner
        ) -> Bool {
            if a.isASCII && b.isASCII && !a.hasEscapes && !b.hasEscapes {
                return scanner.bytes.bytes(a.content, equal: scanner.bytes.buffer(b.content))
            }
            return scanner.string(a) == scanner.string(b)
        }
    }
}
