// A named event's payload taken from a notification's `userInfo`, and its typed reads.
//
// The input is read as a list of entries (a key kind, a value kind, a few bytes); some names
// get a `PayloadKey` passed to the bridge. For the payload the bridge makes:
// - every `userInfo` entry is there, as a value or as an unbridged type name, never dropped:
//   under its name, or, for a key that prints like another key, the `String` key keeps the
//   name and each other key is reported under a name of its own;
// - a value is carried exactly when its key's type or a well-known exact type takes it, with
//   its value unchanged;
// - reading with a key of the right type gives the value; of another type, a type mismatch;
//   an unbridged value, "not bridged"; an absent one, "missing" (and nil from `value(for:)`);
// - `description` of the payload and the event never traps.

import Foundation

@testable import Events

final class Opaque: CustomStringConvertible {
    let tag: Int
    init(tag: Int) { self.tag = tag }
    var description: String { "Opaque(\(tag))" }
}

struct Carried: Sendable, Equatable {
    let text: String
}

struct Poked: Event, Equatable {
    let count: Int
}

struct OddKey: Hashable {
    let value: Int
}

/// What a value was made as, to know how the bridge must treat it.
enum Made {
    case wellKnown(AnyHashable)
    case keyed(Carried)
    case opaque(String)
    case event(Poked)
}

let namedTally = FuzzTally()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNamed(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(start, count)
    var userInfo: [AnyHashable: Any] = [:]
    var made: [String: Made] = [:]
    var keys: [PayloadKeys] = []
    var keyed: Set<String> = []
    var collidedNames: Set<String> = []
    while input.position < input.bytes.count, userInfo.count < 12 {
        let kinds = input.byte()
        let a = input.byte()
        let b = input.byte()
        let number = Int(a) << 8 | Int(b)
        let label = String(decoding: [a & 0x7F, b & 0x7F].filter { $0 >= 0x20 }, as: UTF8.self)
        let key: AnyHashable
        let name: String
        switch kinds & 0x03 {
        case 0:
            key = label
            name = label
        case 1:
            key = number % 8
            name = String(number % 8)
        case 2:
            key = OddKey(value: number % 4)
            name = String(describing: OddKey(value: number % 4))
        default:
            key = Character(Unicode.Scalar(a & 0x7F))
            name = String(Character(Unicode.Scalar(a & 0x7F)))
        }
        let value: Any
        let kind: Made
        switch kinds >> 2 & 0x07 {
        case 0:
            value = label
            kind = .wellKnown(label)
        case 1:
            value = number
            kind = .wellKnown(number)
        case 2:
            value = Double(number) / 7
            kind = .wellKnown(Double(number) / 7)
        case 3:
            value = [label, label]
            kind = .wellKnown([label, label])
        case 4:
            value = NSNumber(value: number)
            kind = .opaque("NSNumber")
        case 5:
            value = Opaque(tag: number)
            kind = .opaque("Opaque")
        case 6:
            value = Carried(text: label)
            kind = .keyed(Carried(text: label))
            if kinds & 0x80 != 0, !keyed.contains(name) {
                keyed.insert(name)
                keys.append(PayloadKey<Carried>(name))
            }
        default:
            value = Poked(count: number)
            kind = .event(Poked(count: number))
        }
        if userInfo[key] == nil, made[name] != nil { collidedNames.insert(name) }
        userInfo[key] = value
        made[name] = kind
    }
    if !collidedNames.isEmpty {
        namedTally.count("names-collide")
    }
    let notification = Notification(name: Notification.Name("fuzz"), object: nil, userInfo: userInfo)
    let keysByName = Dictionary(grouping: keys, by: \.name)
    let (_, data, payload) = NotificationBridge.carry(notification, keys: keysByName)
    fuzzCheck(data == nil, "data from a notification without an object")
    let event = NamedEvent(name: "fuzz", sender: nil, data: nil, payload: payload)
    _ = event.description
    _ = payload.description

    // Every entry is there: none is dropped or overwritten, even when keys print alike.
    fuzzCheck(
        payload.entries.count == userInfo.count,
        "\(userInfo.count) userInfo entries, \(payload.entries.count) in the payload")
    for (key, value) in userInfo {
        let name = key.base as? String ?? String(describing: key.base)
        if collidedNames.contains(name) {
            // A `String` key keeps its name; the others are reported under names of their own.
            if key.base is String, payload.entries[name] == nil { fuzzFailure("the string key \(name) lost its name") }
            continue
        }
        guard let entry = payload.entries[name] else { fuzzFailure("the entry \(name) was dropped") }
        let kind = made[name]!
        switch (kind, entry) {
        case (.wellKnown(let expected), .value(let carried)):
            fuzzCheck((carried as? AnyHashable) == expected, "\(name) changed on the way: \(carried)")
            fuzzCheck(Swift.type(of: carried) == Swift.type(of: value), "\(name) changed type")
        case (.keyed(let expected), .value(let carried)):
            fuzzCheck(keyed.contains(name), "\(name) carried without its key")
            fuzzCheck((carried as? Carried) == expected, "\(name) changed on the way")
            fuzzCheck((try? event[PayloadKey<Carried>(name)]) == expected, "\(name) reads back otherwise")
            do {
                _ = try event[PayloadKey<Int>(name)]
                fuzzFailure("\(name) read as an Int")
            } catch {
                fuzzCheck(error.problem == .typeMismatch, "\(name) misread: \(error)")
            }
        case (.keyed, .unbridged(let typeName, _)):
            fuzzCheck(!keyed.contains(name), "\(name) not carried though its key was given")
            fuzzCheck(typeName == "Carried", "\(name) recorded as \(typeName)")
            do {
                _ = try event[PayloadKey<Carried>(name)]
                fuzzFailure("an unbridged \(name) was read")
            } catch {
                fuzzCheck(error.problem == .notBridged, "\(name) misread: \(error)")
            }
        case (.opaque(let expected), .unbridged(let typeName, _)):
            fuzzCheck(typeName.hasSuffix(expected), "\(name) recorded as \(typeName), not \(expected)")
        case (.event(let expected), .value(let carried)):
            fuzzCheck((carried as? Poked) == expected, "\(name) changed on the way")
        default:
            fuzzFailure("\(name): made as \(kind), carried as \(entry)")
        }
    }
    // An absent key.
    let absent = PayloadKey<String>("\u{1}absent")
    fuzzCheck((try? event.value(for: absent)) == .some(nil), "an absent key has a value")
    do {
        _ = try event[absent]
        fuzzFailure("an absent key was read")
    } catch {
        fuzzCheck(error.problem == .missing, "an absent key misread: \(error)")
    }
    return 0
}
