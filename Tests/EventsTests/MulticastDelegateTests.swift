import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Events

// MARK: - Test doubles

/// A value behind the package's pthread lock, so that the suite stays clean under the thread
/// sanitizer.
private final class Locked<Value>: @unchecked Sendable {
    // Safe to share: `value` is only read or written inside `lock.withLock`, and the lock lives
    // as long as the box.
    private let lock = Lock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withValue<T>(_ body: (inout Value) -> T) -> T {
        lock.withLock { body(&value) }
    }

    var current: Value { withValue { $0 } }
}

/// An ordered record of what the delegates did.
private typealias Journal = Locked<[String]>

extension Locked where Value == [String] {
    func record(_ line: String) { withValue { $0.append(line) } }
}

private protocol Listener: AnyObject, Sendable {
    func didChange(_ value: Int)
    func answer(to question: Int) -> Int?
}

/// Writes every call into a journal, answers with a fixed value, and may react to `didChange`
/// by running a closure (used for reentrancy).
private final class RecordingListener: Listener {
    let name: String
    let journal: Journal
    let fixedAnswer: Int?
    let reaction: (@Sendable (RecordingListener) -> Void)?

    init(
        _ name: String, _ journal: Journal, answer: Int? = nil, reaction: (@Sendable (RecordingListener) -> Void)? = nil
    ) {
        self.name = name
        self.journal = journal
        self.fixedAnswer = answer
        self.reaction = reaction
    }

    func didChange(_ value: Int) {
        journal.record("\(name) \(value)")
        reaction?(self)
    }

    func answer(to question: Int) -> Int? {
        journal.record("\(name)?")
        return fixedAnswer
    }

    deinit { journal.record("deinit \(name)") }
}

private struct Stop: Error {}

// MARK: - MulticastDelegate

@Suite("MulticastDelegate")
struct MulticastDelegateTests {
    private let journal = Journal([])
    private let delegates = MulticastDelegate<any Listener>()
    private let keepAlive = Locked<[AnyObject]>([])

    /// A recorder that lives until the test ends. An optimized build may release a local as
    /// soon as it was last used, which would make a delegate vanish before the code under test
    /// runs; tests of lifetime create their delegates directly instead.
    private func recorder(
        _ name: String,
        answer: Int? = nil,
        reaction: (@Sendable (RecordingListener) -> Void)? = nil
    ) -> RecordingListener {
        let recorder = RecordingListener(name, journal, answer: answer, reaction: reaction)
        keepAlive.withValue { $0.append(recorder) }
        return recorder
    }

    // MARK: Membership

    @Test func addedDelegatesAreCountedAndFound() {
        let a = recorder("a")
        let b = recorder("b")
        #expect(delegates.isEmpty)
        #expect(delegates.count == 0)

        #expect(delegates.add(a))
        #expect(delegates.add(b))

        #expect(!delegates.isEmpty)
        #expect(delegates.count == 2)
        #expect(delegates.contains(a))
        #expect(!delegates.contains(RecordingListener("stranger", journal)))
    }

    @Test func addingTheSameDelegateTwiceKeepsOneEntry() {
        let a = recorder("a")
        let b = recorder("b")
        delegates.add(a)
        delegates.add(b)

        #expect(!delegates.add(a))
        #expect(delegates.count == 2)

        delegates.invoke { $0.didChange(1) }
        #expect(journal.current == ["a 1", "b 1"])
    }

    @Test func delegatesAreCalledInOrderOfAddition() {
        let recorders = (0..<5).map { recorder("r\($0)") }
        for recorder in recorders.reversed() { delegates.add(recorder) }

        delegates.invoke { $0.didChange(7) }

        #expect(journal.current == ["r4 7", "r3 7", "r2 7", "r1 7", "r0 7"])
    }

    @Test func removedDelegateIsNotCalledAndReaddingMovesItToTheEnd() {
        let a = recorder("a")
        let b = recorder("b")
        delegates.add(a)
        delegates.add(b)

        #expect(delegates.remove(a))
        #expect(!delegates.remove(a))
        #expect(!delegates.contains(a))
        delegates.invoke { $0.didChange(1) }

        delegates.add(a)
        delegates.invoke { $0.didChange(2) }

        #expect(journal.current == ["b 1", "b 2", "a 2"])
    }

    @Test func plusEqualsAddsAndMinusEqualsRemoves() {
        let a = recorder("a")
        let b = recorder("b")

        delegates += a
        delegates += b
        delegates += a
        #expect(delegates.count == 2)

        delegates -= a
        #expect(delegates.count == 1)
        #expect(delegates.contains(b))
    }

    @Test func removeAllEmptiesTheList() {
        let a = recorder("a")
        let b = recorder("b")
        delegates += a
        delegates += b

        delegates.removeAll()

        #expect(delegates.isEmpty)
        #expect(delegates._storedEntryCount == 0)
        delegates.invoke { $0.didChange(1) }
        #expect(journal.current.isEmpty)
    }

    // MARK: Lifetime

    @Test func delegatesAreHeldWeaklyAndPrunedAfterDeinit() {
        let survivor = recorder("survivor")
        delegates.add(survivor)
        do {
            let shortLived = RecordingListener("shortLived", journal)
            withExtendedLifetime(shortLived) {
                delegates.add(shortLived)
                #expect(delegates.count == 2)
            }
        }
        // The multicast delegate did not keep it alive.
        #expect(journal.current == ["deinit shortLived"])
        #expect(delegates._storedEntryCount == 2)

        delegates.invoke { $0.didChange(1) }

        #expect(journal.current == ["deinit shortLived", "survivor 1"])
        #expect(delegates._storedEntryCount == 1)
        #expect(delegates.count == 1)
    }

    @Test func countPrunesDeadEntries() {
        do {
            let a = RecordingListener("a", journal)
            delegates.add(a)
        }
        #expect(delegates._storedEntryCount == 1)
        #expect(delegates.count == 0)
        #expect(delegates._storedEntryCount == 0)
    }

    @Test func addingPrunesDeadEntriesEvenWithoutInvocations() {
        let survivor = recorder("survivor")
        delegates.add(survivor)
        for index in 0..<1_000 {
            delegates.add(RecordingListener("temporary\(index)", journal))
        }

        // Without pruning there would be 1001 entries.
        #expect(delegates._storedEntryCount <= WeakDelegateList.minimumPruneThreshold)
        #expect(delegates.count == 1)
    }

    @Test func aNewDelegateAtTheAddressOfADeadOneIsNotMistakenForADuplicate() {
        // Freed memory is often reused at once, so a new object may get the address (and thus
        // the ObjectIdentifier) of a dead delegate whose entry has not been pruned yet.
        for index in 0..<200 {
            let delegate = RecordingListener("generation\(index)", journal)
            withExtendedLifetime(delegate) {
                #expect(delegates.add(delegate))
                #expect(delegates.contains(delegate))
                #expect(delegates.count == 1)
            }
        }
    }

    // MARK: Return values

    @Test func mapCollectsEveryAnswerInOrderOfAddition() {
        let recorders = [recorder("a", answer: 1), recorder("b"), recorder("c", answer: 3)]
        for recorder in recorders { delegates += recorder }

        let answers = delegates.map { $0.answer(to: 0) }

        #expect(answers == [1, nil, 3])
    }

    @Test func compactMapSkipsDelegatesThatDecline() {
        let recorders = [recorder("a"), recorder("b", answer: 2), recorder("c", answer: 3)]
        for recorder in recorders { delegates += recorder }

        let answers = delegates.compactMap { $0.answer(to: 0) }

        #expect(answers == [2, 3])
        #expect(journal.current == ["a?", "b?", "c?"])
    }

    @Test func firstNonNilReturnsTheFirstAnswerAndAsksNoFurther() {
        let recorders = [recorder("a"), recorder("b", answer: 2), recorder("c", answer: 3)]
        for recorder in recorders { delegates += recorder }

        let answer = delegates.firstNonNil { $0.answer(to: 0) }

        #expect(answer == 2)
        #expect(journal.current == ["a?", "b?"])
    }

    @Test func firstNonNilReturnsNilWhenNobodyAnswers() {
        let recorders = [recorder("a"), recorder("b")]
        for recorder in recorders { delegates += recorder }

        #expect(delegates.firstNonNil { $0.answer(to: 0) } == nil)
        #expect(MulticastDelegate<any Listener>().firstNonNil { $0.answer(to: 0) } == nil)
    }

    @Test func reduceFoldsAnswersInOrderOfAddition() {
        let recorders = [1, 2, 3].map { (digit: Int) in recorder("r\(digit)", answer: digit) }
        for recorder in recorders { delegates += recorder }

        // Not commutative, so the result shows the order: ((0 * 10 + 1) * 10 + 2) * 10 + 3.
        let digits = delegates.reduce(0) { partial, delegate in partial * 10 + (delegate.answer(to: 0) ?? 0) }

        #expect(digits == 123)
        #expect(MulticastDelegate<any Listener>().reduce(42) { _, _ in 0 } == 42)
    }

    @Test func throwingClosureStopsTheInvocationAndRethrows() {
        let recorders = [recorder("a"), recorder("b"), recorder("c")]
        for recorder in recorders { delegates += recorder }

        #expect(throws: Stop.self) {
            try delegates.invoke { delegate in
                delegate.didChange(1)
                if delegate === recorders[1] { throw Stop() }
            }
        }
        #expect(journal.current == ["a 1", "b 1"])
    }

    // MARK: Reentrancy

    @Test func delegateAddedDuringAnInvocationIsCalledFromTheNextOneOn() {
        let newcomer = recorder("newcomer")
        let delegates = self.delegates
        let adder = recorder("adder") { _ in delegates.add(newcomer) }
        delegates += adder

        delegates.invoke { $0.didChange(1) }
        delegates.invoke { $0.didChange(2) }

        #expect(journal.current == ["adder 1", "adder 2", "newcomer 2"])
    }

    @Test func delegateRemovingItselfDuringAnInvocationIsNotCalledAgain() {
        let delegates = self.delegates
        let first = recorder("first")
        let oneShot = recorder("oneShot") { me in delegates.remove(me) }
        let last = recorder("last")
        for recorder in [first, oneShot, last] { delegates += recorder }

        delegates.invoke { $0.didChange(1) }
        delegates.invoke { $0.didChange(2) }

        #expect(journal.current == ["first 1", "oneShot 1", "last 1", "first 2", "last 2"])
        #expect(!delegates.contains(oneShot))
    }

    @Test func delegateRemovingALaterDelegatePreventsItsCallInTheSameInvocation() {
        let delegates = self.delegates
        let victim = recorder("victim")
        let remover = recorder("remover") { _ in delegates.remove(victim) }
        let last = recorder("last")
        for recorder in [remover, victim, last] { delegates += recorder }

        delegates.invoke { $0.didChange(1) }

        #expect(journal.current == ["remover 1", "last 1"])
    }

    @Test func delegateRemovingAnEarlierDelegateAffectsOnlyLaterInvocations() {
        let delegates = self.delegates
        let earlier = recorder("earlier")
        let remover = recorder("remover") { _ in delegates.remove(earlier) }
        for recorder in [earlier, remover] { delegates += recorder }

        delegates.invoke { $0.didChange(1) }
        delegates.invoke { $0.didChange(2) }

        #expect(journal.current == ["earlier 1", "remover 1", "remover 2"])
    }

    @Test func removeAllDuringAnInvocationStopsTheRemainingCalls() {
        let delegates = self.delegates
        let clearer = recorder("clearer") { _ in delegates.removeAll() }
        let after = recorder("after")
        for recorder in [clearer, after] { delegates += recorder }

        delegates.invoke { $0.didChange(1) }

        #expect(journal.current == ["clearer 1"])
        #expect(delegates.isEmpty)
    }

    @Test func delegateMayInvokeTheMulticastDelegateAgain() {
        let delegates = self.delegates
        let depth = Locked(0)
        let nester = recorder("nester") { _ in
            guard
                depth.withValue({ value in
                    value += 1; return value
                }) == 1
            else { return }
            delegates.invoke { $0.didChange(2) }
        }
        let other = recorder("other")
        for recorder in [nester, other] { delegates += recorder }

        delegates.invoke { $0.didChange(1) }

        #expect(journal.current == ["nester 1", "nester 2", "other 2", "other 1"])
    }

    @Test func delegateDeinitializedDuringAnInvocationIsSkippedAndPruned() {
        let delegates = self.delegates
        let holder = Locked<RecordingListener?>(RecordingListener("doomed", journal))
        let releaser = recorder("releaser") { _ in holder.withValue { $0 = nil } }
        delegates += releaser
        delegates += holder.current!
        let last = recorder("last")
        delegates += last

        delegates.invoke { $0.didChange(1) }

        #expect(journal.current == ["releaser 1", "deinit doomed", "last 1"])
        #expect(delegates._storedEntryCount == 2)
    }

    // MARK: Contract

    @Test func addingAValueThatIsNotAClassInstanceStops() async {
        await #expect(processExitsWith: .failure) {
            let values = MulticastDelegate<Int>()
            values.add(1)
        }
    }

    @Test func isSendableWhenItsDelegatesAreSendable() {
        func requireSendable(_ value: some Sendable) {}
        // Compiles only because `Listener` refines `Sendable`.
        requireSendable(delegates)
    }

    @Test func forwardingProxyFansOneDelegateSlotOutToManyListeners() {
        /// The single-slot API: it talks to one delegate and holds it weakly, like UIKit does.
        final class Slider {
            weak var delegate: (any Listener)?
            func slide(to value: Int) -> Int? {
                delegate?.didChange(value)
                return delegate?.answer(to: value)
            }
        }
        /// The proxy in the slot.
        final class ListenerFanOut: Listener {
            let listeners = MulticastDelegate<any Listener>()
            func didChange(_ value: Int) { listeners.invoke { $0.didChange(value) } }
            func answer(to question: Int) -> Int? { listeners.firstNonNil { $0.answer(to: question) } }
        }

        let slider = Slider()
        let fanOut = ListenerFanOut()
        slider.delegate = fanOut
        let quiet = recorder("quiet")
        let talker = recorder("talker", answer: 9)
        fanOut.listeners += quiet
        fanOut.listeners += talker

        let answer = slider.slide(to: 5)

        #expect(answer == 9)
        #expect(journal.current == ["quiet 5", "talker 5", "quiet?", "talker?"])
    }
}

// MARK: - Concurrency

private protocol Pinged: AnyObject, Sendable {
    func ping()
}

private final class Tally: Pinged {
    let hits = Atomic<Int>(0)
    let deinits: CallCounter

    init(deinits: CallCounter) { self.deinits = deinits }

    func ping() { hits.add(1, ordering: .relaxed) }

    deinit { deinits.increment() }
}

private final class CallCounter: Sendable {
    private let storage = Atomic<Int>(0)
    func increment() { storage.add(1, ordering: .relaxed) }
    var value: Int { storage.load(ordering: .relaxed) }
}

@Suite("MulticastDelegate under concurrency")
struct MulticastDelegateConcurrencyTests {
    /// Runs `body(thread)` on `threads` real threads that start together, and waits for all.
    private func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) async {
        let start = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<threads {
            done.enter()
            let thread = Thread {
                start.wait()
                body(index)
                done.leave()
            }
            thread.start()
        }
        for _ in 0..<threads { start.signal() }
        await withCheckedContinuation { continuation in
            done.notify(queue: .global()) { continuation.resume() }
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func threadsAddingRemovingInvokingAndReleasingKeepExactCounts() async {
        let threads = 4
        let iterations = 1_000
        let delegates = MulticastDelegate<any Pinged>()
        let deinits = CallCounter()
        let created = CallCounter()
        let invocations = CallCounter()
        let failures = Locked<[String]>([])
        // Delegates parked here are released later by whichever thread swaps them out.
        let handoff = Locked<Tally?>(nil)

        // Registered before the threads start and never removed: every invocation must reach
        // each of them exactly once.
        let permanent = (0..<3).map { _ in Tally(deinits: deinits) }
        for tally in permanent { delegates += tally }

        await onThreads(threads) { thread in
            func fail(_ message: String) { failures.record("thread \(thread): \(message)") }

            for iteration in 0..<iterations {
                let mine = Tally(deinits: deinits)
                created.increment()
                if !delegates.add(mine) { fail("add returned false") }
                if delegates.add(mine) { fail("second add returned true") }

                // Never removed: dies at the end of the iteration, or on another thread.
                let transient = Tally(deinits: deinits)
                created.increment()
                delegates += transient

                var mineCalls = 0
                var permanentCalls = 0
                delegates.invoke { delegate in
                    delegate.ping()
                    if delegate === mine { mineCalls += 1 }
                    if permanent.contains(where: { $0 === delegate }) { permanentCalls += 1 }
                }
                invocations.increment()
                if mineCalls != 1 { fail("own delegate called \(mineCalls) times") }
                if permanentCalls != permanent.count { fail("permanent delegates called \(permanentCalls) times") }

                let answers = delegates.map { _ in 1 }.count
                if answers < permanent.count + 1 { fail("map saw \(answers) delegates") }

                if !delegates.remove(mine) { fail("remove returned false") }
                if delegates.contains(mine) { fail("contains after remove") }
                if delegates.remove(mine) { fail("second remove returned true") }

                if iteration % 8 == 0 {
                    let parked = handoff.withValue { slot in
                        let previous = slot
                        slot = transient
                        return previous
                    }
                    _ = parked  // released here, possibly created by another thread
                }
                _ = delegates.count
            }
        }
        handoff.withValue { $0 = nil }

        #expect(failures.current == [])
        #expect(invocations.value == threads * iterations)
        for tally in permanent {
            #expect(tally.hits.load(ordering: .relaxed) == threads * iterations)
        }
        #expect(created.value == 2 * threads * iterations)
        #expect(deinits.value == created.value)
        #expect(delegates.count == permanent.count)
        #expect(delegates._storedEntryCount == permanent.count)
    }
}

// MARK: - MainActorMulticastDelegate

/// A UI-style delegate protocol: main-actor isolated, not `Sendable` by itself.
@MainActor
private protocol ScreenDelegate: AnyObject {
    func screenDidAppear(_ name: String)
    func title(for name: String) -> String?
}

/// A plain class with mutable state and no `Sendable` conformance.
@MainActor
private final class ScreenRecorder: ScreenDelegate {
    let name: String
    var log: [String]
    let fixedTitle: String?
    var reaction: ((ScreenRecorder) -> Void)?

    init(_ name: String, title: String? = nil) {
        self.name = name
        self.log = []
        self.fixedTitle = title
    }

    func screenDidAppear(_ screen: String) {
        log.append("\(name) \(screen)")
        reaction?(self)
    }

    func title(for screen: String) -> String? { fixedTitle }
}

@MainActor
private final class KeepAlive {
    var objects: [AnyObject] = []
}

/// A delegate protocol that is neither `Sendable` nor isolated to an actor.
private protocol PlainDelegate: AnyObject {
    func poke()
}

@Suite("MainActorMulticastDelegate")
@MainActor
struct MainActorMulticastDelegateTests {
    private let delegates = MainActorMulticastDelegate<any ScreenDelegate>()
    private let keepAlive = KeepAlive()

    /// A recorder that lives until the test ends (see `MulticastDelegateTests.recorder`).
    private func recorder(_ name: String, title: String? = nil) -> ScreenRecorder {
        let recorder = ScreenRecorder(name, title: title)
        keepAlive.objects.append(recorder)
        return recorder
    }

    @Test func delegatesAreCalledOnceEachInOrderOfAddition() {
        let a = recorder("a")
        let b = recorder("b")
        var order: [String] = []
        delegates += b
        delegates += a
        delegates += b

        delegates.invoke { delegate in
            delegate.screenDidAppear("home")
            order.append((delegate as! ScreenRecorder).name)
        }

        #expect(order == ["b", "a"])
        #expect(delegates.count == 2)
        #expect(a.log == ["a home"])
    }

    @Test func removeAndContainsTrackMembership() {
        let a = recorder("a")
        delegates.add(a)
        #expect(delegates.contains(a))
        delegates -= a
        #expect(!delegates.contains(a))
        #expect(delegates.isEmpty)
        #expect(!delegates.remove(a))
    }

    @Test func delegatesAreHeldWeakly() {
        weak var observed: ScreenRecorder?
        do {
            let temporary = ScreenRecorder("temporary")
            observed = temporary
            delegates += temporary
            #expect(delegates.count == 1)
        }
        #expect(observed == nil)
        #expect(delegates.count == 0)
        #expect(delegates._storedEntryCount == 0)
    }

    @Test func answersCombineByMapFirstNonNilAndReduce() {
        let recorders = [recorder("a"), recorder("b", title: "B"), recorder("c", title: "C")]
        for recorder in recorders { delegates += recorder }

        #expect(delegates.map { $0.title(for: "x") } == [nil, "B", "C"])
        #expect(delegates.compactMap { $0.title(for: "x") } == ["B", "C"])
        #expect(delegates.firstNonNil { $0.title(for: "x") } == "B")
        #expect(delegates.reduce("") { $0 + ($1.title(for: "x") ?? "-") } == "-BC")
    }

    @Test func mutationsDuringAnInvocationFollowTheSnapshotRules() {
        let adder = recorder("adder")
        let selfRemover = recorder("selfRemover")
        let victim = recorder("victim")
        let newcomer = recorder("newcomer")
        let delegates = self.delegates
        adder.reaction = { _ in delegates.add(newcomer) }
        selfRemover.reaction = { me in
            delegates.remove(me)
            delegates.remove(victim)
        }
        for recorder in [adder, selfRemover, victim] { delegates += recorder }

        delegates.invoke { $0.screenDidAppear("1") }
        delegates.invoke { $0.screenDidAppear("2") }

        #expect(adder.log == ["adder 1", "adder 2"])
        #expect(selfRemover.log == ["selfRemover 1"])
        #expect(victim.log == [])
        #expect(newcomer.log == ["newcomer 2"])
    }

    @Test func isSendableEvenWhenItsDelegatesAreNot() async {
        final class Poked: PlainDelegate {
            var pokes = 0
            func poke() { pokes += 1 }
        }
        let plain = MainActorMulticastDelegate<any PlainDelegate>()
        let poked = Poked()
        plain += poked

        // Handing the multicast delegate to another task is allowed; using it there is not.
        let sent = await Task.detached { plain }.value
        sent.invoke { $0.poke() }

        #expect(poked.pokes == 1)
    }
}
