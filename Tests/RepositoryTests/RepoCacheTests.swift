import Synchronization
import Testing

@testable import TrellisRepository

@Suite("RepoCache")
struct RepoCacheTests {
  /// A clock the test moves by hand.
  final class Clock: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(_ duration: Duration) { instant.withLock { $0 = $0.advanced(by: duration) } }
  }

  @Test func aValueIsFreshForItsLifetimeThenReloaded() async throws {
    let clock = Clock()
    let cache = RepoCache<Int, String>(lifetime: .seconds(30), now: { clock.now })
    var loads = 0
    func load() async -> String {
      loads += 1
      return "v\(loads)"
    }
    #expect(await cache.value(for: 1, forceRefresh: false, load: load) == "v1")
    clock.advance(.seconds(29))
    #expect(await cache.value(for: 1, forceRefresh: false, load: load) == "v1")
    clock.advance(.seconds(2))
    #expect(await cache.value(for: 1, forceRefresh: false, load: load) == "v2")
    #expect(await cache.value(for: 1, forceRefresh: true, load: load) == "v3")
  }

  @Test func aLoadInFlightDuringAnInvalidationIsNotStored() async throws {
    let cache = RepoCache<Int, String>(lifetime: .seconds(30))
    let stale = await cache.value(for: 1, forceRefresh: false) { () async -> String in
      cache.invalidate(1)  // a write lands while the response is on its way
      return "stale"
    }
    #expect(stale == "stale")  // the caller still gets its answer...
    let next = await cache.value(for: 1, forceRefresh: false) { "fresh" }
    #expect(next == "fresh")  // ...but it was never cached
  }

  @Test func invalidatingEverythingAlsoDiscardsLoadsInFlight() async throws {
    let cache = RepoCache<Int, String>(lifetime: .seconds(30))
    _ = await cache.value(for: 2, forceRefresh: false) { () async -> String in
      cache.invalidateAll()
      return "stale"
    }
    #expect(await cache.value(for: 2, forceRefresh: false) { "fresh" } == "fresh")
  }

  @Test func storeReplacesTheValue() async throws {
    let cache = RepoCache<String, Int>(lifetime: .seconds(30))
    _ = await cache.value(for: "me", forceRefresh: false) { 1 }
    cache.store(2, for: "me", ifClearedNotSince: cache.era)
    #expect(await cache.value(for: "me", forceRefresh: false) { 3 } == 2)
  }

  /// A write's answer that arrives after the cache was cleared (a sign-out while the write was
  /// out) belongs to the session that ended: it is not stored for the next one.
  @Test func anAnswerStoredAfterAClearIsDropped() async throws {
    let cache = RepoCache<String, Int>(lifetime: .seconds(30))
    let era = cache.era
    cache.invalidateAll()  // signed out while the request was out
    cache.store(2, for: "me", ifClearedNotSince: era)
    #expect(await cache.value(for: "me", forceRefresh: false) { 3 } == 3)
  }
}
