/// Reads the publisher's life logs (see ``PublisherMain``) into the history.
enum PublisherLog {
    /// How many workload steps a life attempted: the next life goes on after them.
    static func attemptedSteps(in text: String) -> Int {
        text.split(separator: "\n").count { $0.hasPrefix("order ") || $0.hasPrefix("tick ") }
    }

    /// Adds one life's records to the history, after those of the lives before it; returns how
    /// many errors it reported.
    static func read(_ text: String, life: String, fromStep: Int, into history: inout History) -> Int {
        var record = History.PublisherLife(life: life, fromStep: fromStep)
        var errors = 0
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "ready":
                let value = words.dropFirst().first { $0.hasPrefix("republished=") }?.split(separator: "=").last
                record.republished = value.flatMap { Int($0) } ?? 0
            case "order" where words.count == 3:
                guard let seq = Int(words[2]) else { continue }
                let order = CampaignOrder(key: words[1], seq: seq)
                history.dispatched.append(order)
                history.attemptedBy[order] = life
                record.attempted += 1
            case "sent" where words.count == 3:
                guard let seq = Int(words[2]) else { continue }
                history.confirmed.insert(CampaignOrder(key: words[1], seq: seq))
                record.sent += 1
            case "tick" where words.count == 2:
                guard let seq = Int(words[1]) else { continue }
                history.ticksDispatched = max(history.ticksDispatched, seq)
                record.attempted += 1
            case "error":
                errors += 1
                if words.count > 1, words[1] == "pubSubEventLost" { history.pubSubLossesReported += 1 }
            case "done":
                record.finishedWindow = true
            default:
                continue
            }
        }
        history.publisherLives.append(record)
        return errors
    }
}
