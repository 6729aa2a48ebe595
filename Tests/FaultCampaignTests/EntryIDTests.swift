import FaultCampaign
import Testing

// Whether the consumers have caught up is decided by comparing a group's last delivered id with
// the stream's last generated one, so the order of ids must be Redis's.
@Suite("Stream entry ids")
struct EntryIDTests {
    @Test("ids order by milliseconds, then by sequence, not as text")
    func order() throws {
        let ids = try ["1796662404586-0", "999-5", "1796662404586-12", "1796662404586-2", "1000-0"].map {
            try #require(EntryID($0))
        }
        #expect(
            ids.sorted().map(\.description) == [
                "999-5", "1000-0", "1796662404586-0", "1796662404586-2", "1796662404586-12",
            ])
        #expect(try #require(EntryID("5-3")) == #require(EntryID("5-3")))
    }

    @Test("text that is not an id is refused", arguments: ["", "12", "12-", "-3", "a-1", "1-2-3", "1 -2"])
    func refused(text: String) {
        #expect(EntryID(text) == nil)
    }
}
