import Foundation
import Synchronization

/// Refreshes a token source's access token so that however many requests need a new token at
/// once, one refresh call serves them all (Alamofire's `AuthenticationInterceptor` behaviour).
///
/// A refresh runs in its own task: a waiting request that is cancelled stops waiting at once
/// without cancelling the refresh the others wait for. Refreshes are counted in a sliding
/// window; past the limit the refresher fails instead of looping.
final class TokenRefresher: Sendable {
  private struct State {
    var inFlight: Task<AccessToken, any Error>?
    var recentRefreshes: [ContinuousClock.Instant] = []
    var refreshCount = 0
  }

  private let source: any AuthTokenSource
  private let maximumRefreshes: Int
  private let window: Duration
  private let state = Mutex(State())

  init(source: any AuthTokenSource, maximumRefreshes: Int, window: Duration) {
    self.source = source
    self.maximumRefreshes = maximumRefreshes
    self.window = window
  }

  /// How many refresh calls have been made, for tests and benchmarks.
  var refreshCount: Int { state.withLock { $0.refreshCount } }

  /// Returns a token newer than `staleToken`: the current one if it already differs (someone
  /// refreshed meanwhile), the one being fetched if a refresh is in flight, or a new one.
  ///
  /// - Throws: `.authentication(.refreshFailed)` (the source is told to end the session),
  ///   `.authentication(.refreshLoop)`, or `.transport(.cancelled)` if the caller is cancelled.
  func freshToken(replacing staleToken: String?) async throws(HTTPError) -> AccessToken {
    let task: Task<AccessToken, any Error>
    switch startOrJoin(replacing: staleToken) {
    case .current(let token): return token
    case .loop(let refreshes):
      throw .authentication(.refreshLoop(refreshes: refreshes, window: window))
    case .wait(let inFlight): task = inFlight
    }
    do {
      return try await Self.value(of: task)
    } catch let error as HTTPError {
      throw error
    } catch is CancellationError {
      throw .transport(TransportFailure(.cancelled, detail: "cancelled while the token refreshed"))
    } catch {
      throw .authentication(.refreshFailed("\(error)"))
    }
  }

  private enum Start {
    case current(AccessToken)
    case loop(Int)
    case wait(Task<AccessToken, any Error>)
  }

  private func startOrJoin(replacing staleToken: String?) -> Start {
    state.withLock { state in
      if let inFlight = state.inFlight { return .wait(inFlight) }
      if let current = source.currentAccessToken, let staleToken, current.value != staleToken {
        return .current(current)
      }
      let now = ContinuousClock.now
      state.recentRefreshes.removeAll { now - $0 > window }
      guard state.recentRefreshes.count < maximumRefreshes else {
        return .loop(state.recentRefreshes.count)
      }
      state.recentRefreshes.append(now)
      state.refreshCount += 1
      let source = source
      let task = Task { [weak self] () throws -> AccessToken in
        defer { self?.state.withLock { $0.inFlight = nil } }
        do {
          return try await source.refreshAccessToken()
        } catch {
          let failure = AuthenticationFailure.refreshFailed("\(error)")
          await source.invalidateSession(because: failure)
          throw HTTPError.authentication(failure)
        }
      }
      state.inFlight = task
      return .wait(task)
    }
  }

  /// Awaits `task`'s value, but returns at once with `CancellationError` if the caller is
  /// cancelled (awaiting `task.value` alone would wait for the task).
  private static func value(of task: Task<AccessToken, any Error>) async throws -> AccessToken {
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

/// A continuation that is resumed exactly once, by whichever result comes first, even if that
/// result comes before the continuation is installed.
final class ResumeOnce<Value: Sendable>: Sendable {
  private struct State {
    var continuation: CheckedContinuation<Value, any Error>?
    var early: Result<Value, any Error>?
    var isDone = false
  }

  private let state = Mutex(State())

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
