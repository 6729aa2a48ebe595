import Foundation

/// RFC 3339 timestamps for the CloudEvents `time` attribute.
///
/// Written by hand because `ISO8601DateFormatter` is neither `Sendable` nor cheap, and the
/// bridge formats one timestamp per published event. Output is always UTC with milliseconds
/// (`2026-11-30T08:15:02.125Z`); input accepts any RFC 3339 date-time: optional fraction of any
/// length, `Z` or a numeric offset, and lowercase `t`/`z`.
enum RFC3339 {
    static func string(from date: Date) -> String {
        var bytes: [UInt8] = []
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the timestamp's 24 bytes (`YYYY-MM-DDTHH:MM:SS.mmmZ`), written in place in one
    /// append: appending them one by one was costly on every event, each
    /// append checking uniqueness and capacity, and the String concatenation before that more
    /// than the rest of a CloudEvent's encoding.
    ///
    /// A time RFC 3339 cannot write (before year 0000 or after 9999, infinite, or NaN) is
    /// clamped to the nearest end of that range (NaN to 1970), never a crash; so every field
    /// fits its width.
    static func append(_ date: Date, to output: inout [UInt8]) {
        let exact = date.timeIntervalSince1970 * 1000
        let writable = exact.isNaN ? 0 : min(max(exact, Self.earliest), Self.latest)
        let totalMilliseconds = Int64(writable.rounded(.down))
        let seconds = floorDivide(totalMilliseconds, 1000)
        let milliseconds = Int(totalMilliseconds - seconds * 1000)
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = civilDate(fromDays: days)
        let start = output.count
        output.append(literal: "0000-00-00T00:00:00.000Z")
        output.withUnsafeMutableBufferPointer { buffer in
            func put(_ value: Int, width: Int, endingAt end: Int) {
                var value = value
                for position in stride(from: start + end - 1, through: start + end - width, by: -1) {
                    buffer[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
                    value /= 10
                }
            }
            put(year, width: 4, endingAt: 4)
            put(month, width: 2, endingAt: 7)
            put(day, width: 2, endingAt: 10)
            put(secondOfDay / 3600, width: 2, endingAt: 13)
            put(secondOfDay / 60 % 60, width: 2, endingAt: 16)
            put(secondOfDay % 60, width: 2, endingAt: 19)
            put(milliseconds, width: 3, endingAt: 23)
        }
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    private static let earliest: Double = -62_167_219_200_000
    private static let latest: Double = 253_402_300_799_999

    /// The date a timestamp names, or `nil` when it is not an RFC 3339 date-time.
    static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(fromUTF8: $0) }
    }

    /// The date a timestamp's UTF-8 bytes name, or `nil` when it is not an RFC 3339 date-time.
    static func date(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        date(fromUTF8: CheckedBytes(bytes))
    }

    /// The date a timestamp's UTF-8 bytes name, or `nil` when it is not an RFC 3339 date-time.
    /// The bytes come from the network: every read is checked against their bounds.
    static func date(fromUTF8 bytes: CheckedBytes) -> Date? {
        if let date = canonicalDate(bytes) { return date }
        var index = 0
        guard let year = number(bytes, &index, digits: 4), skip(bytes, &index, "-"),
            let month = number(bytes, &index, digits: 2), skip(bytes, &index, "-"),
            let day = number(bytes, &index, digits: 2), skip(bytes, &index, "Tt "),
            let hour = number(bytes, &index, digits: 2), skip(bytes, &index, ":"),
            let minute = number(bytes, &index, digits: 2), skip(bytes, &index, ":"),
            let second = number(bytes, &index, digits: 2)
        else { return nil }
        guard (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day), hour < 24,
            minute < 60, second <= 60
        else { return nil }

        var fraction = 0.0
        if skip(bytes, &index, ".") {
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }

        var offsetSeconds = 0
        if skip(bytes, &index, "Zz") {
            offsetSeconds = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(bytes, &index, digits: 2), skip(bytes, &index, ":"),
                let offsetMinutes = number(bytes, &index, digits: 2), offsetHours < 24, offsetMinutes < 60
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// The decimal number of exactly `digits` digits at `index`, moving `index` past it.
    private static func number(_ bytes: CheckedBytes, _ index: inout Int, digits: Int) -> Int? {
        guard digits <= bytes.count - index else { return nil }
        var value = 0
        for position in index..<index + digits {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        index += digits
        return value
    }

    /// Moves `index` past the byte there when it is one of `allowed`.
    private static func skip(_ bytes: CheckedBytes, _ index: inout Int, _ allowed: StaticString) -> Bool {
        guard index < bytes.count else { return false }
        let byte = bytes[index]
        guard allowed.withUTF8Buffer({ $0.contains(byte) }) else { return false }
        index += 1
        return true
    }

    /// The date of a timestamp laid out as bridges write them (`YYYY-MM-DDTHH:MM:SS.mmmZ`),
    /// read with fixed offsets, cheaper than the general parser's field-by-field scanning on
    /// every received event. Gives exactly the general parser's date (the same
    /// checks, the same arithmetic in the same order), or nil for any other layout, which the
    /// general parser then reads.
    private static func canonicalDate(_ bytes: CheckedBytes) -> Date? {
        guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z")
        else { return nil }
        var valid = true
        func number(_ start: Int, _ count: Int) -> Int {
            var value = 0
            for index in start..<start + count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                valid = valid && digit < 10
                value = value * 10 + Int(digit)
            }
            return value
        }
        let (year, month, day) = (number(0, 4), number(5, 2), number(8, 2))
        let (hour, minute, second) = (number(11, 2), number(14, 2), number(17, 2))
        _ = number(20, 3)
        guard valid, (1...12).contains(month), (1...daysInMonth(month, year: year)).contains(day), hour < 24,
            minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        var scale = 0.1
        for index in 20..<23 {
            fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian, days since 1970-01-01)

    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }
}
