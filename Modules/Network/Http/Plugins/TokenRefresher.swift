import Foundation
import TrellisCore

/// Refreshes a token source's access token so that however many requests need a new token at
/// once, one refresh call serves them all (Alamofire's `AuthenticationInterceptor` behaviour).
///
/// A refresh runs in its own task: a waiting request that is cancelled stops waiting at once
/// without cancelling the refresh. A refresh is never cancelled, even when nobody waits for it
/// any more: the server may have rotated the refresh token already, and a lost answer followed
/// by a second refresh with the old token looks like a stolen token to a server that detects
/// reuse (the whole session ends). It is bounded instead, by its own deadline
/// (`AuthDataAPI.refreshTimeout`), and the next caller joins it until it ends. Refreshes after a
/// rejection (`401`) are
/// counted in a sliding window; past the limit the refresher fails instead of looping.
/// Refreshes ahead of expiry are not counted: a token is refreshed ahead at most once, and a
/// token that never lived (no lifetime) is not refreshed ahead at all.
///
/// Only the server ends a session. A refresh it refused (the token source's
/// `isRefreshRejection`) is remembered for the token it tried to replace: every request that
/// was sent with that token, whenever its `401` arrives, fails with the same error instead of
/// starting a refresh of its own, and the source is told to end the session. A refresh that
/// could not reach the server, or that the server could not answer now, fails every request
/// waiting for it with one shared `.refreshUnavailable` and is not remembered: the session is
/// kept, and the next request that needs a token tries again (a refresh ahead of expiry waits
/// ``temporaryFailurePause`` first, sending the still-valid token meanwhile).
final class TokenRefresher: Sendable {
  /// Why a token is being refreshed.
  enum Cause {
    /// It is about to expire (not counted by the loop guard).
    case expiring
    /// The server rejected it (counted by the loop guard).
    case rejected
  }

  /// A refresh under way: its number, the token it replaces, why, and its task.
  private struct InFlight {
    var id: Int
    var replacing: String?
    var cause: Cause
    var task: Task<AccessToken, any Error>
  }

  private struct State {
    var inFlight: InFlight?
    var nextID = 0
    /// When the recent refreshes after a rejection were made (elapsed time of the clock).
    var recentRefreshes: [Duration] = []
    var refreshCount = 0
    /// The last refresh that failed for good: the token it tried to replace and the error.
    var lastFailure: (token: String?, error: HTTPError)?
    /// The last refresh that failed for now (offline, unavailable): the token, when, and why.
    var lastTemporaryFailure: (token: String, at: Duration, error: HTTPError)?
    /// Which token replaced which, for the last few refreshes.
    var lineage = TokenLineage()
  }

  private let source: any AuthTokenSource
  private let maximumRefreshes: Int
  private let window: Duration
  private let time: TimeSource
  private let now: @Sendable () -> Date
  private let state = Lock(State())

  /// How long after a temporary failure a refresh ahead of expiry is not tried again for the
  /// same token (the token is still valid, and every request would otherwise try).
  static let temporaryFailurePause: Duration = .seconds(5)

  init(
    source: any AuthTokenSource, maximumRefreshes: Int, window: Duration,
    time: TimeSource = .continuous, now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.source = source
    self.maximumRefreshes = maximumRefreshes
    self.window = window
    self.time = time
    self.now = now
  }

  /// How many refresh calls have been made, for tests and benchmarks.
  var refreshCount: Int { state.withLock { $0.refreshCount } }

  /// Returns a token newer than `staleToken`: the current one if it already differs (someone
  /// refreshed meanwhile), the one being fetched if a refresh is in flight, or a new one.
  ///
  /// - Throws: `.authentication(.refreshRejected)` (the source is told to end the session),
  ///   the same error again for a request sent with a token whose refresh was refused,
  ///   `.authentication(.refreshUnavailable)` when the refresh could not be done now (the
  ///   session is kept), `.authentication(.notSignedIn)` when there is no session to refresh,
  ///   `.authentication(.refreshLoop)`, or `.transport(.cancelled)` if the caller is
  ///   cancelled.
  func freshToken(replacing staleToken: String?, cause: Cause) async throws(HTTPError)
    -> AccessToken
  {
    let task: Task<AccessToken, any Error>
    switch startOrJoin(replacing: staleToken, cause: cause) {
    case .current(let token): return token
    case .fail(let error): throw error
    case .wait(let inFlight, _): task = inFlight
    }
    do {
      return try await value(of: task)
    } catch let error as HTTPError {
      throw error
    } catch is CancellationError {
      throw .transport(TransportFailure(.cancelled, detail: "cancelled while the token refreshed"))
    } catch {
      throw .authentication(.refreshUnavailable("\(error)"))
    }
  }

  private enum Start {
    case current(AccessToken)
    case fail(HTTPError)
    case wait(Task<AccessToken, any Error>, id: Int)
  }

  private func startOrJoin(replacing staleToken: String?, cause: Cause) -> Start {
    state.withLock { state in
      if let failure = state.lastFailure, failure.token == staleToken {
        return .fail(failure.error)
      }
      if let inFlight = state.inFlight, inFlight.replacing == staleToken || staleToken == nil {
        return .wait(inFlight.task, id: inFlight.id)
      }
      guard let current = source.currentAccessToken else {
        return .fail(.authentication(.notSignedIn))
      }
      if let staleToken, current.value != staleToken {
        // Refreshed meanwhile: replay with the newer token. Any other token belongs to a
        // session begun since (a sign-in), which this request was not made for.
        return state.lineage.continues(current.value, from: staleToken)
          ? .current(current) : .fail(.authentication(.sessionChanged))
      }
      if let inFlight = state.inFlight { return .wait(inFlight.task, id: inFlight.id) }
      let elapsed = time.elapsed()
      if cause == .expiring, !current.hasExpired(at: now()),
        let failure = state.lastTemporaryFailure, failure.token == current.value,
        elapsed - failure.at < Self.temporaryFailurePause
      {
        return .fail(failure.error)
      }
      if cause == .rejected {
        state.recentRefreshes.removeAll { elapsed - $0 > window }
        guard state.recentRefreshes.count < maximumRefreshes else {
          return .fail(
            .authentication(.refreshLoop(refreshes: state.recentRefreshes.count, window: window)))
        }
      }
      state.refreshCount += 1
      state.nextID += 1
      let id = state.nextID
      let source = source
      let replacing = current
      let task = Task { [weak self] () throws -> AccessToken in
        do {
          let token = try await source.refreshAccessToken()
          self?.finish(id, replacing: replacing.value, with: .refreshed(token.value))
          return token
        } catch {
          let failure = Self.failure(for: error, source: source)
          // Recorded before the session ends, so that a request whose 401 arrives after
          // that gets this same error, not "signed out".
          self?.finish(id, replacing: replacing.value, with: .failed(.authentication(failure)))
          if case .refreshRejected = failure {
            await source.invalidateSession(of: replacing, because: failure)
          }
          throw HTTPError.authentication(failure)
        }
      }
      state.inFlight = InFlight(id: id, replacing: replacing.value, cause: cause, task: task)
      return .wait(task, id: id)
    }
  }

  /// What a refresh that threw `error` means: the source's own verdict when it threw an
  /// ``AuthenticationFailure``, a rejection when the source says the server refused the
  /// session, otherwise a temporary failure that keeps the session.
  private static func failure(for error: any Error, source: any AuthTokenSource)
    -> AuthenticationFailure
  {
    if let failure = error as? AuthenticationFailure { return failure }
    return source.isRefreshRejection(error)
      ? .refreshRejected("\(error)") : .refreshUnavailable("\(error)")
  }

  /// Whether `token` is `earlier` or was refreshed from it: the same session. Any other token
  /// belongs to a session begun since (a sign-out and a sign-in), or one this plugin did not
  /// refresh.
  func continuesSession(_ token: String, from earlier: String) -> Bool {
    state.withLock { $0.lineage.continues(token, from: earlier) }
  }

  private enum Outcome {
    case refreshed(String)
    case failed(HTTPError)
  }

  private func finish(_ id: Int, replacing token: String, with outcome: Outcome) {
    let elapsed = time.elapsed()
    state.withLock { state in
      var cause: Cause?
      if let inFlight = state.inFlight, inFlight.id == id {
        cause = inFlight.cause
        state.inFlight = nil
      }
      switch outcome {
      case .refreshed(let newToken):
        state.lineage.record(token, replacedBy: newToken)
        state.lastTemporaryFailure = nil
        // Counted once it succeeded: the guard is for a server that rejects fresh tokens, and a
        // refresh that could not be made (offline) brought none.
        if cause == .rejected { state.recentRefreshes.append(elapsed) }
      case .failed(.authentication(let failure)) where failure.isTemporary:
        // Not remembered for the token: the next request that needs one tries again.
        state.lastTemporaryFailure = (token, elapsed, .authentication(failure))
      case .failed(let error):
        state.lastFailure = (token, error)
      }
    }
  }

  /// Awaits `task`'s value, but returns at once with `CancellationError` if the caller is
  /// cancelled (awaiting `task.value` alone would wait for the task; the refresh goes on).
  private func value(of task: Task<AccessToken, any Error>) async throws -> AccessToken {
    let once = ResumeOnce<AccessToken>()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        once.install(continuation)
        Task { once.resume(with: await task.result) }
      }
    } onCancel: {
      once.resume(with: .failure(CancellationError()))
    }
  }
}

/// The last few refreshes (old token to new), so that a request sent with an old token is
/// replayed only with a token refreshed from it, never with another session's.
struct TokenLineage {
  private var successors: [String: String] = [:]
  private var order: [String] = []
  /// How many refreshes are remembered: more than requests can lag behind.
  private static let capacity = 16

  mutating func record(_ old: String, replacedBy new: String) {
    successors[old] = new
    order.append(old)
    if order.count > Self.capacity { successors[order.removeFirst()] = nil }
  }

  /// Whether `token` is `earlier` or was reached from it by refreshes: the same session.
  func continues(_ token: String, from earlier: String) -> Bool {
    token == earlier || isDescendant(token, of: earlier)
  }

  /// Whether `token` was reached from `ancestor` by refreshes.
  func isDescendant(_ token: String, of ancestor: String) -> Bool {
    var current = ancestor
    for _ in 0..<Self.capacity {
      guard let next = successors[current] else { return false }
      if next == token { return true }
      current = next
    }
    return false
  }
}

/// A continuation that is resumed exactly once, by whichever result comes first, even if that
/// result comes before the continuation is installed.
final class ResumeOnce<Value: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Value, any Error>?
    var early: Result<Value, any Error>?
    var isDone = false
  }

  private let state = Lock(State())

  func install(_ continuation: CheckedContinuation<Value, any Error>) {
    let early = state.withLock { state -> Result<Value, any Error>? in
      guard let early = state.early else {
        state.continuation = continuation
        return nil
      }
      state.isDone = true
      return early
    }
    if let early { continuation.resume(with: early) }
  }

  func resume(with result: Result<Value, any Error>) {
    let continuation = state.withLock { state -> CheckedContinuation<Value, any Error>? in
      guard !state.isDone else { return nil }
      guard let continuation = state.continuation else {
        if state.early == nil { state.early = result }
        return nil
      }
      state.isDone = true
      state.continuation = nil
      return continuation
    }
    continuation?.resume(with: result)
  }
}
