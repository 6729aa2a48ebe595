import FaultCampaign
import Testing

@Suite("Fault schedules")
struct ScheduleTests {
    @Test("a seed gives the same schedule every time, another seed another one")
    func seedFixesTheSchedule() {
        let one = Schedule(seed: 42, topology: .cluster, length: .seconds(30))
        let again = Schedule(seed: 42, topology: .cluster, length: .seconds(30))
        let other = Schedule(seed: 43, topology: .cluster, length: .seconds(30))
        #expect(one.description == again.description)
        #expect(one.description != other.description)
        #expect(one.steps.count > 5)
    }

    @Test("a schedule holds only faults its topology has", arguments: Topology.allCases)
    func faultsFitTheTopology(_ topology: Topology) {
        let kinds = Set(
            (0..<20).flatMap { Schedule(seed: $0, topology: topology, length: .seconds(30)).steps.map(\.kind) })
        #expect(kinds == Set(FaultKind.available(on: topology)))
        #expect(topology != .single || !kinds.contains(.failover))
        #expect(topology == .cluster || !kinds.contains(.migrateSlot))
    }
}
