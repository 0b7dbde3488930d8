import Synchronization
import Testing
import TrellisCore
import TrellisCoreTesting

@Suite("Relay", .timeLimit(.minutes(1)))
struct RelayTests {
  @Test func valuesStartWithTheCurrentValueThenEachChange() async {
    let relay = Relay(1)
    var iterator = relay.values.makeAsyncIterator()
    relay.send(2)
    relay.update { $0 += 10 }
    #expect(await iterator.next() == 1)
    #expect(await iterator.next() == 2)
    #expect(await iterator.next() == 12)
    #expect(relay.value == 12)
  }

  /// A conditional send replaces and delivers only when its condition holds, checked in the
  /// relay's own order.
  @Test func aConditionalSendDeliversOnlyWhenItsConditionHolds() {
    let relay = Relay(1)
    let seen = Mutex<[Int]>([])
    let token = relay.observe { value in seen.withLock { $0.append(value) } }
    defer { token.cancel() }
    #expect(relay.send(2, if: { true }))
    #expect(!relay.send(3, if: { false }))
    #expect(relay.value == 2)
    #expect(seen.withLock { $0 } == [2])
  }

  /// Observers are called in the order they subscribed: the app's user-data scope (made
  /// first) points the stores at a restored user before a service (made after it) reads them.
  @Test func observersAreCalledInTheOrderTheySubscribed() {
    let relay = Relay(0)
    let calls = Mutex<[Int]>([])
    let tokens = (0..<32).map { index in
      relay.observe { _ in calls.withLock { $0.append(index) } }
    }
    relay.send(1)
    relay.send(2)
    #expect(calls.withLock { $0 } == Array(0..<32) + Array(0..<32))
    withExtendedLifetime(tokens) {}
  }

  @Test func changesSkipTheCurrentValueAndEverySubscriberGetsEachChange() async {
    let relay = Relay("a")
    var first = relay.changes.makeAsyncIterator()
    var second = relay.changes.makeAsyncIterator()
    relay.send("b")
    #expect(await first.next() == "b")
    #expect(await second.next() == "b")
  }

  @Test func aSubscriptionEndsWhenItsTaskIsCancelled() async throws {
    let relay = Relay(0)
    let consumer = Task {
      for await _ in relay.values {}
    }
    try #require(await eventually { relay.subscriberCount > 0 })
    consumer.cancel()
    await consumer.value
    #expect(relay.subscriberCount == 0)
  }

  @Test func streamsFinishWhenTheRelayIsReleased() async {
    var relay: Relay<Int>? = Relay(0)
    let stream = relay?.values
    relay = nil
    var received: [Int] = []
    if let stream {
      for await value in stream { received.append(value) }
    }
    #expect(received == [0])  // the loop ended instead of waiting forever
  }

  @Test func observersAreCalledUntilTheirTokenEnds() {
    let relay = Relay(0)
    let seen = Relay<[Int]>([])
    let token = relay.observe { value in seen.update { $0.append(value) } }
    relay.send(1)
    token.cancel()
    relay.send(2)
    #expect(seen.value == [1])
    #expect(relay.subscriberCount == 0)
  }

  @Test func concurrentUpdatesAreNotLost() async {
    let relay = Relay(0)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask { for _ in 0..<1000 { relay.update { $0 += 1 } } }
      }
    }
    #expect(relay.value == 8000)
  }

  // Subscribers run without the relay's lock held, so each of these used to deadlock.

  @Test(.timeLimit(.minutes(1)))
  func anObserverMayUpdateTheRelayItObservesAndEveryoneSeesTheOrder() {
    let relay = Relay(0)
    let seenByOther = Mutex<[Int]>([])
    let resender = relay.observe { value in
      if value < 3 { relay.send(value + 1) }
    }
    let recorder = relay.observe { value in seenByOther.withLock { $0.append(value) } }
    relay.send(1)
    #expect(relay.value == 3)
    #expect(seenByOther.withLock { $0 } == [1, 2, 3])
    withExtendedLifetime((resender, recorder)) {}
  }

  @Test(.timeLimit(.minutes(1)))
  func anObserverMayReleaseItsOwnToken() {
    let relay = Relay(0)
    let calls = Atomic(0)
    let holder = Mutex<ObservationToken?>(nil)
    let token = relay.observe { _ in
      calls.add(1, ordering: .relaxed)
      let own = holder.withLock { token in
        defer { token = nil }
        return token
      }
      own?.cancel()
    }
    holder.withLock { $0 = token }
    relay.send(1)
    relay.send(2)
    #expect(calls.load(ordering: .relaxed) == 1)
    #expect(relay.subscriberCount == 0)
  }

  @Test(.timeLimit(.minutes(1)))
  func anObserverMayCancelATaskThatIteratesTheSameRelay() async throws {
    let relay = Relay(0)
    let consumer = Task { for await _ in relay.changes {} }
    try #require(await eventually { relay.subscriberCount > 0 })
    let token = relay.observe { _ in consumer.cancel() }
    relay.send(1)
    await consumer.value
    #expect(relay.subscriberCount == 1)  // only the observer is left
    token.cancel()
  }

  @Test(.timeLimit(.minutes(1)))
  func streamsNeverSeeAnOlderValueWhileOthersUpdateConcurrently() async {
    let relay = Relay(0)
    let writers = 4
    let updatesPerWriter = 2_000
    let total = writers * updatesPerWriter
    await withTaskGroup(of: [Int].self) { group in
      for _ in 0..<writers {
        group.addTask {
          for _ in 0..<updatesPerWriter { relay.update { $0 += 1 } }
          return []
        }
      }
      for _ in 0..<4 {
        group.addTask {
          var received: [Int] = []
          for await value in relay.values {
            received.append(value)
            if value == total { break }
          }
          return received
        }
      }
      for await received in group where !received.isEmpty {
        #expect(received.last == total)
        #expect(zip(received, received.dropFirst()).allSatisfy { $0 < $1 })
      }
    }
  }
}

@Suite("Broadcast", .timeLimit(.minutes(1)))
struct BroadcastTests {
  @Test func everySubscriberGetsEveryLaterEventInOrder() async {
    let broadcast = Broadcast<Int>()
    broadcast.send(0)  // before anyone subscribed: nobody gets it
    var first = broadcast.events.makeAsyncIterator()
    var second = broadcast.events.makeAsyncIterator()
    broadcast.send(1)
    broadcast.send(1)
    #expect(await first.next() == 1)
    #expect(await first.next() == 1)
    #expect(await second.next() == 1)
    #expect(broadcast.subscriberCount == 2)
  }

  @Test func streamsFinishWhenTheBroadcastIsReleased() async {
    var broadcast: Broadcast<Int>? = Broadcast()
    let events = broadcast?.events
    broadcast?.send(7)
    broadcast = nil
    var received: [Int] = []
    if let events {
      for await event in events { received.append(event) }
    }
    #expect(received == [7])  // delivered, then the loop ended instead of waiting forever
  }

  @Test func aSubscriptionEndsWhenItsTaskIsCancelled() async throws {
    let broadcast = Broadcast<Int>()
    let consumer = Task { for await _ in broadcast.events {} }
    try #require(await eventually { broadcast.subscriberCount > 0 })
    consumer.cancel()
    await consumer.value
    #expect(broadcast.subscriberCount == 0)
  }
}
