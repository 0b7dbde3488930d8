import Foundation
import TrellisCore

/// Retries idempotent requests after temporary failures, with exponential backoff and jitter.
///
/// Retried: `GET`, `HEAD`, `PUT`, `DELETE` and `OPTIONS` requests (never `POST` or `PATCH`)
/// that failed with a status in ``Policy/retryableStatuses`` (408, 429, 5xx by default) or a
/// temporary transport failure (timed out, connection lost or refused). A `Retry-After`
/// header (seconds or an HTTP date) sets the delay; otherwise the delay doubles each time
/// from ``Policy/baseDelay`` up to ``Policy/maximumDelay``, scaled by a random factor in
/// `0.5...1` so that clients do not retry in lockstep. A cancelled request is never retried,
/// and the wait before a retry ends at once on cancellation.
public struct RetryPlugin: HTTPPlugin {
  /// When and how often to retry.
  public struct Policy: Sendable {
    /// The most attempts per request, the first included.
    public var maximumAttempts = 3
    /// The delay before the first retry, before jitter.
    public var baseDelay: Duration = .milliseconds(200)
    /// The longest computed delay.
    public var maximumDelay: Duration = .seconds(5)
    /// The longest `Retry-After` honoured; a longer one fails at once instead of waiting.
    public var maximumRetryAfter: Duration = .seconds(30)
    /// The statuses that may succeed on a retry.
    public var retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The default policy.
    public init() {}
  }

  /// The policy.
  public let policy: Policy
  private let jitter: @Sendable () -> Double

  /// Creates the plugin.
  ///
  /// - Parameter jitter: A random number in `0...1`; replaceable in tests.
  public init(
    policy: Policy = Policy(), jitter: @escaping @Sendable () -> Double = { .random(in: 0...1) }
  ) {
    self.policy = policy
    self.jitter = jitter
  }

  /// `"retry"`.
  public var name: String { "retry" }

  /// Retries temporary failures of idempotent requests, within the policy.
  public func retryDecision(
    for result: HTTPResult, of request: HTTPRequest, context: HTTPCallContext
  ) async -> HTTPRetryDecision {
    guard request.method.isIdempotent else { return .doNotRetry }
    let retriesSoFar = context.retries(by: name)
    guard retriesSoFar + 1 < policy.maximumAttempts else { return .doNotRetry }
    switch result {
    case .failure(.transport(let failure)) where failure.kind == .connectionReplaced:
      // Its connection was replaced on purpose (the network changed): the new one is ready.
      return .retry(after: .zero)
    case .failure(.transport(let failure)) where failure.isTemporary:
      return .retry(after: backoff(afterRetries: retriesSoFar))
    case .failure(.unacceptableStatus(let response))
    where policy.retryableStatuses.contains(response.status):
      if let retryAfter = response.headers["Retry-After"].flatMap({ Self.parseRetryAfter($0) }) {
        return retryAfter <= policy.maximumRetryAfter ? .retry(after: retryAfter) : .doNotRetry
      }
      return .retry(after: backoff(afterRetries: retriesSoFar))
    default:
      return .doNotRetry
    }
  }

  /// The delay before retry number `retries + 1`: `baseDelay * 2^retries`, capped, jittered.
  func backoff(afterRetries retries: Int) -> Duration {
    Backoff(base: policy.baseDelay, maximum: policy.maximumDelay, jitter: 0.5...1)
      .delay(afterFailures: retries + 1, random: jitter())
  }

  /// Parses `Retry-After`: delay-seconds or an HTTP date (RFC 9110 section 10.2.3).
  static func parseRetryAfter(_ value: String, now: Date = Date()) -> Duration? {
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    if let seconds = Int(trimmed), seconds >= 0 { return .seconds(seconds) }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    guard let date = formatter.date(from: trimmed) else { return nil }
    return .milliseconds(max(0, Int(date.timeIntervalSince(now) * 1000)))
  }
}
