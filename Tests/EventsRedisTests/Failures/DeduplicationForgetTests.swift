import Testing

@testable import EventsRedis

@Suite("Deduplication window: forgetting an identity")
struct DeduplicationForgetTests {
    @Test("a forgotten identity is a first sighting again, once; the others stay remembered")
    func forgottenIsNewAgain() {
        let window = DeduplicationWindow(capacity: 8)
        #expect(window.recordFirstSighting(source: "s", id: "1"))
        #expect(window.recordFirstSighting(source: "s", id: "2"))
        window.forget(source: "s", id: "1")
        #expect(window.recordFirstSighting(source: "s", id: "1"))
        #expect(!window.recordFirstSighting(source: "s", id: "1"))
        #expect(!window.recordFirstSighting(source: "s", id: "2"))
        // Forgetting what is not there changes nothing.
        window.forget(source: "s", id: "9")
        #expect(!window.recordFirstSighting(source: "s", id: "2"))
    }

    @Test("forgotten entries age out like the others, with colliding fingerprints too, and the table stays sound")
    func forgottenEntriesAgeOut() {
        // Every identity has the same fingerprint: one probe cluster, the hardest case.
        let window = DeduplicationWindow(capacity: 4, fingerprint: { _, _ in 7 })
        for n in 0..<4 { #expect(window.recordFirstSighting(source: "s", id: "\(n)")) }
        window.forget(source: "s", id: "1")
        window.forget(source: "s", id: "2")
        // Pushing the window round twice makes every old entry, forgotten or not, the oldest.
        for n in 4..<12 { #expect(window.recordFirstSighting(source: "s", id: "\(n)")) }
        #expect(window.count == 4)
        for n in 8..<12 { #expect(!window.recordFirstSighting(source: "s", id: "\(n)")) }
        #expect(window.recordFirstSighting(source: "s", id: "1"))
    }
}
