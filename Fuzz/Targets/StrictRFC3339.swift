// An independent, strict reading of RFC 3339 (section 5.6) for the fuzzer to compare the
// bridge's parser with. Written from the grammar, not from the bridge's code: fields are
// matched against the grammar first and converted after, days are counted with a leap-year
// count rather than an era formula, and the fraction is converted by `Double(String)`.
//
// Where the RFC leaves a choice, this takes the bridge's documented one: `t`, `z` and a space
// are accepted for `T` and `Z` (section 5.6, NOTE), a second of 60 is accepted on any day and
// read as the first second of the next minute (`Date` has no leap seconds), and `-00:00` is
// UTC.

import Foundation

@testable import Events
@testable import EventsRedis

enum StrictRFC3339 {
    /// Seconds since 1970 named by `text`, or nil when it is not an RFC 3339 date-time.
    static func seconds(_ text: [UInt8]) -> Double? {
        // date-time = full-date "T" full-time; full-date = YYYY-MM-DD; partial-time = hh:mm:ss
        let shape = Array("dddd-dd-ddTdd:dd:dd".utf8)
        guard text.count >= shape.count + 1 else { return nil }
        for (index, expected) in shape.enumerated() {
            let byte = text[index]
            switch expected {
            case UInt8(ascii: "d"): guard isDigit(byte) else { return nil }
            case UInt8(ascii: "T"): guard byte == 0x54 || byte == 0x74 || byte == 0x20 else { return nil }
            default: guard byte == expected else { return nil }
            }
        }
        func field(_ from: Int, _ count: Int) -> Int {
            text[from..<from + count].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        let year = field(0, 4)
        let month = field(5, 2)
        let day = field(8, 2)
        let hour = field(11, 2)
        let minute = field(14, 2)
        let second = field(17, 2)
        var index = shape.count
        var fractionDigits: [UInt8] = []
        if text[index] == UInt8(ascii: ".") {
            index += 1
            while index < text.count, isDigit(text[index]) {
                fractionDigits.append(text[index])
                index += 1
            }
            guard !fractionDigits.isEmpty else { return nil }
        }
        guard index < text.count else { return nil }
        var offset = 0
        switch text[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = text[index] == UInt8(ascii: "-") ? -1 : 1
            guard text.count - index >= 6, isDigit(text[index + 1]), isDigit(text[index + 2]),
                text[index + 3] == UInt8(ascii: ":"), isDigit(text[index + 4]), isDigit(text[index + 5])
            else { return nil }
            let offsetHour = field(index + 1, 2)
            let offsetMinute = field(index + 4, 2)
            guard offsetHour <= 23, offsetMinute <= 59 else { return nil }
            offset = sign * (offsetHour * 60 + offsetMinute) * 60
            index += 6
        default:
            return nil
        }
        guard index == text.count else { return nil }
        guard (1...12).contains(month), day >= 1, day <= monthLength(month, year), hour <= 23, minute <= 59,
            second <= 60
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        let fraction = fractionDigits.isEmpty ? 0 : Double("0." + String(decoding: fractionDigits, as: UTF8.self))!
        return Double(whole) + fraction
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func monthLength(_ month: Int, _ year: Int) -> Int {
        let lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return month == 2 && isLeap(year) ? 29 : lengths[month - 1]
    }

    /// Leap years among 1...year-1 (for year >= 1).
    static func leapYearsBefore(_ year: Int) -> Int {
        let previous = year - 1
        return previous / 4 - previous / 100 + previous / 400
    }

    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        // Shifted by 400 years, which repeat the calendar exactly, so that year 0 counts too.
        let leapDays = leapYearsBefore(year + 400) - leapYearsBefore(1970 + 400)
        var days = 365 * (year - 1970) + leapDays
        for earlier in stride(from: 1, to: month, by: 1) { days += monthLength(earlier, year) }
        return days + day - 1
    }
}
